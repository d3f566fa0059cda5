/**
 * Streaming through inference-proxy against a local TLS model server: chunks are relayed as the model
 * writes them (order and relative timing only, never wall-clock budgets), bodies and queries arrive
 * byte-exact, and a caller that hangs up takes the upstream request down with it.
 */
import { randomBytes } from 'node:crypto';
import type { ClientRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import { startLocalDynamo, type LocalDynamo } from '../../../local/dynamodb.js';
import {
  endpointRecord,
  putEndpoint,
  send,
  startModelServer,
  startProxy,
  tableOf,
  testCa,
  type ModelServer,
  type ProxyHarness,
} from './harness.js';
import { sleep, waitFor } from '../../support/wait-for.js';

const EVENTS = 5;
const EVENT_GAP_MS = 150;

describe('inference-proxy streaming', () => {
  let dynamo: LocalDynamo;
  let table: string;
  let model: ModelServer;
  let proxy: ProxyHarness;
  /** performance.now() at which the model server wrote each event. */
  let writtenAt: number[];
  /** Resolved by a test when its client has received the first chunk. */
  let firstSeen: () => void;
  let firstSeenPromise: Promise<void>;

  beforeAll(async () => {
    testCa();
    dynamo = await startLocalDynamo();
    table = tableOf(dynamo.env);
  });

  afterAll(async () => {
    await dynamo.close();
  });

  beforeEach(async () => {
    writtenAt = [];
    firstSeenPromise = new Promise<void>((resolve) => (firstSeen = resolve));
    model = await startModelServer(async (req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path === '/v1/chat/completions') {
        // Slow server-sent events, like a model generating tokens.
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (let i = 0; i < EVENTS; i++) {
          if (i > 0) await sleep(EVENT_GAP_MS);
          res.write(`data: {"token":${i}}\n\n`);
          writtenAt.push(performance.now());
        }
        res.end('data: [DONE]\n\n');
        return;
      }
      if (path === '/v1/completions') {
        // Writes one event, then waits until the client has seen it before finishing: proves no buffering.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
        const seen = await new Promise<boolean>((resolve) => {
          const giveUp = setTimeout(() => resolve(false), 10_000);
          void firstSeenPromise.then(() => {
            clearTimeout(giveUp);
            resolve(true);
          });
        });
        res.end(seen ? 'data: after-signal\n\n' : 'data: gave-up-waiting\n\n');
        return;
      }
      if (path === '/generate') {
        // Echoes what arrived, so the test can compare bytes.
        res.writeHead(201, {
          'content-type': 'application/octet-stream',
          'x-model-method': req.method ?? '',
          'x-model-url': req.url ?? '',
          'x-body-length': String(req.body.length),
        });
        res.end(req.body);
        return;
      }
      if (path === '/v1/models/forever') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const timer = setInterval(() => res.write('data: tick\n\n'), 20);
        res.on('close', () => clearInterval(timer));
        return;
      }
      if (path === '/v1/models/stall') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: one\n\n');
        return; // and never another byte
      }
      if (path === '/health') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '15' });
        res.end(req.method === 'HEAD' ? undefined : '{"status":"ok"}');
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"no such model route"}');
    });
    await putEndpoint(dynamo.client(), table, endpointRecord('llama', model.port));
    proxy = await startProxy({ client: dynamo.client(), table });
  });

  afterEach(async () => {
    await proxy.close();
    await model.close();
  });

  test('server-sent events arrive in order, the first before the model has written its last', async () => {
    const res = await send(proxy.base, '/inference/llama/v1/chat/completions', {
      method: 'POST',
      body: '{"stream":true}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.headers['x-gco-inference-target']).toBe('primary');
    const expected =
      Array.from({ length: EVENTS }, (_, i) => `data: {"token":${i}}\n\n`).join('') + 'data: [DONE]\n\n';
    expect(res.text).toBe(expected);
    expect(writtenAt).toHaveLength(EVENTS);
    const first = res.chunks[0];
    expect(first?.data.toString()).toContain('data: {"token":0}');
    // Relative timing: the client held event 0 while the model was still generating.
    expect(first?.at).toBeLessThan(writtenAt[EVENTS - 1] ?? 0);
    // Headers reach the caller before the model is done, too.
    expect(res.headersAt).toBeLessThan(writtenAt[EVENTS - 1] ?? 0);
    expect(res.chunks.length).toBeGreaterThan(1);
  });

  test('the first event reaches the client while the model waits for the client to have seen it', async () => {
    const res = await send(proxy.base, '/inference/llama/v1/completions', {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
      onChunk: () => firstSeen(),
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('data: first\n\ndata: after-signal\n\n');
  });

  test('a client that hangs up mid-stream closes the model server request', async () => {
    let received = 0;
    await expect(
      send(proxy.base, '/inference/llama/v1/models/forever', {
        onChunk: (_chunk, request) => {
          received += 1;
          if (received === 2) request.destroy();
        },
      }),
    ).rejects.toThrow();
    await waitFor(() => model.aborted.length === 1);
    expect(model.aborted[0]?.url).toBe('/v1/models/forever');
  });

  test('a client that hangs up before the model answers closes the model server request', async () => {
    const slow = await startModelServer(() => undefined); // never answers
    await putEndpoint(dynamo.client(), table, endpointRecord('slow', slow.port));
    try {
      let client: ClientRequest | undefined;
      const pending = send(proxy.base, '/inference/slow/generate', {
        method: 'POST',
        body: 'x',
        onRequest: (r) => (client = r),
      });
      await waitFor(() => slow.seen.length === 1);
      client?.destroy();
      await expect(pending).rejects.toThrow();
      await waitFor(() => slow.aborted.length === 1);
    } finally {
      await slow.close();
    }
  });

  test('a stream that goes silent longer than the idle timeout is cut on both sides', async () => {
    const strict = await startProxy({
      client: dynamo.client(),
      table,
      config: { streamIdleTimeoutMs: 300 },
    });
    try {
      const chunks: string[] = [];
      await expect(
        send(strict.base, '/inference/llama/v1/models/stall', {
          onChunk: (c) => chunks.push(c.data.toString()),
        }),
      ).rejects.toThrow();
      expect(chunks.join('')).toBe('data: one\n\n');
      await waitFor(() => model.aborted.some((r) => r.url === '/v1/models/stall'));
    } finally {
      await strict.close();
    }
  });

  test('a binary POST body and the raw query string reach the model byte for byte', async () => {
    const body = Buffer.concat([randomBytes(64 * 1024), Buffer.from([0, 0, 255, 13, 10])]);
    const query = '?b=2&a=%20x&a=y&empty=&flag&tilde=%7E~&plus=1+2&utf=%C3%A9&semi=a;b&limit=abc&x=1%2F2';
    const res = await send(proxy.base, `/inference/llama/generate${query}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(res.status).toBe(201);
    expect(res.headers['x-model-url']).toBe(`/generate${query}`);
    expect(res.headers['x-body-length']).toBe(String(body.length));
    expect(res.body.equals(body)).toBe(true);
    expect(model.seen.at(-1)?.body.equals(body)).toBe(true);
  });

  test('a JSON body is forwarded as sent, whitespace and key order included', async () => {
    const body = '{ "prompt" : "hi",\n  "max_tokens":5 , "z":1,"a":2 }';
    const res = await send(proxy.base, '/inference/llama/generate', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(201);
    expect(res.text).toBe(body);
  });

  test('HEAD is forwarded as HEAD and answered with the model headers and no body', async () => {
    const res = await send(proxy.base, '/inference/llama/health', { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe('15');
    expect(res.body.length).toBe(0);
    expect(model.seen.at(-1)?.method).toBe('HEAD');
  });

  test('the model status, body and headers come back unchanged (an error answer included)', async () => {
    const res = await send(proxy.base, '/inference/llama/v1/models/unknown-model');
    expect(res.status).toBe(404);
    expect(res.text).toBe('{"error":"no such model route"}');
    expect(res.headers['content-type']).toBe('application/json');
  });
});
