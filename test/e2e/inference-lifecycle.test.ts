/**
 * Issue 24's Must-show on the local platform: a user deploys an inference endpoint with the real `gco`
 * executable, it runs (the region's reconciler writes a Deployment and Service, the simulated kubelet runs
 * the local sample model in each pod), serves streamed tokens through the global API, scales, takes a
 * canary, promotes it, and is deleted — after which invoking it is the API's 404. The canary's share of
 * 1,000 signed requests through the global API lands within ±5 points of its weight.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import {
  ENDPOINT_LABELS,
  INFERENCE_NAMESPACE,
  endpointObjectName,
} from '../../contracts/inference-endpoints.js';
import { signSigV4 } from '../../contracts/runtime/sigv4.js';
import { tokenFor } from '../../local/model-server.js';
import { stubDetail } from '../../local/stub-model-server.js';
import { startLocalPlatform, type LocalPlatform } from '../../local/platform.js';
import { kubeConfigFor } from '../../local/kube-api-simulator/index.js';
import { gco, type GcoResult } from '../integration/cli/support/gco-process.js';
import { localEnv } from './cli/support/local-platform.js';
import { KubernetesObjectApi } from '@kubernetes/client-node';

// The whole platform in this process plus `gco` child processes that wait for rollouts: explicit budgets.
jest.setTimeout(120_000);

const REGION = 'us-east-1';
const NAME = 'e2e-llm';
const PROMPT = 'Hello';
const TOKENS = 4;
const CANARY_WEIGHT = 20;
const SPLIT_REQUESTS = 1000;
const SPLIT_CONCURRENCY = 8;

let platform: LocalPlatform;
let env: Record<string, string>;

beforeAll(async () => {
  platform = await startLocalPlatform({
    regions: [REGION],
    analytics: false,
    kubelet: { pendingMs: 50 },
    modelServer: { tokenDelayMs: 5 },
  });
  env = localEnv(platform);
}, 60_000);
afterAll(() => platform?.close());

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Runs gco; a failure shows its output in the assertion message. */
async function run(args: string[]): Promise<GcoResult> {
  return gco(args, { env });
}

