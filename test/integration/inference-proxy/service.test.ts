/**
 * inference-proxy as a service: the envelope guards every path but the probes, the seed's operations
 * and operation ids are published, and no query parameter can ever turn into a 422.
 */
import { connect } from 'node:net';
import { StaticEndpointSource } from '../../../cluster/inference-proxy/src/store.js';
import { signEnvelope } from '../../../contracts/envelope/envelope.js';
import { echoHandler, endpointRecord, send, startModelServer, startProxy, useEchoProxy } from './harness.js';
import { KEY } from '../../support/cluster-fixtures.js';
import { pythonSignedRequest } from '../../support/python-envelope-client.js';
import { waitFor } from '../../support/wait-for.js';

/** Requests signed and sent by the independent Python implementation of the envelope. */
const python = (request: Record<string, unknown>) => pythonSignedRequest({ key: KEY, ...request });

describe('inference-proxy service surface', () => {
  const echo = useEchoProxy();

  test('the probes answer without an envelope', async () => {
    const live = await send(echo.proxy.base, '/healthz', { signed: false });
    expect(live.status).toBe(200);
    expect(JSON.parse(live.text)).toEqual({ status: 'healthy', service: 'inference-proxy' });
    const ready = await send(echo.proxy.base, '/readyz', { signed: false });
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({ status: 'ready', service: 'inference-proxy' });
  });

  test('readiness fails once draining starts', async () => {
    const draining = await startProxy({ endpoints: new StaticEndpointSource() });
    try {
      draining.proxy.startDraining();
      expect((await send(draining.base, '/readyz', { signed: false })).status).toBe(503);
    } finally {
      await draining.close();
    }
  });

  test.each([
    ['GET', '/'],
    ['GET', '/inference/llama/v1/completions'],
    ['POST', '/inference/llama/v1/completions'],
    ['HEAD', '/inference/llama/health'],
    ['GET', '/inference/llama'],
    ['GET', '/inference/unknown/x'],
    ['GET', '/openapi.json'],
  ])('%s %s without an envelope is 403 and never forwarded', async (method, target) => {
    const before = echo.model.seen.length;
    const res = await send(echo.proxy.base, target, { method, signed: false });
    expect(res.status).toBe(403);
    if (method !== 'HEAD') expect(JSON.parse(res.text)).toEqual({ detail: 'Forbidden' });
    expect(echo.model.seen.length).toBe(before);
  });

  test('a signature over a different query is 403', async () => {
    const headers = signEnvelope({ key: KEY, method: 'GET', target: '/inference/llama/generate?n=1' });
    const res = await send(echo.proxy.base, '/inference/llama/generate?n=2', { signed: false, headers });
    expect(res.status).toBe(403);
  });

  test('a POST signed and sent by the independent Python client is forwarded', async () => {
    const [res] = await python({
      base: echo.proxy.base,
      method: 'POST',
      target: '/inference/llama/v1/completions?stream=false',
      body: '{"prompt": "hello"}',
    });
    expect(res?.status).toBe(200);
    const echoed = JSON.parse(res?.body ?? '{}');
    expect(echoed).toMatchObject({ method: 'POST', url: '/v1/completions?stream=false', body_length: 19 });
  });

  test('GET / is a small authenticated descriptor', async () => {
    const res = await send(echo.proxy.base, '/');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({
      service: 'inference-proxy',
      version: '1.0.0',
      region: 'us-east-1',
    });
  });

  test('no query parameter, however odd, is a 422: every query goes to the model', async () => {
    for (const query of [
      '?limit=abc',
      '?offset=-1&limit=99999',
      '?namepsace=typo',
      '?a=1&a=2&a=3',
      '?json=%7B%22x%22%3A1%7D',
      '?=',
      '?&&&',
      '?',
    ]) {
      const target = `/inference/llama/generate${query}`;
      const res = await send(echo.proxy.base, target);
      expect({ query, status: res.status }).toEqual({ query, status: 200 });
      expect(JSON.parse(res.text).url).toBe(`/generate${query}`);
    }
  });

  test('a body over 1 MiB is 413 and not forwarded', async () => {
    const before = echo.model.seen.length;
    const res = await send(echo.proxy.base, '/inference/llama/generate', {
      method: 'POST',
      body: Buffer.alloc(1024 * 1024 + 1, 'a'),
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(res.status).toBe(413);
    expect(echo.model.seen.length).toBe(before);
  });

  test('methods other than GET, POST and HEAD are not proxy operations', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const res = await send(echo.proxy.base, '/inference/llama/generate', { method, body: '{}' });
      expect({ method, status: res.status }).toEqual({ method, status: 404 });
    }
  });

  test('the OpenAPI document carries the seed operations, ids and paths', async () => {
    const res = await send(echo.proxy.base, '/openapi.json');
    expect(res.status).toBe(200);
    const doc = JSON.parse(res.text);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    const ops: Record<string, string> = {};
    for (const [path, item] of Object.entries<Record<string, { operationId: string }>>(doc.paths)) {
      for (const [method, op] of Object.entries(item))
        ops[`${method.toUpperCase()} ${path}`] = op.operationId;
    }
    expect(ops).toEqual({
      'GET /': 'root__get',
      'GET /healthz': 'kubernetes_health_check_healthz_get',
      'GET /readyz': 'kubernetes_readiness_check_readyz_get',
      'GET /inference/{endpoint_name}': 'proxy_inference_root_inference__endpoint_name__get',
      'POST /inference/{endpoint_name}': 'proxy_inference_root_inference__endpoint_name__post',
      'HEAD /inference/{endpoint_name}': 'proxy_inference_root_inference__endpoint_name__head',
      'GET /inference/{endpoint_name}/{upstream_path}':
        'proxy_inference_path_inference__endpoint_name___upstream_path__get',
      'POST /inference/{endpoint_name}/{upstream_path}':
        'proxy_inference_path_inference__endpoint_name___upstream_path__post',
      'HEAD /inference/{endpoint_name}/{upstream_path}':
        'proxy_inference_path_inference__endpoint_name___upstream_path__head',
    });
    const op = doc.paths['/inference/{endpoint_name}/{upstream_path}'].post;
    expect(op.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort()).toEqual([
      'path:endpoint_name',
      'path:upstream_path',
    ]);
    expect(op.security).toEqual([{ gcoHmac: [] }]);
    expect(Object.keys(op.responses)).toEqual(
      expect.arrayContaining(['200', '403', '404', '422', '502', '503', '504']),
    );
    expect(doc.paths['/healthz'].get.security).toBeUndefined();
  });

  test('/metrics counts forwarded requests by target and outcome', async () => {
    await send(echo.proxy.base, '/inference/llama/generate');
    const res = await send(echo.proxy.base, '/metrics', { signed: false });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/inference_upstream_requests_total\{[^}]*target="primary"[^}]*outcome="2xx"/);
    expect(res.text).toContain('inference_upstream_headers_seconds_bucket');
  });

  test('both entries count requests under the framework route labels and answer with the request id', async () => {
    // Plain path: the hot path in front of Fastify; a percent escape: Fastify's route.
    const plain = await send(echo.proxy.base, '/inference/llama/v1/models/x', {
      headers: { 'x-request-id': 'trace-1' },
    });
    const escaped = await send(echo.proxy.base, '/inference/llama/v1/models/a%20b', {
      headers: { 'x-request-id': 'trace-2' },
    });
    const missing = await send(echo.proxy.base, '/inference/nothing/v1/models/x', {
      headers: { 'x-request-id': 'trace-3' },
    });
    expect([plain.status, escaped.status, missing.status]).toEqual([200, 200, 404]);
    expect([plain, escaped, missing].map((r) => r.headers['x-request-id'])).toEqual([
      'trace-1',
      'trace-2',
      'trace-3',
    ]);
    expect(JSON.parse(missing.text)).toEqual({ detail: "Inference endpoint 'nothing' not found" });
    const metrics = (await send(echo.proxy.base, '/metrics', { signed: false })).text;
    const series = (status: string) =>
      new RegExp(
        `http_requests_total\\{[^}]*method="GET"[^}]*route="/inference/:endpoint_name/\\*"[^}]*status_code="${status}"`,
      );
    expect(metrics).toMatch(series('200'));
    expect(metrics).toMatch(series('404'));
  });

  test('once close() has begun, a request on a kept connection gets the framework 503 and is never forwarded', async () => {
    let release = (): void => undefined;
    const slow = await startModelServer((req, res) => {
      if (req.url !== '/generate') return echoHandler(req, res);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first ');
      release = () => res.end('last');
    });
    const closing = await startProxy({
      endpoints: new StaticEndpointSource([endpointRecord('llama', slow.port)]),
    });
    const url = new URL(closing.base);
    const socket = connect(Number(url.port), url.hostname);
    try {
      const head = (target: string): string =>
        `GET ${target} HTTP/1.1\r\nHost: proxy\r\n` +
        Object.entries(signEnvelope({ key: KEY, method: 'GET', target }))
          .map(([name, value]) => `${name}: ${value}\r\n`)
          .join('') +
        '\r\n';
      let received = '';
      socket.on('data', (data: Buffer) => (received += data.toString('latin1')));
      socket.write(head('/inference/llama/generate'));
      await waitFor(() => received.includes('first '));
      // The stream keeps the connection busy, so close() waits for it; a second request follows on it.
      const closed = closing.proxy.app.close();
      socket.write(head('/inference/llama/v1/completions'));
      release();
      await closed;
      await waitFor(() => received.includes('HTTP/1.1 503'));
      expect(received).toMatch(/^HTTP\/1\.1 200 /);
      expect(slow.seen.map((r) => r.url)).toEqual(['/generate']);
    } finally {
      socket.destroy();
      await closing.close().catch(() => undefined);
      await slow.close();
    }
  });
});
