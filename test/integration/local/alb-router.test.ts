/**
 * The local ALB router: TLS with the internal CA's certificate for the backend host name, routing by the
 * seed's prefix table (contracts/routing.ts, whole segments, longest prefix), requests passed on unchanged,
 * responses streamed, and the ALB's 502/503 when a target is down or missing.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startAlbRouter, type AlbRouter } from '../../../local/alb-router.js';
import { createLocalCa } from '../../../local/tls.js';
import { startPluginService } from '../../support/plugin-service.js';

const BACKEND = 'backend.gco.gco.internal';
const ca = createLocalCa('alb test CA');

interface Seen {
  target: string;
  method: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

interface Target {
  server: Server;
  url: string;
  seen: Seen[];
}

let release: () => void = () => undefined;

async function target(name: string): Promise<Target> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        target: req.url ?? '',
        method: req.method ?? '',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      if (req.url === '/inference/stream') {
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          connection: 'keep-alive, x-hop',
          'x-hop': 'no',
        });
        res.write('data: one\n\n');
        // The rest only after the client has the first event: buffering anywhere would deadlock.
        new Promise<void>((resolve) => (release = resolve)).then(
          () => res.end('data: two\n\n'),
          () => undefined,
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] });
      res.end(JSON.stringify({ service: name }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

let manifest: Target;
let health: Target;
let inference: Target;
let alb: AlbRouter;
let partial: AlbRouter;
let down: AlbRouter;

beforeAll(async () => {
  [manifest, health, inference] = await Promise.all([
    target('manifest-processor'),
    target('health-monitor'),
    target('inference-proxy'),
  ]);
  const certificate = ca.issue([BACKEND, '127.0.0.1']);
  alb = await startAlbRouter({
    certificate,
    targets: {
      'manifest-processor': manifest.url,
      'health-monitor': health.url,
      'inference-proxy': inference.url,
    },
  });
  partial = await startAlbRouter({ certificate, targets: { 'manifest-processor': manifest.url } });
  const closed = createServer();
  closed.listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise((resolve) => closed.close(resolve));
  down = await startAlbRouter({ certificate, targets: { 'manifest-processor': closedUrl } });
});
afterAll(async () => {
  release();
  await Promise.all([alb.close(), partial.close(), down.close()]);
  for (const t of [manifest, health, inference]) {
    t.server.closeAllConnections();
    await new Promise((resolve) => t.server.close(resolve));
  }
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An HTTPS request that trusts only the test CA and checks the backend name, as the edge proxies do. */
function call(
  router: AlbRouter,
  target: string,
  opts: {
    method?: string;
    headers?: string[];
    body?: string;
    servername?: string;
    onChunk?: (chunk: string) => void;
  } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port: router.port,
        path: target,
        method: opts.method ?? 'GET',
        ca: ca.cert,
        servername: opts.servername ?? BACKEND,
        headers: ['Host', BACKEND, ...(opts.headers ?? [])],
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
          opts.onChunk?.(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

describe('routing (contracts/routing.ts)', () => {
  test.each([
    ['/api/v1/health', 'health-monitor'],
    ['/api/v1/health/deep?x=1', 'health-monitor'],
    ['/api/v1/healthz', 'manifest-processor'],
    ['/api/v1/metrics', 'health-monitor'],
    ['/healthz', 'health-monitor'],
    ['/inference/llama/v1/completions', 'inference-proxy'],
    ['/inferencex', 'manifest-processor'],
    ['/api/v1/manifests', 'manifest-processor'],
    ['/api/v1/jobs', 'manifest-processor'],
  ])('%s → %s', async (path, service) => {
    const answer = await call(alb, path);
    expect(JSON.parse(answer.body)).toEqual({ service });
  });
});

describe('forwarding', () => {
  test('method, request target, headers and body unchanged; X-Forwarded-* added; Set-Cookie kept', async () => {
    const target = '/api/v1/jobs/svc-jobs/a%2Fb?x=1&x=2&y=%20z';
    const answer = await call(alb, target, {
      method: 'PATCH',
      headers: [
        'x-svc-signature',
        'abc',
        'x-multi',
        'one',
        'x-multi',
        'two',
        'content-type',
        'application/json',
        'x-forwarded-for',
        '203.0.113.9',
      ],
      body: '{"priority":5}',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    const seen = manifest.seen[manifest.seen.length - 1]!;
    expect(seen).toMatchObject({ target, method: 'PATCH', body: '{"priority":5}' });
    expect(seen.headers).toMatchObject({
      host: BACKEND,
      'x-svc-signature': 'abc',
      'x-multi': 'one, two',
      'x-forwarded-for': '203.0.113.9, 127.0.0.1',
      'x-forwarded-proto': 'https',
      'x-forwarded-port': String(alb.port),
    });
  });

  test('a streamed response reaches the client chunk by chunk, minus hop-by-hop headers', async () => {
    const chunks: string[] = [];
    const answer = await call(alb, '/inference/stream', {
      onChunk: (chunk) => {
        chunks.push(chunk);
        if (chunks.length === 1) release();
      },
    });
    expect(chunks[0]).toBe('data: one\n\n');
    expect(answer.body).toBe('data: one\n\ndata: two\n\n');
    expect(answer.headers['content-type']).toBe('text/event-stream');
    expect(answer.headers['x-hop']).toBeUndefined();
  });

  test('the listener certificate is for the backend host name, from the internal CA', async () => {
    await expect(call(alb, '/healthz', { servername: 'elsewhere.example' })).rejects.toThrow(
      /altnames|hostname/i,
    );
  });
});

describe('a target that answers before reading the body', () => {
  test('a 413 decided while the body streams passes through, however the upload races the close', async () => {
    // The service framework answers 413 from Content-Length (or once a chunked body passes 1 MiB) while
    // the router is still streaming the upload, then closes lingering (FIN, rest read and dropped), so the
    // answer reaches the router before any reset. (Fastify alone closes at once: an ALB would answer 502.)
    const { service, base } = await startPluginService({
      description: 'early 413',
      routes: (app) => {
        app.post('/api/v1/manifests', async () => ({ ok: true }));
      },
    });
    const router = await startAlbRouter({
      certificate: ca.issue([BACKEND]),
      targets: { 'manifest-processor': base },
    });
    try {
      for (const size of [1_100_000, 5_000_000]) {
        for (const framing of [
          ['content-length', String(size)],
          ['transfer-encoding', 'chunked'],
        ]) {
          const answer = await call(router, '/api/v1/manifests', {
            method: 'POST',
            headers: ['content-type', 'application/json', ...framing],
            body: 'x'.repeat(size),
          });
          expect([answer.status, answer.headers['content-type'], answer.body]).toEqual([
            413,
            'application/json; charset=utf-8',
            '{"detail":"Request body too large"}',
          ]);
        }
      }
    } finally {
      await router.close();
      await service.app.close();
    }
  });
});

describe('unavailable targets', () => {
  test('no target for the service: 503 from the load balancer', async () => {
    const answer = await call(partial, '/api/v1/health');
    expect(answer.status).toBe(503);
    expect(answer.headers.server).toBe('awselb/2.0');
    expect(answer.body).toContain('503 Service Temporarily Unavailable');
  });

  test('a target that refuses connections: 502', async () => {
    const answer = await call(down, '/api/v1/jobs');
    expect(answer.status).toBe(502);
    expect(answer.body).toContain('502 Bad Gateway');
  });
});