function expectOk(result: GcoResult): void {
  expect({ code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({
    code: 0,
    stderr: '',
  });
}

const expectedTokens = Array.from({ length: TOKENS }, (_, i) => tokenFor(PROMPT, i));

/** `gco inference invoke NAME --prompt … --stream -o json`: the SSE events' texts, in order. */
async function invokeStream(): Promise<{ result: GcoResult; texts: string[] }> {
  const result = await run([
    'inference',
    'invoke',
    NAME,
    '--prompt',
    PROMPT,
    '--max-tokens',
    String(TOKENS),
    '--stream',
    '-o',
    'json',
  ]);
  const texts = result.stdout
    .split('\n\n')
    .filter((e) => e.startsWith('data: ') && e !== 'data: [DONE]')
    .map(
      (e) => (JSON.parse(e.slice('data: '.length)) as { choices: { text: string }[] }).choices[0]?.text ?? '',
    );
  return { result, texts };
}

async function status(): Promise<Record<string, unknown>> {
  const result = await run(['inference', 'status', NAME, '-o', 'json']);
  expectOk(result);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

interface RegionView {
  state?: string;
  observed_generation?: number;
  ready_replicas?: number;
  canary_ready_replicas?: number;
}

function regionOf(view: Record<string, unknown>): RegionView {
  return ((view.regions ?? {}) as Record<string, RegionView>)[REGION] ?? {};
}

/** Every Kubernetes object of the endpoint in the region's simulator (by the reconciler's labels). */
async function endpointObjects(): Promise<string[]> {
  const objects = KubernetesObjectApi.makeApiClient(kubeConfigFor(platform.endpoints.kubernetes));
  const out: string[] = [];
  for (const [apiVersion, kind] of [
    ['apps/v1', 'Deployment'],
    ['apps/v1', 'ReplicaSet'],
    ['v1', 'Service'],
    ['v1', 'Pod'],
    ['policy/v1', 'PodDisruptionBudget'],
  ] as const) {
    const list = await objects.list(apiVersion, kind, INFERENCE_NAMESPACE);
    for (const o of list.items)
      if (o.metadata?.labels?.[ENDPOINT_LABELS.endpoint] === NAME) out.push(`${kind}/${o.metadata.name}`);
  }
  return out;
}

/** One signed completion through the global API; the inference-proxy's target header says who answered. */
async function signedCompletion(): Promise<{ status: number; target: string | undefined }> {
  const body = JSON.stringify({ prompt: PROMPT, max_tokens: 1 });
  const signed = await signSigV4({
    method: 'POST',
    baseUrl: platform.endpoints.apis.global,
    path: `/inference/${NAME}/v1/completions`,
    headers: { 'content-type': 'application/json' },
    body,
    region: platform.endpoints.globalRegion,
    credentials: platform.endpoints.credentials,
  });
  return new Promise((resolve, reject) => {
    const req = request(signed.url, { method: 'POST', headers: signed.headers }, (res) => {
      res.resume();
      res.on('end', () => {
        const target = res.headers['x-gco-inference-target'];
        resolve({ status: res.statusCode ?? 0, target: Array.isArray(target) ? target[0] : target });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe(`gco inference: deploy → invoke → scale → canary → promote → delete (${REGION})`, () => {
  test('deploy --wait with inference.sampleImage: status running, invoke --stream streams the model’s tokens', async () => {
    const image = platform.endpoints.inference.sampleImage;
    expectOk(await run(['inference', 'deploy', NAME, '--image', image, '--region', REGION, '--wait']));
    const view = await status();
    expect(regionOf(view)).toMatchObject({
      state: 'running',
      observed_generation: view.generation,
      ready_replicas: 1,
    });
    const { result, texts } = await invokeStream();
    expectOk(result);
    expect(texts).toEqual(expectedTokens);
  });

  test('scale --replicas 2 --wait: two Ready pods, each running a model server', async () => {
    expectOk(await run(['inference', 'scale', NAME, '--replicas', '2', '--wait']));
    expect(regionOf(await status())).toMatchObject({ state: 'running', ready_replicas: 2 });
    const pods = (await endpointObjects()).filter((o) => o.startsWith('Pod/'));
    expect(pods).toHaveLength(2);
  });

  test(`canary --weight ${CANARY_WEIGHT} --wait: ${SPLIT_REQUESTS} requests split within ±5 points`, async () => {
    // The canary runs the same sample model (so every answer is a real completion); the proxy's target
    // header says which Service answered.
    const image = platform.endpoints.inference.sampleImage;
    expectOk(
      await run(['inference', 'canary', NAME, '--image', image, '--weight', String(CANARY_WEIGHT), '--wait']),
    );
    expect(regionOf(await status())).toMatchObject({ state: 'running', canary_ready_replicas: 1 });
    expect(await endpointObjects()).toContain(`Deployment/${endpointObjectName(NAME, 'canary')}`);

    // The inference-proxy caches a record for ENDPOINT_CACHE_TTL_MS (5 s, docs/inference-proxy.md): measure
    // once it routes by the new record, i.e. once the canary has answered.
    await until('the proxy routes to the canary', async () =>
      (await signedCompletion()).target === 'canary' ? true : undefined,
    );
    const counts: Record<string, number> = {};
    let next = 0;
    await Promise.all(
      Array.from({ length: SPLIT_CONCURRENCY }, async () => {
        while (next < SPLIT_REQUESTS) {
          next++;
          const answer = await signedCompletion();
          const key = `${answer.status} ${answer.target ?? '-'}`;
          counts[key] = (counts[key] ?? 0) + 1;
        }
      }),
    );
    expect(Object.keys(counts).sort()).toEqual(['200 canary', '200 primary']);
    const canaryShare = ((counts['200 canary'] ?? 0) / SPLIT_REQUESTS) * 100;
    expect(Math.abs(canaryShare - CANARY_WEIGHT)).toBeLessThanOrEqual(5);
  });

  test('promote --wait: the canary is gone and invoke still streams tokens', async () => {
    expectOk(await run(['inference', 'promote', NAME, '--wait']));
    const view = await status();
    expect(regionOf(view)).toMatchObject({ state: 'running', ready_replicas: 2 });
    expect((view.spec as { canary?: unknown }).canary ?? null).toBeNull();
    await expect(endpointObjects()).resolves.not.toContain(
      `Deployment/${endpointObjectName(NAME, 'canary')}`,
    );
    const { result, texts } = await invokeStream();
    expectOk(result);
    expect(texts).toEqual(expectedTokens);
  });

  test('delete --wait: no Kubernetes object is left and invoke exits 1 with the API’s 404', async () => {
    expectOk(await run(['inference', 'delete', NAME, '--wait']));
    expect(await endpointObjects()).toEqual([]);
    // The proxy may still hold the record in its cache, but a Service that no longer resolves makes it
    // read the record again (cluster/inference-proxy/src/forward.ts): the answer is the 404 at once.
    const { result } = await invokeStream();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`HTTP 404`);
  });
});

describe('an image the local platform cannot run', () => {
  test('deploys and reports running, and answers as a stub model server that says so', async () => {
    // Another tag of the sample repository: trusted by the validation policy, not the sample model.
    const image = platform.endpoints.inference.sampleImage.replace(/:[^:/]+$/, ':not-local');
    const name = 'e2e-stub';
    expectOk(await run(['inference', 'deploy', name, '--image', image, '--region', REGION, '--wait']));
    const view = JSON.parse((await run(['inference', 'status', name, '-o', 'json'])).stdout) as Record<
      string,
      unknown
    >;
    expect(regionOf(view).state).toBe('running');
    const invoked = await run(['inference', 'invoke', name, '--prompt', PROMPT, '-o', 'json']);
    expect(invoked.code).toBe(1);
    expect(`${invoked.stdout}${invoked.stderr}`).toContain(stubDetail(image));
    expectOk(await run(['inference', 'delete', name, '--wait']));
  });
});
