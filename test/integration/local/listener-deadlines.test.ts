/**
 * Every listener's deadlines (contracts/http/listener-deadlines.ts, docs/timeouts.md), with short values so
 * the tests end quickly: a head or body trickled one byte at a time is cut off with a 408 at the service,
 * the local ALB router and the API Gateway emulator; a response that streams for longer than the request
 * deadline is not cut (Node's requestTimeout covers receiving the request only). And the router streams
 * bodies: a 100 MiB upload is refused by the service without the router's memory growing with it.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { Readable, type Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { silentServiceLogger } from '../../../cluster/shared/logger.js';
import { createService, type Service } from '../../../cluster/shared/service.js';
import type { ApiDefinition } from '../../../contracts/api-routes.js';
import { startApiGatewayEmulator } from '../../../local/api-gateway-emulator/index.js';
import { startAlbRouter, type AlbRouter } from '../../../local/alb-router.js';
import { createLocalCa } from '../../../local/tls.js';
import { TEST_ACCOUNT_CREDENTIALS } from './support.js';

const BACKEND = 'backend.gco.gco.internal';
const ca = createLocalCa('deadline test CA');
/** Short deadlines for the tests; production values are in contracts/http/listener-deadlines.ts. */
const SERVICE_DEADLINES = { headersMs: 1_000, requestMs: 1_500 };
const TRICKLE_INTERVAL_MS = 250;
const STREAM_EVENTS = 8;
const STREAM_GAP_MS = 400;

interface TrickleOutcome {
  /** Everything the server sent before the connection ended. */
  received: string;
  /** How it ended: closed by the server (FIN) or reset. */
  ended: 'closed' | 'reset';
  /** Bytes of the trickle the client managed to send. */
  sent: number;
}

/**
 * Sends `head`, then `trickle` one byte every TRICKLE_INTERVAL_MS, until the server ends the connection.
 * The trickle is longer than any deadline here allows, so only the server can end the exchange.
 */
function trickle(socket: Duplex, head: string, trickleText: string): Promise<TrickleOutcome> {
  return new Promise((resolve) => {
    let received = '';
    let sent = 0;
    let ended: TrickleOutcome['ended'] = 'closed';
    socket.write(head);
    const timer = setInterval(() => {
      if (sent >= trickleText.length || socket.destroyed || !socket.writable) return;
      socket.write(trickleText[sent] ?? 'x');
      sent += 1;
    }, TRICKLE_INTERVAL_MS);
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => (ended = 'reset'));
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ received, ended, sent });
    });
  });
}

const plainSocket = (port: number): Duplex => netConnect(port, '127.0.0.1');
const tlsSocket = (port: number): Duplex =>
  tlsConnect({ host: '127.0.0.1', port, ca: ca.cert, servername: BACKEND });

/** 1000 bytes announced, far more than the deadlines let through at one byte per 250 ms. */
const bodyHead = (path: string) =>
  `POST ${path} HTTP/1.1\r\nHost: ${BACKEND}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
const SLOW_BODY = 'x'.repeat(1000);
const SLOW_HEAD = 'X-Slow: ' + 'y'.repeat(200);

function statusLine(received: string): string {
  return received.split('\r\n')[0] ?? '';
}

/** A service with the framework's listener and short deadlines: one POST route, one streaming GET. */
async function startService(deadlines = SERVICE_DEADLINES): Promise<{ service: Service; url: string }> {
  const service = await createService({
    name: 'deadline-probe',
    version: '1',
    description: 'listener deadlines',
    envelope: false,
    logger: silentServiceLogger(),
    deadlines,
    routes: (app) => {
      app.post('/api/v1/manifests', { config: { rawBody: true } }, async () => ({ ok: true }));
      // Events spaced so the answer lasts well past the request deadline.
      app.get('/inference/stream', async (_request, reply) => {
        async function* events(): AsyncGenerator<string> {
          for (let i = 0; i < STREAM_EVENTS; i++) {
            yield `data: ${i}\n\n`;
            await new Promise((resolve) => setTimeout(resolve, STREAM_GAP_MS));
          }
        }
        return reply.type('text/event-stream').send(Readable.from(events()));
      });
    },
  });
  const url = await service.app.listen({ host: '127.0.0.1', port: 0 });
  return { service, url };
}

/** GET over HTTPS through the router; the whole body and when each chunk arrived. */
function streamThrough(router: AlbRouter, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      { host: '127.0.0.1', port: router.port, path, ca: ca.cert, servername: BACKEND, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const ALL_EVENTS = Array.from({ length: STREAM_EVENTS }, (_, i) => `data: ${i}\n\n`).join('');

describe('cluster service listener', () => {
  let service: Service;
  let port: number;
  beforeAll(async () => {
    const started = await startService();
    service = started.service;
    port = Number(new URL(started.url).port);
  });
  afterAll(() => service.app.close());

  test('a body trickled one byte at a time is cut off at the request deadline with a 408', async () => {
    const outcome = await trickle(plainSocket(port), bodyHead('/api/v1/manifests'), SLOW_BODY);
    expect(statusLine(outcome.received)).toBe('HTTP/1.1 408 Request Timeout');
    expect(outcome.received).toMatch(/\r\n\r\n\{"detail":"Request timeout"\}$/);
    // Cut off long before the announced body could arrive (1000 bytes at 4 per second).
    expect(outcome.sent).toBeLessThan(SLOW_BODY.length);
  }, 20_000);

  test('a head trickled one byte at a time is cut off at the head deadline with a 408', async () => {
    const outcome = await trickle(
      plainSocket(port),
      `GET /api/v1/manifests HTTP/1.1\r\nHost: ${BACKEND}\r\n`,
      SLOW_HEAD,
    );
    expect(statusLine(outcome.received)).toBe('HTTP/1.1 408 Request Timeout');
    expect(outcome.sent).toBeLessThan(SLOW_HEAD.length);
  }, 20_000);

  test('a response streaming for longer than the request deadline is not cut', async () => {
    const started = Date.now();
    const answer = await fetch(`http://127.0.0.1:${port}/inference/stream`);
    expect(await answer.text()).toBe(ALL_EVENTS);
    // The stream did outlast the request deadline (a check of the test itself, not of speed).
    expect(Date.now() - started).toBeGreaterThan(SERVICE_DEADLINES.requestMs);
  }, 20_000);
});

