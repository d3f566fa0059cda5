/**
 * The submission-time strict field check (FieldCheck) against the Kubernetes API simulator over HTTP: a
 * manifest whose field shape the server accepted is not sent again (the dry-run per submission was the
 * largest single cost of a queue submission), while every refused or unanswered manifest still asks the
 * server and gets its own refusal.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ACCEPTED_SHAPE_TTL_MS, FieldCheck } from '../../../cluster/manifest-processor/src/field-check.js';
import {
  kubeConfigFor,
  startKubeApiSimulator,
  type KubeApiSimulator,
} from '../../../local/kube-api-simulator/index.js';
import { jobManifest } from './harness.js';

const NAMESPACE = 'svc-jobs';

let sim: KubeApiSimulator;
beforeAll(async () => {
  sim = await startKubeApiSimulator();
});
afterAll(async () => {
  await sim.close();
});

/** Requests the simulator received while `body` ran. */
async function requestsDuring(body: () => Promise<unknown>): Promise<number> {
  const before = sim.connectionStats().requests;
  await body();
  return sim.connectionStats().requests - before;
}

describe('FieldCheck: accepted field shapes', () => {
  test('a second manifest of an accepted shape, other values, is accepted without a dry-run', async () => {
    const check = new FieldCheck(kubeConfigFor(sim.url));
    // The first check may also read the API's discovery document.
    expect(
      await requestsDuring(() => check.refusalOf(jobManifest('shape-a'), NAMESPACE)),
    ).toBeGreaterThanOrEqual(1);
    let answer: string | undefined = 'not called';
    const asked = await requestsDuring(async () => {
      answer = await check.refusalOf(
        jobManifest('shape-b', { command: ['sh', '-c', 'echo other'] }),
        NAMESPACE,
      );
    });
    expect(answer).toBeUndefined();
    expect(asked).toBe(0);
    // Nothing was created: the check is a dry-run.
    expect(sim.get('batch/v1', 'Job', NAMESPACE, 'shape-a')).toBeUndefined();
  });

  test('a misspelt field is refused by the server every time, even after its template was accepted', async () => {
    const check = new FieldCheck(kubeConfigFor(sim.url));
    await check.refusalOf(jobManifest('typo-ok'), NAMESPACE);
    for (const name of ['typo-1', 'typo-2']) {
      const manifest = jobManifest(name);
      Object.assign(manifest.spec as Record<string, unknown>, { backofLimit: 2 });
      let refusal: string | undefined;
      expect(
        await requestsDuring(async () => {
          refusal = await check.refusalOf(manifest, NAMESPACE);
        }),
      ).toBe(1);
      expect(refusal).toContain('unknown field "spec.backofLimit"');
    }
  });

  test('an acceptance is trusted for ACCEPTED_SHAPE_TTL_MS only', async () => {
    let now = 1_000_000;
    const check = new FieldCheck(kubeConfigFor(sim.url), () => now);
    await check.refusalOf(jobManifest('ttl-a'), NAMESPACE);
    now += ACCEPTED_SHAPE_TTL_MS - 1;
    expect(await requestsDuring(() => check.refusalOf(jobManifest('ttl-b'), NAMESPACE))).toBe(0);
    now += 1;
    expect(await requestsDuring(() => check.refusalOf(jobManifest('ttl-c'), NAMESPACE))).toBe(1);
  });

  test('an unanswered check (the API refuses the resource) is not remembered as an acceptance', async () => {
    const check = new FieldCheck(kubeConfigFor(sim.url));
    sim.setUnavailable('jobs', 503);
    try {
      // Not this check's business: the apply at dispatch reports it.
      expect(await check.refusalOf(jobManifest('down-a'), NAMESPACE)).toBeUndefined();
    } finally {
      sim.clearUnavailable('jobs');
    }
    expect(
      await requestsDuring(() => check.refusalOf(jobManifest('down-b'), NAMESPACE)),
    ).toBeGreaterThanOrEqual(1);
  });
});
