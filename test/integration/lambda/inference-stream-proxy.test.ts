import { PassThrough, type Readable } from 'node:stream';
import { ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { SSMClient } from '@aws-sdk/client-ssm';
import {
  createHandler,
  createStreamingHandlerFromEnv,
  MAX_REQUEST_BODY_BYTES,
  type InferenceStreamHandler,
} from '../../../lambda/inference-stream-proxy/index.js';
import {
  staticTargetResolver,
  targetFactory,
  type BackendTarget,
} from '../../../lambda/shared/backend-target.js';
import { staticKeySource } from '../../../contracts/envelope/signing-keys.js';
import {
  HTTP_INTEGRATION_CONTENT_TYPE,
  isStreamingHandler,
  streamifyResponse,
  type HttpIntegrationPrelude,
} from '../../../lambda/shared/streaming.js';
import {
  invokeStreamingHandler,
  readHttpIntegrationResponse,
} from '../../../local/api-gateway-emulator/response-stream.js';
import { createLocalCa } from '../../../local/tls.js';
import { lambdaContext } from '../../support/lambda-context.js';
import { memoryLogger, restEvent, type MemoryLogger, type RawRequest } from '../../unit/lambda/events.js';
import { FakeSecret, SECRET_ARN } from '../../unit/lambda/fake-secrets.js';
import {
  BACKEND_NAME,
  closedPort,
  echoRoute,
  gate,
  KEY,
  OPEN_QUERY,
  startBackend,
  type Backend,
} from './harness.js';

const ca = createLocalCa();
let backend: Backend;
let tokens = gate();
let headersHeld = gate();
let finished = false;
let clientGone = gate();
const targets: BackendTarget[] = [];

beforeAll(async () => {
  backend = await startBackend({
    ca,
    routes: (app) => {
      echoRoute(app, '/inference/echo/*');
      // A model server streaming tokens: the first one at once, the rest only when the test says so.
      app.post('/inference/llama/v1/chat/completions', { schema: OPEN_QUERY }, async (_request, reply) => {
        const stream = new PassThrough();
        reply.raw.once('close', () => {
          if (!finished) clientGone.open();
        });
        void (async () => {
          stream.write('data: {"token":"Hel"}\n\n');
          await tokens.wait;
          stream.write('data: {"token":"lo"}\n\n');
          finished = true;
          stream.end('data: [DONE]\n\n');
        })();
        return reply
          .header('content-type', 'text/event-stream')
          .header('cache-control', 'no-cache')
          .header('set-cookie', ['s=1', 't=2'])
          .send(stream);
      });
      app.get('/inference/missing/health', async (_request, reply) =>
        reply.code(404).send({ detail: 'Endpoint missing not found' }),
      );
      app.get('/inference/held/health', async () => {
        await headersHeld.wait;
        return { ok: true };
      });
      app.get('/inference/reset/health', async (request) => {
        request.raw.socket.destroy();
        return new Promise(() => undefined);
      });
      app.get('/inference/cut/stream', async (request, reply) => {
        const stream = new PassThrough();
        stream.write('partial ');
        setImmediate(() => request.raw.socket.destroy());
        return reply.type('text/plain').send(stream);
      });
    },
  });
});

afterAll(async () => {
  tokens.open();
  headersHeld.open();
  for (const t of targets) t.agent.destroy();
  await backend.close();
});

function proxy(opts: { port?: number; headerTimeoutMs?: number } = {}): {
  handler: InferenceStreamHandler;
  logger: MemoryLogger;
} {
  const logger = memoryLogger();
  const t = targetFactory({ caPem: ca.cert, servername: BACKEND_NAME, port: opts.port ?? backend.port })(
    '127.0.0.1',
  );
  targets.push(t);
  const handler = createHandler({
    keys: staticKeySource({ current: KEY }),
    targets: staticTargetResolver(t),
    hostHeader: BACKEND_NAME,
    logger,
    ...(opts.headerTimeoutMs !== undefined ? { headerTimeoutMs: opts.headerTimeoutMs } : {}),
  });
  return { handler, logger };
}

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** Invokes like API Gateway (streaming): returns the prelude and the body as it is streamed. */
async function invoke(handler: InferenceStreamHandler, raw: RawRequest) {
  const inv = invokeStreamingHandler(handler, restEvent(raw), lambdaContext());
  expect(await inv.contentType).toBe(HTTP_INTEGRATION_CONTENT_TYPE);
  const { prelude, body } = await readHttpIntegrationResponse(inv.output);
  return { prelude, body, done: inv.done };
}

async function complete(
  handler: InferenceStreamHandler,
  raw: RawRequest,
): Promise<{ prelude: HttpIntegrationPrelude; text: string }> {
  const { prelude, body, done } = await invoke(handler, raw);
  const text = (await bytesOf(body)).toString('utf8');
  await done;
  return { prelude, text };
}

test('the exported handlers are marked as streaming handlers', async () => {
  const mod = await import('../../../lambda/inference-stream-proxy/index.js');
  expect(isStreamingHandler(mod.handler)).toBe(true);
  expect(isStreamingHandler(proxy().handler)).toBe(true);
});

test('the first chunk reaches the client before the backend has finished', async () => {
  tokens = gate();
  finished = false;
  const { prelude, body, done } = await invoke(proxy().handler, {
    method: 'POST',
    url: '/inference/llama/v1/chat/completions',
    body: '{"messages":[{"role":"user","content":"hi"}],"stream":true}',
    headers: [['Content-Type', 'application/json']],
  });
  // Status and headers arrived (the envelope was accepted) …
  expect(prelude.statusCode).toBe(200);
  expect(prelude.headers?.['content-type']).toBe('text/event-stream');
  expect(prelude.headers?.['cache-control']).toBe('no-cache');
  expect(prelude.multiValueHeaders?.['set-cookie']).toEqual(['s=1', 't=2']);
  expect(prelude.headers?.['content-length']).toBeUndefined();
  expect(prelude.headers?.['transfer-encoding']).toBeUndefined();
  // … and so did the first token, while the backend is still held open.
  const reader = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first = await reader.next();
  expect(Buffer.from(first.value).toString()).toContain('"Hel"');
  expect(finished).toBe(false);
  tokens.open();
  let rest = '';
  for (let next = await reader.next(); !next.done; next = await reader.next())
    rest += Buffer.from(next.value).toString();
  expect(rest).toContain('"lo"');
  expect(rest).toContain('[DONE]');
  await done;
});

test('a client that goes away stops the backend stream', async () => {
  tokens = gate();
  finished = false;
  clientGone = gate();
  const { handler, logger } = proxy();
  const { body, done } = await invoke(handler, {
    method: 'POST',
    url: '/inference/llama/v1/chat/completions',
    body: '{}',
  });
  const reader = body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  expect(Buffer.from((await reader.next()).value).toString()).toContain('"Hel"');
  body.destroy();
  await done.catch(() => undefined);
  await clientGone.wait; // the backend saw its client (the proxy) go away…
  expect(finished).toBe(false); // …before it finished
  expect(logger.lines.map((l) => l.message)).toContain('stream aborted');
  tokens.open();
});

test('a POST body is signed and accepted; method, target and query pass through', async () => {
  const payload = JSON.stringify({ prompt: 'ünïcode 𝄞', max_tokens: 5 });
  const { prelude, text } = await complete(proxy().handler, {
    method: 'POST',
    url: '/inference/echo/v1/completions?tag=a&tag=b%26c',
    body: payload,
  });
  expect(prelude.statusCode).toBe(200);
  const echoed = JSON.parse(text) as {
    url: string;
    body_b64: string;
    servername: string;
    query: Record<string, unknown>;
  };
  expect(echoed.url).toBe('/inference/echo/v1/completions?tag=a&tag=b%26c');
  expect(echoed.query['tag']).toEqual(['a', 'b&c']);
  expect(echoed.servername).toBe(BACKEND_NAME);
  expect(Buffer.from(echoed.body_b64, 'base64').toString('utf8')).toBe(payload);
});

test('HEAD is forwarded and answered without a body', async () => {
  const { prelude, text } = await complete(proxy().handler, {
    method: 'HEAD',
    url: '/inference/echo/health',
  });
  expect(prelude.statusCode).toBe(200);
  expect(text).toBe('');
});

test('backend errors pass through with their status, headers and body', async () => {
  const { prelude, text } = await complete(proxy().handler, { url: '/inference/missing/health' });
  expect(prelude.statusCode).toBe(404);
  expect(prelude.headers?.['content-type']).toMatch(/^application\/json/);
  expect(JSON.parse(text)).toEqual({ detail: 'Endpoint missing not found' });
});

describe('refused before forwarding', () => {
  test.each(['PUT', 'DELETE', 'PATCH', 'OPTIONS'])('%s → 405 with Allow', async (method) => {
    const before = backend.seen.length;
    const { prelude, text } = await complete(proxy().handler, {
      method,
      url: '/inference/echo/x',
      body: '{}',
    });
    expect(prelude.statusCode).toBe(405);
    expect(prelude.headers?.['allow']).toBe('GET, HEAD, POST');
    expect(prelude.headers?.['content-type']).toBe('application/json');
    expect(JSON.parse(text)).toEqual({ message: 'Method Not Allowed' });
    expect(backend.seen.length).toBe(before);
  });

  test('a body over 1 MiB → 413; exactly 1 MiB is forwarded', async () => {
    const before = backend.seen.length;
    const { handler } = proxy();
    const over = await complete(handler, {
      method: 'POST',
      url: '/inference/echo/x',
      body: 'a'.repeat(MAX_REQUEST_BODY_BYTES + 1),
    });
    expect(over.prelude.statusCode).toBe(413);
    expect(JSON.parse(over.text)).toEqual({ message: 'Request body too large' });
    expect(backend.seen.length).toBe(before);
    // Multi-byte characters count as bytes, not characters.
    const multi = await complete(handler, {
      method: 'POST',
      url: '/inference/echo/x',
      body: 'ü'.repeat(MAX_REQUEST_BODY_BYTES / 2 + 1),
    });
    expect(multi.prelude.statusCode).toBe(413);
    const exact = await complete(handler, {
      method: 'POST',
      url: '/inference/echo/x',
      body: 'a'.repeat(MAX_REQUEST_BODY_BYTES),
    });
    expect(exact.prelude.statusCode).toBe(200);
  });

  test('x-*-target-region (any case), base64 bodies and GET/HEAD bodies → 400', async () => {
    const before = backend.seen.length;
    const { handler } = proxy();
    for (const name of ['x-SVC-target-Region', 'X-GCO-Target-Region']) {
      const region = await complete(handler, { url: '/inference/echo/x', headers: [[name, 'us-west-2']] });
      expect(region.prelude.statusCode).toBe(400);
      expect(JSON.parse(region.text)).toEqual({
        message: `The ${name.toLowerCase()} header is not honoured: a request is served by the region of the API it is sent to. To target a region, call that region's regional API, or /api/v1/global/* for every region.`,
      });
    }
    for (const method of ['GET', 'HEAD']) {
      const withBody = await complete(handler, { method, url: '/inference/echo/x', body: '{"prompt":"hi"}' });
      expect(withBody.prelude.statusCode).toBe(400);
      expect(JSON.parse(withBody.text)).toEqual({
        message: `A ${method} request may not carry a body: send its parameters in the query string, or use the operation's POST/PUT/PATCH/DELETE method`,
      });
    }
    const b64 = await complete(handler, {
      method: 'POST',
      url: '/inference/echo/x',
      body: 'e30=',
      isBase64Encoded: true,
    });
    expect(b64.prelude.statusCode).toBe(400);
    expect(backend.seen.length).toBe(before);
  });
});

describe('backend failures', () => {
  test('nothing listening → 502', async () => {
    const { prelude, text } = await complete(proxy({ port: await closedPort() }).handler, {
      url: '/inference/x/health',
    });
    expect([prelude.statusCode, JSON.parse(text)]).toEqual([502, { message: 'Bad Gateway' }]);
  });

  test('the connection reset before any answer → 502', async () => {
    const { prelude } = await complete(proxy().handler, { url: '/inference/reset/health' });
    expect(prelude.statusCode).toBe(502);
  });

  test('no response headers within the header timeout → 504 while the backend still works', async () => {
    headersHeld = gate();
    let released = false;
    void headersHeld.wait.then(() => (released = true));
    const { handler, logger } = proxy({ headerTimeoutMs: 300 });
    const { prelude, text } = await complete(handler, { url: '/inference/held/health' });
    expect([prelude.statusCode, JSON.parse(text)]).toEqual([504, { message: 'Gateway Timeout' }]);
    expect(released).toBe(false);
    expect(logger.lines.at(-1)?.fields).toMatchObject({ reason: 'backend_header_timeout' });
    headersHeld.open();
  });

  test('a backend that dies mid-stream: status already sent, the stream is cut short and logged', async () => {
    const { handler, logger } = proxy();
    const { prelude, body, done } = await invoke(handler, { url: '/inference/cut/stream' });
    expect(prelude.statusCode).toBe(200);
    const outcome = await bytesOf(body).then(
      (b) => ({ ok: true, text: b.toString() }),
      (e: Error) => ({ ok: false, text: e.message }),
    );
    // Either the body errors (aborted transfer) or ends early; it never completes normally.
    await done.catch(() => undefined);
    if (outcome.ok) expect(outcome.text).toBe('partial ');
    expect(logger.lines.map((l) => l.message)).toContain('stream aborted');
  });
});

test('configured from the environment (global mode): streams through the accelerator target', async () => {
  const handler = streamifyResponse(
    createStreamingHandlerFromEnv(
      {
        MODE: 'global',
        ACCELERATOR_DNS: '127.0.0.1',
        BACKEND_PORT: String(backend.port),
        BACKEND_HOSTNAME: BACKEND_NAME,
        INTERNAL_CA_PEM: ca.cert,
        SIGNING_KEY_SECRET_ARN: SECRET_ARN,
      },
      {
        clients: {
          secretsManager: new FakeSecret(JSON.stringify({ current: KEY })).client,
          ssm: new SSMClient({}),
          elbv2: new ElasticLoadBalancingV2Client({}),
        },
        logger: memoryLogger(),
      },
    ),
  );
  const { prelude, text } = await complete(handler, { url: '/inference/echo/v1/models' });
  expect(prelude.statusCode).toBe(200);
  expect((JSON.parse(text) as { servername: string }).servername).toBe(BACKEND_NAME);
});