describe('local ALB router listener', () => {
  let target: { service: Service; url: string };
  let router: AlbRouter;
  let bare: Server;
  let bareRouter: AlbRouter;
  const ROUTER_REQUEST_MS = 3_000;

  beforeAll(async () => {
    target = await startService();
    router = await startAlbRouter({
      certificate: ca.issue([BACKEND]),
      targets: { 'manifest-processor': target.url, 'inference-proxy': target.url },
      deadlines: { headersMs: 1_000, requestMs: ROUTER_REQUEST_MS },
    });
    // A target with no request deadline of its own: only the router's backstop ends a trickle.
    bare = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('{}'));
    });
    bare.requestTimeout = 0;
    bare.listen(0, '127.0.0.1');
    await once(bare, 'listening');
    bareRouter = await startAlbRouter({
      certificate: ca.issue([BACKEND]),
      targets: { 'manifest-processor': `http://127.0.0.1:${(bare.address() as AddressInfo).port}` },
      deadlines: { headersMs: 1_000, requestMs: 1_500 },
    });
  });
  afterAll(async () => {
    await Promise.all([router.close(), bareRouter.close(), target.service.app.close()]);
    bare.closeAllConnections();
    bare.close();
  });

  test("a trickled body streams to the service, whose 408 the router passes on; the router's deadline closes the connection", async () => {
    const outcome = await trickle(tlsSocket(router.port), bodyHead('/api/v1/manifests'), SLOW_BODY);
    expect(statusLine(outcome.received)).toBe('HTTP/1.1 408 Request Timeout');
    expect(outcome.received).toContain('{"detail":"Request timeout"}');
    // One answer only: the router's own deadline closes the connection without a second one.
    expect(outcome.received.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(outcome.sent).toBeLessThan(SLOW_BODY.length);
  }, 20_000);

  test("with a target that has no deadline, the router's own deadline answers 408 as an ALB does", async () => {
    const outcome = await trickle(tlsSocket(bareRouter.port), bodyHead('/api/v1/manifests'), SLOW_BODY);
    expect(statusLine(outcome.received)).toBe('HTTP/1.1 408 Request Time-out');
    expect(outcome.received).toContain('Server: awselb/2.0');
    expect(outcome.received).toContain('<center><h1>408 Request Time-out</h1></center>');
  }, 20_000);

  test('a trickled head is cut off at the head deadline', async () => {
    const outcome = await trickle(
      tlsSocket(router.port),
      `GET /api/v1/manifests HTTP/1.1\r\nHost: ${BACKEND}\r\n`,
      SLOW_HEAD,
    );
    expect(statusLine(outcome.received)).toBe('HTTP/1.1 408 Request Time-out');
    expect(outcome.sent).toBeLessThan(SLOW_HEAD.length);
  }, 20_000);

  test("a stream longer than the router's and the service's request deadlines arrives whole", async () => {
    const answer = await streamThrough(router, '/inference/stream');
    expect(answer).toEqual({ status: 200, body: ALL_EVENTS });
  }, 20_000);
});

