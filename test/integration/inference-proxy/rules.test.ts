/**
 * inference-proxy routing rules against dynalite and a local TLS model server: which requests are
 * forwarded (running here, allowed path), where to (primary, canary, proxy service), with which headers,
 * and what a malformed record or an unavailable store answers.
 */
import { startLocalDynamo, type LocalDynamo } from '../../../local/dynamodb.js';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { jsonOf } from '../../support/json.js';
import {
  echoHandler,
  endpointRecord,
  putEndpoint,
  REGION,
  seededRandom,
  send,
  startModelServer,
  startProxy,
  tableOf,
  testCa,
  type Json,
  type ModelServer,
  type ProxyHarness,
} from './harness.js';

describe('inference-proxy rules', () => {
  let dynamo: LocalDynamo;
  let db: DynamoDBClient;
  let table: string;
  let model: ModelServer;
  let canary: ModelServer;
  let proxy: ProxyHarness;
  let names = 0;

  /** Stores a record under a fresh name (records persist across tests; the proxy caches by name). */
  async function endpoint(extra: Record<string, Json> = {}, port = model.port): Promise<string> {
    names += 1;
    const name = `ep-${names}`;
    await putEndpoint(db, table, endpointRecord(name, port, extra));
    return name;
  }

  beforeAll(async () => {
    testCa();
    dynamo = await startLocalDynamo();
    db = dynamo.client();
    table = tableOf(dynamo.env);
    model = await startModelServer(echoHandler);
    canary = await startModelServer(echoHandler);
    proxy = await startProxy({ client: db, table });
  });

  afterAll(async () => {
    await proxy.close();
    await model.close();
    await canary.close();
    await dynamo.close();
  });

  const parse = (text: string) => JSON.parse(text) as { url: string; headers: Record<string, string> };

  describe('what is not forwarded', () => {
    test('an unknown endpoint is 404 {"detail":…}', async () => {
      const res = await send(proxy.base, '/inference/no-such-endpoint/v1/completions');
      expect(res.status).toBe(404);
      expect(JSON.parse(res.text)).toEqual({ detail: "Inference endpoint 'no-such-endpoint' not found" });
    });

    test.each(['stopped', 'creating', 'updating', 'failed', 'RUNNING'])(
      'an endpoint that is %s in this region is 404',
      async (state) => {
        const before = model.seen.length;
        const name = await endpoint({ regions: { [REGION]: { state } } });
        const res = await send(proxy.base, `/inference/${name}/v1/completions`);
        expect(res.status).toBe(404);
        expect(JSON.parse(res.text).detail).toBe(
          `Inference endpoint '${name}' is not running in region ${REGION}`,
        );
        expect(model.seen.length).toBe(before);
      },
    );

    test('an endpoint running only in another region is 404 here', async () => {
      const name = await endpoint({ regions: { 'us-west-2': { state: 'running' } } });
      const res = await send(proxy.base, `/inference/${name}/v1/completions`);
      expect(res.status).toBe(404);
      expect(JSON.parse(res.text).detail).toContain('is not running in region us-east-1');
    });

    test('a path outside the serving paths is 404 and never reaches the model', async () => {
      const name = await endpoint();
      const before = model.seen.length;
      for (const path of ['/admin', '/v1/completionsx', '/v1/completions/extra', '/v1/modelsx', '/metrics']) {
        const res = await send(proxy.base, `/inference/${name}${path}`);
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
        expect(JSON.parse(res.text).detail).toBe(
          `Path '${path}' is not served by inference endpoint '${name}'`,
        );
      }
      expect(model.seen.length).toBe(before);
    });

    test('dot segments, raw or percent-encoded, never pass the allowlist', async () => {
      const name = await endpoint();
      const before = model.seen.length;
      for (const path of [
        '/v1/models/../../admin',
        '/v1/models/%2e%2e/%2E%2E/admin',
        '/v1/models/a%2F..%2F..%2Fadmin',
        '/v1/models/./x',
        '/v1/models/%00',
      ]) {
        const res = await send(proxy.base, `/inference/${name}${path}`);
        expect({ path, status: res.status }).toEqual({ path, status: 404 });
      }
      // A malformed escape is refused by Fastify's router (400) before the proxy sees it.
      const malformed = await send(proxy.base, `/inference/${name}/v1/models/%zz`);
      expect(malformed.status).toBe(400);
      expect(model.seen.length).toBe(before);
    });

    test('the endpoint root is 404 unless "/" is a serving path', async () => {
      const name = await endpoint();
      expect((await send(proxy.base, `/inference/${name}`)).status).toBe(404);
      expect((await send(proxy.base, `/inference/${name}/`)).status).toBe(404);
    });
  });

  describe('what is forwarded', () => {
    test('a serving path and the health path are forwarded; prefixes match on whole segments', async () => {
      const name = await endpoint();
      for (const path of ['/v1/completions', '/health', '/v1/models', '/v1/models/llama/7b', '/generate']) {
        const res = await send(proxy.base, `/inference/${name}${path}`);
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
        expect(parse(res.text).url).toBe(path);
      }
    });

    test('percent-encoded bytes are forwarded as sent and matched decoded', async () => {
      const name = await endpoint();
      const res = await send(proxy.base, `/inference/${name}/v1/models/meta-llama%2FLlama-3%20x`);
      expect(res.status).toBe(200);
      expect(parse(res.text).url).toBe('/v1/models/meta-llama%2FLlama-3%20x');
    });

    test('the endpoint root forwards to "/" with its query when "/" is a serving path', async () => {
      const name = await endpoint({ serving_paths: ['/'] });
      const res = await send(proxy.base, `/inference/${name}?model=x&n=1`);
      expect(res.status).toBe(200);
      expect(parse(res.text).url).toBe('/?model=x&n=1');
      const slash = await send(proxy.base, `/inference/${name}/`);
      expect(parse(slash.text).url).toBe('/');
    });

    test('request headers: envelope, credentials and hop-by-hop stay behind; forwarding headers are added', async () => {
      const name = await endpoint();
      const res = await send(proxy.base, `/inference/${name}/generate?q=1`, {
        method: 'POST',
        body: '{"prompt":"hi"}',
        headers: {
          'content-type': 'application/json',
          authorization: 'Bearer caller-token',
          'x-custom': 'kept',
          'x-request-id': 'trace-123',
          connection: 'keep-alive, x-conn-listed',
          'x-conn-listed': 'dropped',
          'keep-alive': 'timeout=5',
          'x-forwarded-for': '10.0.0.9',
          'x-forwarded-proto': 'https',
          'x-forwarded-host': 'api.example.com',
          te: 'trailers',
        },
      });
      expect(res.status).toBe(200);
      const seen = parse(res.text).headers;
      for (const dropped of [
        'authorization',
        'x-svc-signature',
        'x-svc-signature-version',
        'x-svc-timestamp',
        'x-svc-nonce',
        'x-svc-content-sha256',
        'x-conn-listed',
        'keep-alive',
        'te',
      ]) {
        expect({ dropped, value: seen[dropped] }).toEqual({ dropped, value: undefined });
      }
      expect(seen['x-custom']).toBe('kept');
      expect(seen['content-type']).toBe('application/json');
      expect(seen['content-length']).toBe('15');
      expect(seen.host).toBe(`127.0.0.1:${model.port}`);
      expect(seen['x-forwarded-for']).toBe('10.0.0.9, 127.0.0.1');
      expect(seen['x-forwarded-proto']).toBe('https');
      expect(seen['x-forwarded-host']).toBe('api.example.com');
      expect(seen['x-forwarded-prefix']).toBe(`/inference/${name}`);
      // The caller's sane request id is the proxy's request id, and it travels on.
      expect(seen['x-request-id']).toBe('trace-123');
      expect(res.headers['x-request-id']).toBe('trace-123');
    });

    test('response headers: hop-by-hop and Connection-listed headers stay behind, repeats survive', async () => {
      const name = await endpoint();
      const res = await send(proxy.base, `/inference/${name}/generate`);
      expect(res.status).toBe(200);
      expect(res.headers['x-model']).toBe('echo');
      expect(res.headers['x-hop-secret']).toBeUndefined();
      expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
      expect(res.headers['x-gco-inference-target']).toBe('primary');
      expect(res.headers['x-request-id']).not.toBe('model-chosen-id');
      const proxyHeaders = parse(res.text).headers;
      expect(res.headers['x-request-id']).toBe(proxyHeaders['x-request-id']);
    });
  });

  describe('targets', () => {
    test('canary traffic follows the weight, drawn from the injected random source', async () => {
      const seeded = await startProxy({ client: db, table, random: seededRandom(42) });
      try {
        const name = await endpoint({ canary: { service: '127.0.0.1', port: canary.port, weight: 30 } });
        const expectedDraws = seededRandom(42);
        let expectedCanary = 0;
        const N = 100;
        for (let i = 0; i < N; i++) if (expectedDraws() * 100 < 30) expectedCanary += 1;

        const beforeCanary = canary.seen.length;
        let canaryAnswers = 0;
        for (let i = 0; i < N; i++) {
          const res = await send(seeded.base, `/inference/${name}/v1/completions`);
          expect(res.status).toBe(200);
          if (res.headers['x-gco-inference-target'] === 'canary') canaryAnswers += 1;
        }
        expect(canaryAnswers).toBe(expectedCanary);
        expect(canary.seen.length - beforeCanary).toBe(expectedCanary);
        // And the split is roughly the weight (seed 42 is not a degenerate sequence).
        expect(canaryAnswers).toBeGreaterThan(15);
        expect(canaryAnswers).toBeLessThan(45);
      } finally {
        await seeded.close();
      }
    });

    test('weight 100 sends everything to the canary, weight 0 nothing', async () => {
      const all = await endpoint({ canary: { service: '127.0.0.1', port: canary.port, weight: 100 } });
      const none = await endpoint({ canary: { service: '127.0.0.1', port: canary.port, weight: 0 } });
      for (let i = 0; i < 5; i++) {
        expect((await send(proxy.base, `/inference/${all}/generate`)).headers['x-gco-inference-target']).toBe(
          'canary',
        );
        expect(
          (await send(proxy.base, `/inference/${none}/generate`)).headers['x-gco-inference-target'],
        ).toBe('primary');
      }
    });

    test('a proxy service takes every request, canary or not', async () => {
      const router = await startModelServer(echoHandler);
      try {
        // The proxy service listens on the endpoint's port; point the record's port at the router.
        const name = await endpoint(
          {
            service: 'model.svc',
            proxy_service: '127.0.0.1',
            canary: { service: 'model.svc', weight: 100 },
          },
          router.port,
        );
        const res = await send(proxy.base, `/inference/${name}/generate`);
        expect(res.status).toBe(200);
        expect(res.headers['x-gco-inference-target']).toBe('proxy');
        expect(router.seen).toHaveLength(1);
      } finally {
        await router.close();
      }
    });
  });

  describe('records and the store', () => {
    test.each<[string, Record<string, Json>]>([
      ['a service with a path in it', { service: 'evil.example.com/x' }],
      ['a service with a port in it', { service: '127.0.0.1:8443' }],
      ['no service', { service: null }],
      ['serving_paths as a string', { serving_paths: '/v1/completions' }],
      ['a relative serving path', { serving_paths: ['v1/completions'] }],
      ['a wildcard in the middle', { serving_paths: ['/v1/*/x'] }],
      ['a port out of range', { port: 70000 }],
      ['a canary weight above 100', { canary: { service: '127.0.0.1', weight: 101 } }],
      ['a state that is not a string', { regions: { [REGION]: { state: 1 } } }],
      ['regions that are a list', { regions: [REGION] }],
    ])('a record with %s is 502 {"detail":…} and is not forwarded', async (_label, extra) => {
      const name = await endpoint(extra);
      const before = model.seen.length;
      const res = await send(proxy.base, `/inference/${name}/v1/completions`);
      expect(res.status).toBe(502);
      expect(JSON.parse(res.text)).toEqual({ detail: `Inference endpoint '${name}' is misconfigured` });
      expect(model.seen.length).toBe(before);
    });

    test('a state change takes effect once the cached record expires', async () => {
      let now = 1_000_000;
      const cached = await startProxy({
        client: db,
        table,
        now: () => now,
        config: { endpointCacheTtlMs: 5_000 },
      });
      try {
        const name = await endpoint();
        expect((await send(cached.base, `/inference/${name}/generate`)).status).toBe(200);
        await putEndpoint(
          db,
          table,
          endpointRecord(name, model.port, { regions: { [REGION]: { state: 'stopped' } } }),
        );
        now += 4_999; // within the TTL: the cached "running" record still serves
        expect((await send(cached.base, `/inference/${name}/generate`)).status).toBe(200);
        now += 2; // past the TTL: the store is read again
        expect((await send(cached.base, `/inference/${name}/generate`)).status).toBe(404);
      } finally {
        await cached.close();
      }
    });

    test('a store that cannot be read is 503 {"detail":…}', async () => {
      const broken = await startProxy({
        endpoints: { fetch: () => Promise.reject(new Error('ThrottlingException')) },
      });
      try {
        const res = await send(broken.base, '/inference/anything/generate');
        expect(res.status).toBe(503);
        expect(await jsonOf(new Response(res.text))).toEqual({
          detail: 'Inference endpoint store unavailable',
        });
      } finally {
        await broken.close();
      }
    });
  });
});
