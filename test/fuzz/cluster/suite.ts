/**
 * Runs the generated-input properties over a set of operations: a fixed seed and a bounded number of
 * runs per operation (FUZZ_SEED and FUZZ_RUNS override them; fast-check prints the seed and the path of
 * a failing case, which reproduce it). docs/api-limits.md lists what is checked.
 */
import fc from 'fast-check';
import { checkReply } from './checks.js';
import type { FuzzRegion } from './harness.js';
import { FIXTURE, jobManifest, type Operation, type WriteCheck } from './operations.js';
import { casesOf, type Case } from './requests.js';
import { IMAGE } from '../../support/cluster-fixtures.js';
import { ENDPOINT_FIXTURE } from './inference-endpoints-refinements.js';

export const SEED = Number(process.env.FUZZ_SEED ?? 20_261_124);
export const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 40);

/** What a refused write must leave as it was. */
async function snapshotOf(region: FuzzRegion, write: WriteCheck): Promise<unknown> {
  switch (write) {
    case 'queue':
      return region.queueCounts();
    case 'template':
      return region.templateCount();
    case 'webhook':
      return region.webhookCount();
    case 'cluster':
      return region.clusterJobCount();
    case 'endpoint':
      return region.endpointRecords();
  }
}

async function checkNothingLeft(region: FuzzRegion, op: Operation, c: Case, before: unknown): Promise<void> {
  const write = op.refinement.write;
  if (!write) return;
  const after = await snapshotOf(region, write);
  if (JSON.stringify(after) !== JSON.stringify(before)) {
    throw new Error(
      `${op.operationId} — a refused write left something behind (${JSON.stringify(before)} → ${JSON.stringify(after)})\n  case: ${c.label}`,
    );
  }
  if (c.idempotencyKey !== undefined && (await region.hasIdempotencyRecord(c.idempotencyKey))) {
    throw new Error(
      `${op.operationId} — a refused submission consumed its Idempotency-Key\n  case: ${c.label}`,
    );
  }
}

export async function fuzzOperation(region: FuzzRegion, op: Operation): Promise<void> {
  await fc.assert(
    fc.asyncProperty(casesOf(op), async (c) => {
      const write = op.refinement.write;
      const before = write ? await snapshotOf(region, write) : undefined;
      const reply = await region.send(op.service, c.request);
      checkReply(op, c, reply);
      if (reply.status >= 400 && reply.status < 500) await checkNothingLeft(region, op, c, before);
    }),
    { seed: SEED, numRuns: RUNS_PER_OPERATION },
  );
}

/** The job, the template and the endpoint the valid requests of other operations can find. */
export async function createFixtures(region: FuzzRegion): Promise<void> {
  const [manifest] = fc.sample(jobManifest, { seed: SEED, numRuns: 1 });
  const job = { ...manifest, metadata: { name: FIXTURE.job, namespace: FIXTURE.namespace } };
  const template = {
    name: FIXTURE.template,
    manifest: { ...manifest, metadata: { name: '{{name}}', labels: { app: 'fuzz' } } },
    parameters: { x_unused: 'default' },
  };
  const endpoint = { name: ENDPOINT_FIXTURE, image: IMAGE, regions: ['us-east-1'] };
  for (const [target, body, created] of [
    ['/api/v1/manifests', { manifests: [job] }, 200],
    ['/api/v1/templates', template, 200],
    ['/api/v1/inference/endpoints', endpoint, 201],
  ] as const) {
    const reply = await region.send('manifest-processor', {
      method: 'POST',
      target,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify(body)),
    });
    if (reply.status !== created) throw new Error(`fixture ${target}: ${reply.status} ${reply.text}`);
  }
}