describe('local ALB router: bodies stream, never buffered', () => {
  const MIB = 1024 * 1024;
  const UPLOAD_BYTES = 100 * MIB;
  let target: { service: Service; url: string };
  let router: AlbRouter;

  beforeAll(async () => {
    // The service's own deadlines (30 s): the upload must end by the size limit, not by a timeout.
    target = await startService({ headersMs: 20_000, requestMs: 30_000 });
    router = await startAlbRouter({
      certificate: ca.issue([BACKEND]),
      targets: { 'manifest-processor': target.url },
    });
  });
  afterAll(async () => {
    await router.close();
    await target.service.app.close();
  });

  let uploadedBytes = 0;
  /** V8's collector, reached without --expose-gc on the command line (the flag is set at run time). */
  setFlagsFromString('--expose-gc');
  const collectGarbage = runInNewContext('gc') as () => void;
  let sampleMemory: () => void = () => undefined;
  /**
   * 100 MiB from a generator that re-yields one 64 KiB chunk (nothing of the upload is allocated), framed
   * by Content-Length or as chunks.
   */
  function* upload(chunked: boolean): Generator<Buffer> {
    const chunk = Buffer.alloc(64 * 1024, 0x78);
    const size = Buffer.from(`${chunk.length.toString(16)}\r\n`);
    const crlf = Buffer.from('\r\n');
    for (uploadedBytes = 0; uploadedBytes < UPLOAD_BYTES; uploadedBytes += chunk.length) {
      // Every 8 MiB sent (12 samples), what the process holds.
      if (uploadedBytes % (8 * MIB) === 0) sampleMemory();
      if (chunked) yield size;
      yield chunk;
      if (chunked) yield crlf;
    }
    if (chunked) yield Buffer.from('0\r\n\r\n');
  }

  /**
   * Posts the upload through the router on a raw TLS connection (a client that keeps sending after the
   * answer, as curl does); resolves once the answer is in and the whole upload has been written, with
   * the answer and the peak memory growth meanwhile.
   */
  async function postUpload(chunked: boolean): Promise<{
    received: string;
    rssGrowth: number;
    arrayBufferGrowth: number;
  }> {
    // Memory held, not garbage awaiting collection: each sample follows a full collection.
    collectGarbage();
    const before = process.memoryUsage();
    let peak = { rss: before.rss, arrayBuffers: before.arrayBuffers };
    sampleMemory = () => {
      collectGarbage();
      const now = process.memoryUsage();
      peak = {
        rss: Math.max(peak.rss, now.rss),
        arrayBuffers: Math.max(peak.arrayBuffers, now.arrayBuffers),
      };
    };
    const socket = tlsSocket(router.port);
    try {
      const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${UPLOAD_BYTES}`;
      socket.write(
        `POST /api/v1/manifests HTTP/1.1\r\nHost: ${BACKEND}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`,
      );
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      let failure: Error | undefined;
      socket.on('error', (error) => (failure = error));
      const answered = new Promise<void>((resolve) => {
        const check = () => {
          if (received.includes('\r\n\r\n{')) resolve();
        };
        socket.on('data', check);
      });
      const written = new Promise<void>((resolve, reject) => {
        Readable.from(upload(chunked)).on('end', resolve).on('error', reject).pipe(socket, { end: false });
      });
      await Promise.race([
        Promise.all([answered, written]),
        once(socket, 'close').then(() => {
          throw new Error(
            `the router closed the connection (${failure?.message ?? 'no error'}) after ${uploadedBytes} bytes: ${received}`,
          );
        }),
      ]);
      return {
        received,
        rssGrowth: peak.rss - before.rss,
        arrayBufferGrowth: peak.arrayBuffers - before.arrayBuffers,
      };
    } finally {
      sampleMemory = () => undefined;
      socket.destroy();
    }
  }

  test.each([
    ['Content-Length', false],
    ['chunked', true],
  ])(
    'a 100 MiB upload (%s) is refused with 413 and the memory does not grow with it',
    async (_name, chunked) => {
      const outcome = await postUpload(chunked);
      expect(statusLine(outcome.received)).toBe('HTTP/1.1 413 Payload Too Large');
      expect(outcome.received).toMatch(/\r\n\r\n\{"detail":"Request body too large"\}$/);
      // All of it went through the router (which dropped what followed the answer)…
      expect(uploadedBytes).toBe(UPLOAD_BYTES);
      // …holding a few chunks at a time, never the upload (the service runs in this process too).
      expect(outcome.arrayBufferGrowth).toBeLessThan(32 * MIB);
      expect(outcome.rssGrowth).toBeLessThan(64 * MIB);
    },
    60_000,
  );
});

describe('API Gateway emulator listener', () => {
  const definition: ApiDefinition = {
    id: 'regional',
    title: 'deadline test API',
    version: '1.0.0',
    endpointType: 'REGIONAL',
    stage: 'prod',
    throttling: { rateLimit: 10_000, burstLimit: 10_000 },
    routes: [
      {
        path: '/open',
        method: 'POST',
        operationId: 'open',
        auth: 'none',
        integration: { type: 'mock', statusCode: 200 },
      },
    ],
  };

  test('a body trickled one byte at a time is cut off at the request deadline with a 408', async () => {
    const api = await startApiGatewayEmulator({
      api: definition,
      region: 'us-east-1',
      accountId: '000000000000',
      credentials: TEST_ACCOUNT_CREDENTIALS,
      lambdas: {},
      deadlines: SERVICE_DEADLINES,
    });
    try {
      const outcome = await trickle(plainSocket(api.port), bodyHead('/prod/open'), SLOW_BODY);
      expect(statusLine(outcome.received)).toBe('HTTP/1.1 408 Request Timeout');
      expect(outcome.received).toMatch(/\r\n\r\n\{"message":"Request Timeout"\}$/);
      expect(outcome.sent).toBeLessThan(SLOW_BODY.length);
    } finally {
      await api.close();
    }
  }, 20_000);
});
