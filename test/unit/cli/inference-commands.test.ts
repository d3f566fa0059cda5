/**
 * `gco inference` lifecycle verbs: what each command line puts on the wire (against the recording
 * loopback API), the usage errors (exit 2, nothing sent), and `--wait` against a loopback server that
 * answers the documented GET /api/v1/inference/endpoints/{name} views from a script.
 *
 * The scripted server is a test double of the lifecycle API's documented answers (/tmp contract of
 * issue 24: generation, regions.<r>.{state, observed_generation, reason}, 404 once deleted): the real API
 * is built in parallel in manifest-processor; the e2e tests against it belong to the local platform.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { endpointsFileFor, runGco, startRecordingApi, type RecordingApi } from './support/run-in-process.js';

let api: RecordingApi;
let endpoints: string;

beforeAll(async () => {
  api = await startRecordingApi();
  endpoints = endpointsFileFor(api);
});
afterAll(() => api.close());
beforeEach(() => {
  api.requests.length = 0;
});

async function sent(args: string[]) {
  const result = await runGco(['--endpoints-file', endpoints, '-o', 'json', ...args]);
  expect(result).toMatchObject({ code: 0, stderr: expect.not.stringContaining('gco:') });
  expect(api.requests).toHaveLength(1);
  const request = api.requests[0]!;
  return { result, request, body: request.body === '' ? undefined : (JSON.parse(request.body) as unknown) };
}

describe('requests', () => {
  test('deploy: the documented create body, an Idempotency-Key, only the options given', async () => {
    const { request, body, result } = await sent([
      'inference',
      'deploy',
      'llama',
      '--image',
      'repo/vllm:1',
      '--target-region',
      'us-east-1',
      '--target-region',
      'us-west-2',
      '--replicas',
      '2',
      '--gpu',
      '1',
      '--cpu',
      '500m',
      '--memory',
      '16Gi',
      '--port',
      '8000',
      '--health-path',
      '/health',
      '--serving-path',
      '/v1/completions',
      '--serving-path',
      '/v1/models',
      '--env',
      'MODEL_ID=acme/llama',
      '--env',
      'DEBUG=a=b',
    ]);
    expect([request.method, request.target]).toEqual(['POST', '/prod/api/v1/inference/endpoints']);
    expect(body).toEqual({
      name: 'llama',
      image: 'repo/vllm:1',
      regions: ['us-east-1', 'us-west-2'],
      replicas: 2,
      port: 8000,
      health_path: '/health',
      serving_paths: ['/v1/completions', '/v1/models'],
      resources: { cpu: '500m', memory: '16Gi', gpu: 1 },
      env: { MODEL_ID: 'acme/llama', DEBUG: 'a=b' },
    });
    const key = request.headers['idempotency-key'];
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.stderr).toContain(`--idempotency-key ${String(key)}`);
  });

  test('deploy: without --target-region the endpoint runs in the region --region pins (and is sent there)', async () => {
    const { request, body } = await sent([
      'inference',
      'deploy',
      'small',
      '--image',
      'repo/tgi:2',
      '--region',
      'us-east-1',
      '--idempotency-key',
      'k-1',
    ]);
    expect(request.target).toBe('/regional/prod/api/v1/inference/endpoints');
    expect(request.signedFor).toBe('us-east-1');
    expect(request.headers['idempotency-key']).toBe('k-1');
    expect(body).toEqual({ name: 'small', image: 'repo/tgi:2', regions: ['us-east-1'] });
  });

  test.each([
    [['scale', 'llama', '--replicas', '3'], 'POST', '/scale', { replicas: 3 }],
    [['update-image', 'llama', '--image', 'repo/vllm:2'], 'POST', '/image', { image: 'repo/vllm:2' }],
    [
      ['canary', 'llama', '--image', 'repo/vllm:3', '--weight', '20'],
      'POST',
      '/canary',
      { image: 'repo/vllm:3', weight: 20 },
    ],
    [['promote', 'llama'], 'POST', '/promote', {}],
    [['rollback', 'llama'], 'POST', '/rollback', {}],
    [['stop', 'llama'], 'POST', '/stop', {}],
    [['start', 'llama', '--expected-generation', '7'], 'POST', '/start', { expected_generation: 7 }],
    [
      ['scale', 'llama', '--replicas', '1', '--expected-generation', '4'],
      'POST',
      '/scale',
      { replicas: 1, expected_generation: 4 },
    ],
    [['status', 'llama'], 'GET', '', undefined],
    [['delete', 'llama'], 'DELETE', '', undefined],
  ])('%j', async (args, method, suffix, expected) => {
    const { request, body } = await sent(['inference', ...args]);
    expect([request.method, request.target]).toEqual([
      method,
      `/prod/api/v1/inference/endpoints/llama${suffix}`,
    ]);
    expect(body).toEqual(expected);
  });

  test.each([
    [['status', 'endpoint/llama'], 'GET', ''],
    [['status', 'endpoints/llama'], 'GET', ''],
    [['scale', 'endpoint/llama', '--replicas', '2'], 'POST', '/scale'],
    [['update-image', 'endpoint/llama', '--image', 'repo/vllm:2'], 'POST', '/image'],
    [['canary', 'endpoint/llama', '--image', 'repo/vllm:3', '--weight', '20'], 'POST', '/canary'],
    [['promote', 'Endpoint/llama'], 'POST', '/promote'],
    [['delete', 'endpoint/llama'], 'DELETE', ''],
  ])('%j: endpoint/NAME as `-o name` prints it is the endpoint NAME', async (args, method, suffix) => {
    const { request } = await sent(['inference', ...args]);
    expect([request.method, request.target]).toEqual([
      method,
      `/prod/api/v1/inference/endpoints/llama${suffix}`,
    ]);
  });

  test('invoke takes endpoint/NAME too', async () => {
    const { request } = await sent(['inference', 'invoke', 'endpoint/llama', '-d', '{"prompt":"x"}']);
    expect(request.target).toBe('/prod/inference/llama/v1/completions');
  });

  test('list', async () => {
    expect((await sent(['inference', 'list'])).request.target).toBe('/prod/api/v1/inference/endpoints');
  });
});

describe('usage errors exit 2 and send nothing', () => {
  test.each([
    [['deploy', 'llama', '--target-region', 'us-east-1']],
    [['deploy', 'llama', '--image', 'i']],
    [['deploy', 'Llama', '--image', 'i', '--target-region', 'us-east-1']],
    [['deploy', '9lives', '--image', 'i', '--target-region', 'us-east-1']],
    [['deploy', 'a'.repeat(41), '--image', 'i', '--target-region', 'us-east-1']],
    [['deploy', 'llama', '--image', 'i', '--target-region', 'mars-1']],
    [['deploy', 'llama', '--image', 'i', '--target-region', 'us-east-1', '--replicas', '0']],
    [['deploy', 'llama', '--image', 'i', '--target-region', 'us-east-1', '--gpu', '-1']],
    [['deploy', 'llama', '--image', 'i', '--target-region', 'us-east-1', '--cpu', 'lots']],
    [['deploy', 'llama', '--image', 'i', '--target-region', 'us-east-1', '--memory', '0Gi']],
    [['deploy', 'llama', '--image', 'i', '--target-region', 'us-east-1', '--port', '70000']],
    [['deploy', 'llama', '--image', 'i', '--target-region', 'us-east-1', '--health-path', 'health']],
    [['deploy', 'llama', '--image', 'i', '--target-region', 'us-east-1', '--serving-path', '/a?b']],
    [['deploy', 'llama', '--image', 'i', '--target-region', 'us-east-1', '--env', 'NOVALUE']],
    [['deploy', 'llama', '--image', 'i', '--target-region', 'us-east-1', '--idempotency-key', 'a b']],
    [['deploy', 'llama', '--image', 'i', '--target-region', 'us-east-1', '--wait-timeout', '0']],
    [['scale', 'llama']],
    [['scale', 'llama', '--replicas', 'two']],
    [['canary', 'llama', '--image', 'i', '--weight', '0']],
    [['canary', 'llama', '--image', 'i', '--weight', '100']],
    [['canary', 'llama', '--weight', '20']],
    [['update-image', 'llama']],
    [['promote', 'llama', '--expected-generation', '0']],
    [['status', 'UPPER']],
    [['status', 'endpoint/UPPER']],
    [['delete']],
    [['restart', 'llama']],
  ])('%j', async (args) => {
    const result = await runGco(['--endpoints-file', endpoints, 'inference', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toBe('');
    expect(api.requests).toHaveLength(0);
  });

  test.each([
    [['status', 'job/llama']],
    [['scale', 'queuedjob/llama', '--replicas', '2']],
    [['delete', 'template/llama']],
    [['invoke', 'job.batch/llama', '--prompt', 'x']],
  ])('%j: another kind’s kind/name is a resource type mismatch', async (args) => {
    const result = await runGco(['--endpoints-file', endpoints, 'inference', ...args]);
    const given = String(args[1]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `gco: resource type mismatch: "${given}" is a ${given.split('/')[0]}, not an endpoint\n` +
        'hint: give NAME or endpoint/NAME (as `-o name` prints it)\n',
    );
    expect(api.requests).toHaveLength(0);
  });

  test.each([[['status', 'endpoint/']], [['invoke', 'endpoint/a/b', '--prompt', 'x']]])(
    '%j: a kind without one name is not an endpoint name',
    async (args) => {
      const result = await runGco(['--endpoints-file', endpoints, 'inference', ...args]);
      expect([result.code, result.stderr.split('\n')[0]]).toEqual([
        2,
        `gco: "${String(args[1])}" is not an endpoint name`,
      ]);
      expect(api.requests).toHaveLength(0);
    },
  );
});

/** A loopback API answering writes with `write` and each GET with the next scripted answer (the last repeats). */
async function scriptedApi(write: object, gets: readonly (object | 404)[]) {
  const seen: string[] = [];
  let next = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(`${req.method ?? ''} ${req.url ?? ''}`);
      const answer = req.method === 'GET' ? gets[Math.min(next++, gets.length - 1)] : write;
      const status = answer === 404 ? 404 : req.method === 'DELETE' ? 202 : req.method === 'GET' ? 200 : 201;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer === 404 ? { detail: 'endpoint llama not found' } : answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const file = endpointsFileFor({ url, requests: [], close: () => Promise.resolve() });
  return {
    seen,
    run: (args: string[]) => runGco(['--endpoints-file', file, '-o', 'json', 'inference', ...args]),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type RegionState = { state: string; observed_generation: number; reason?: string };

/** An endpoint view as GET answers it. */
function view(generation: number, regions: Record<string, RegionState>, extra: object = {}) {
  return {
    name: 'llama',
    generation,
    created_at: '2026-11-27T10:00:00Z',
    updated_at: '2026-11-27T10:00:00Z',
    spec: {
      image: 'repo/vllm:1',
      container_port: 8000,
      serving_paths: ['/v1/completions'],
      health_path: '/health',
      replicas: 2,
      resources: {},
      env: {},
      regions: ['us-east-1', 'us-west-2'],
      stopped: false,
      canary: null,
      previous_image: null,
      ...extra,
    },
    regions: Object.fromEntries(
      Object.entries(regions).map(([r, s]) => [
        r,
        { ready_replicas: 0, updated_at: '2026-11-27T10:00:00Z', ...s },
      ]),
    ),
  };
}

const running = (g: number): RegionState => ({ state: 'running', observed_generation: g });

describe('--wait', () => {
  test('returns once every listed region runs the current generation; a region still on the old one is pending', async () => {
    const api = await scriptedApi(view(3, { 'us-east-1': running(2), 'us-west-2': running(2) }), [
      view(3, { 'us-east-1': running(2), 'us-west-2': running(2) }),
      view(3, { 'us-east-1': { state: 'pending', observed_generation: 3 }, 'us-west-2': running(2) }),
      view(3, { 'us-east-1': running(3), 'us-west-2': running(2) }),
      view(3, { 'us-east-1': running(3), 'us-west-2': running(3) }),
    ]);
    try {
      const result = await api.run(['scale', 'llama', '--replicas', '2', '--wait']);
      expect(result.code).toBe(0);
      expect(api.seen).toEqual([
        'POST /prod/api/v1/inference/endpoints/llama/scale',
        ...Array<string>(4).fill('GET /prod/api/v1/inference/endpoints/llama'),
      ]);
      // The change's answer, then the final view (NDJSON).
      const printed = result.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { regions: object });
      expect(printed).toHaveLength(2);
      expect(printed[1]?.regions).toMatchObject({
        'us-west-2': { state: 'running', observed_generation: 3 },
      });
      expect(result.stderr).toContain('llama us-east-1: running (generation 2 of 3)');
      expect(result.stderr).toContain('llama us-east-1: pending');
      expect(result.stderr).toContain('llama us-west-2: running\n');
    } finally {
      await api.close();
    }
  });

  test('stop waits for `stopped`, not `running`', async () => {
    const stopped = { stopped: true };
    const api = await scriptedApi(view(5, {}, stopped), [
      view(
        5,
        { 'us-east-1': running(5), 'us-west-2': { state: 'stopped', observed_generation: 5 } },
        stopped,
      ),
      view(
        5,
        {
          'us-east-1': { state: 'stopped', observed_generation: 5 },
          'us-west-2': { state: 'stopped', observed_generation: 5 },
        },
        stopped,
      ),
    ]);
    try {
      const result = await api.run(['stop', 'llama', '--wait']);
      expect(result.code).toBe(0);
      expect(api.seen.filter((s) => s.startsWith('GET'))).toHaveLength(2);
    } finally {
      await api.close();
    }
  });

  test('a region that reports `failed` for the current generation exits 1 naming it and its reason', async () => {
    const api = await scriptedApi(view(2, {}), [
      view(2, {
        'us-east-1': running(2),
        'us-west-2': {
          state: 'failed',
          observed_generation: 2,
          reason: 'ImagePullBackOff: repo/vllm:9 not found',
        },
      }),
    ]);
    try {
      const result = await api.run(['update-image', 'llama', '--image', 'repo/vllm:9', '--wait']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        'Endpoint llama failed in us-west-2 (ImagePullBackOff: repo/vllm:9 not found)',
      );
    } finally {
      await api.close();
    }
  });

  test('a `failed` left from an older generation is not the answer: the wait goes on', async () => {
    const api = await scriptedApi(view(4, {}), [
      view(4, {
        'us-east-1': { state: 'failed', observed_generation: 3, reason: 'old' },
        'us-west-2': running(4),
      }),
      view(4, { 'us-east-1': running(4), 'us-west-2': running(4) }),
    ]);
    try {
      expect((await api.run(['rollback', 'llama', '--wait'])).code).toBe(0);
    } finally {
      await api.close();
    }
  });

  test('the timeout exits 1 naming what was still pending', async () => {
    const api = await scriptedApi(view(2, {}), [
      view(2, {
        'us-east-1': running(2),
        'us-west-2': { state: 'degraded', observed_generation: 2, reason: '1/2 ready' },
      }),
    ]);
    try {
      const result = await api.run([
        'canary',
        'llama',
        '--image',
        'repo/vllm:3',
        '--weight',
        '20',
        '--wait',
        '--wait-timeout',
        '1',
      ]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('Gave up waiting after 1 s: llama not ready in us-west-2 (degraded)');
      expect(result.stderr).not.toMatch(/not ready in [^\n]*us-east-1/);
    } finally {
      await api.close();
    }
  });

  test('delete --wait returns when GET answers 404', async () => {
    const deleting = { ...view(6, {}), deleting: true };
    const api = await scriptedApi(deleting, [
      {
        ...view(6, {
          'us-east-1': { state: 'deleting', observed_generation: 6 },
          'us-west-2': { state: 'deleted', observed_generation: 6 },
        }),
        deleting: true,
      },
      404,
    ]);
    try {
      const result = await api.run(['delete', 'llama', '--wait']);
      expect(result.code).toBe(0);
      expect(api.seen[0]).toBe('DELETE /prod/api/v1/inference/endpoints/llama');
      expect(result.stderr).toContain('llama: deleted');
    } finally {
      await api.close();
    }
  });

  test('an endpoint deleted under a scale --wait ends the wait (exit 1), as does a 404', async () => {
    const deleted = await scriptedApi(view(2, {}), [
      { ...view(2, { 'us-east-1': running(2), 'us-west-2': running(2) }), deleting: true },
    ]);
    const gone = await scriptedApi(view(2, {}), [404]);
    try {
      const first = await deleted.run(['scale', 'llama', '--replicas', '3', '--wait']);
      expect([first.code, first.stderr]).toEqual([1, expect.stringContaining('is being deleted')]);
      const second = await gone.run(['start', 'llama', '--wait']);
      expect([second.code, second.stderr]).toEqual([1, expect.stringContaining('HTTP 404')]);
    } finally {
      await deleted.close();
      await gone.close();
    }
  });
});
