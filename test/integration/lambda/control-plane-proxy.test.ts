import { jest } from '@jest/globals';
import fc from 'fast-check';
import {
  DescribeLoadBalancersCommand,
  ElasticLoadBalancingV2Client,
  type LoadBalancerSchemeEnum,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { HttpError } from '../../../cluster/shared/errors.js';
import {
  createHandler,
  createHandlerFromEnv,
  handler as lambdaHandler,
  type ControlPlaneHandler,
} from '../../../lambda/control-plane-proxy/index.js';
import {
  staticTargetResolver,
  targetFactory,
  type BackendTarget,
} from '../../../lambda/shared/backend-target.js';
import { createLogger } from '../../../lambda/shared/logger.js';
import { secretsManagerKeySource } from '../../../contracts/runtime/secrets-key-source.js';
import { staticKeySource } from '../../../contracts/envelope/signing-keys.js';
import { createLocalCa } from '../../../local/tls.js';
import { ACCOUNT, lambdaContext } from '../../support/lambda-context.js';
import { memoryLogger, restEvent, type RawRequest } from '../../unit/lambda/events.js';
import { FakeSecret, SECRET_ARN } from '../../unit/lambda/fake-secrets.js';
import {
  BACKEND_NAME,
  closedPort,
  echoRoute,
  gate,
  KEY,
  loopbackLookup,
  startBackend,
  startRawServer,
  type Backend,
} from './harness.js';

const ca = createLocalCa();
const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
let slow = gate();
let backend: Backend;
const targets: BackendTarget[] = [];

beforeAll(async () => {
  backend = await startBackend({
    ca,
    routes: (app) => {
      echoRoute(app, '/api/v1/echo/*');
      app.post('/api/v1/echo-bytes', async (request, reply) =>
        reply.type('application/octet-stream').send(request.rawBody ?? Buffer.alloc(0)),
      );
      app.get('/api/v1/binary', async (_request, reply) => reply.type('text/plain').send(ALL_BYTES));
      app.get('/api/v1/big', async (_request, reply) => reply.type('text/plain').send('x'.repeat(2000)));
      app.get('/api/v1/jobs/:ns/:name', async () => {
        throw new HttpError(404, 'Job svc-jobs/missing not found');
      });
      app.get('/api/v1/explode', async () => {
        throw new Error('internal detail');
      });
      app.post('/api/v1/created', async (_request, reply) =>
        reply
          .code(201)
          .header('x-custom', 'kept')
          .header('set-cookie', ['a=1; Path=/', 'b=2; HttpOnly', 'c=3'])
          .header('connection', 'keep-alive, x-hop')
          .header('x-hop', 'dropped')
          .send({ created: true }),
      );
      app.delete('/api/v1/nothing', async (_request, reply) => reply.code(204).send());
      app.get('/api/v1/slow', async () => {
        await slow.wait;
        return { late: true };
      });
    },
  });
});

afterAll(async () => {
  slow.open();
  for (const t of targets) t.agent.destroy();
  await backend.close();
});

function target(port = backend.port, host = '127.0.0.1'): BackendTarget {
  const t = targetFactory({ caPem: ca.cert, servername: BACKEND_NAME, port })(host);
  targets.push(t);
  return t;
}

function proxy(
  opts: { key?: string; forwardTimeoutMs?: number; maxResponseBytes?: number; port?: number } = {},
) {
  const logger = memoryLogger();
  const handler = createHandler({
    keys: staticKeySource({ current: opts.key ?? KEY }),
    targets: staticTargetResolver(target(opts.port)),
    hostHeader: BACKEND_NAME,
    logger,
    ...(opts.forwardTimeoutMs !== undefined ? { forwardTimeoutMs: opts.forwardTimeoutMs } : {}),
    ...(opts.maxResponseBytes !== undefined ? { maxResponseBytes: opts.maxResponseBytes } : {}),
  });
  return { handler, logger };
}

const call = (handler: ControlPlaneHandler, raw: RawRequest) => handler(restEvent(raw), lambdaContext());
const json = (body: string): Record<string, unknown> => JSON.parse(body) as Record<string, unknown>;

function envFor(port: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    MODE: 'global',
    ACCELERATOR_DNS: '127.0.0.1',
    BACKEND_PORT: String(port),
    BACKEND_HOSTNAME: BACKEND_NAME,
    INTERNAL_CA_PEM: ca.cert,
    SIGNING_KEY_SECRET_ARN: SECRET_ARN,
    ...extra,
  };
}

describe('global mode, configured from the environment (accelerator → TLS with SNI → service)', () => {
  const secret = new FakeSecret(JSON.stringify({ current: KEY }));
  const logger = memoryLogger();
  let handler: ControlPlaneHandler;
  beforeAll(() => {
    handler = createHandlerFromEnv(envFor(backend.port), {
      clients: {
        secretsManager: secret.client,
        ssm: new SSMClient({}),
        elbv2: new ElasticLoadBalancingV2Client({}),
      },
      logger,
    });
  });

  test('a signed GET is accepted by the service envelope verifier; SNI and Host are the backend name', async () => {
    const res = await call(handler, {
      url: '/api/v1/echo/jobs?namespace=svc-jobs&limit=5',
      requestId: 'apigw-0001',
      sourceIp: '198.51.100.9',
    });
    expect(res.statusCode).toBe(200);
    const body = json(res.body);
    expect(body['url']).toBe('/api/v1/echo/jobs?namespace=svc-jobs&limit=5');
    expect(body['servername']).toBe(BACKEND_NAME);
    const headers = body['headers'] as Record<string, string>;
    expect(headers['host']).toBe(BACKEND_NAME);
    expect(headers['x-request-id']).toBe('apigw-0001');
    expect(headers['x-forwarded-for']).toBe('198.51.100.9');
    expect(headers['x-svc-signature-version']).toBe('v1');
    // The service echoes the API Gateway request id: one id end to end.
    expect(res.multiValueHeaders?.['x-request-id']).toEqual(['apigw-0001']);
    expect(logger.lines.at(-1)).toMatchObject({ message: 'forwarded', fields: { status: 200 } });
  });

  test('a signed POST body is accepted and arrives byte for byte', async () => {
    const payload = '{"name":"train-ü","priority":50}';
    const res = await call(handler, {
      method: 'POST',
      url: '/api/v1/echo/jobs',
      body: payload,
      headers: [['Content-Type', 'application/json']],
    });
    expect(res.statusCode).toBe(200);
    expect(Buffer.from(json(res.body)['body_b64'] as string, 'base64').toString('utf8')).toBe(payload);
  });
});

describe('TLS: only the internal CA and the backend name are trusted', () => {
  test('a certificate from another CA → 502, nothing forwarded', async () => {
    const rogue = await startBackend({
      ca,
      cert: createLocalCa().issue(['127.0.0.1', BACKEND_NAME]),
      routes: (app) => echoRoute(app, '/api/v1/echo/*'),
    });
    try {
      const { handler, logger } = proxy({ port: rogue.port });
      const res = await call(handler, { url: '/api/v1/echo/x' });
      expect(res.statusCode).toBe(502);
      expect(json(res.body)).toEqual({ message: 'Bad Gateway' });
      expect(rogue.seen).toHaveLength(0);
      expect(logger.lines.at(-1)?.fields).toMatchObject({ reason: 'backend_unreachable' });
    } finally {
      await rogue.close();
    }
  });

  test('a certificate of the right CA for another name → 502, nothing forwarded', async () => {
    const other = await startBackend({
      ca,
      cert: ca.issue(['127.0.0.1', 'other.gco.internal']),
      routes: (app) => echoRoute(app, '/api/v1/echo/*'),
    });
    try {
      const res = await call(proxy({ port: other.port }).handler, { url: '/api/v1/echo/x' });
      expect(res.statusCode).toBe(502);
      expect(other.seen).toHaveLength(0);
    } finally {
      await other.close();
    }
  });
});

describe('rejection rules (checked before anything is forwarded)', () => {
  test.each([
    'X-SVC-Target-Region',
    'x-svc-target-region',
    'X-Svc-Target-REGION',
    'X-GCO-Target-Region',
    'X-Target-Region',
    'x-my-app-target-region',
  ])('%s → 400', async (name) => {
    const before = backend.seen.length;
    const { handler, logger } = proxy();
    const res = await call(handler, { url: '/api/v1/echo/jobs', headers: [[name, 'eu-west-1']] });
    expect(res.statusCode).toBe(400);
    expect(res.multiValueHeaders?.['content-type']).toEqual(['application/json']);
    expect(json(res.body)).toEqual({
      message: `The ${name.toLowerCase()} header is not honoured: a request is served by the region of the API it is sent to. To target a region, call that region's regional API, or /api/v1/global/* for every region.`,
    });
    expect(backend.seen.length).toBe(before);
    expect(logger.lines.at(-1)).toMatchObject({
      level: 'warn',
      fields: { reason: 'target_region_header' },
    });
  });

  test('a base64-encoded body → 400', async () => {
    const before = backend.seen.length;
    const res = await call(proxy().handler, {
      method: 'POST',
      url: '/api/v1/echo/jobs',
      body: Buffer.from('{"a":1}').toString('base64'),
      isBase64Encoded: true,
    });
    expect(res.statusCode).toBe(400);
    expect(json(res.body)).toEqual({ message: 'Base64-encoded request bodies are not supported' });
    expect(backend.seen.length).toBe(before);
  });

  test('generated x-<token>-target-region names in any letter case → 400, nothing forwarded', async () => {
    const before = backend.seen.length;
    const { handler } = proxy();
    const token = fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,15}$/);
    const upperSome = (name: string, mask: number) =>
      [...name].map((c, i) => ((mask >> (i % 30)) & 1 ? c.toUpperCase() : c)).join('');
    await fc.assert(
      fc.asyncProperty(token, fc.nat(), fc.string({ maxLength: 20 }), async (t, mask, value) => {
        const name = upperSome(`x-${t}-target-region`, mask);
        const res = await call(handler, {
          url: '/api/v1/echo/jobs',
          headers: [[name, value.replace(/[^\x20-\x7e]/g, '')]],
        });
        expect(res.statusCode).toBe(400);
        expect(String(json(res.body)['message'])).toContain(
          `The ${name.toLowerCase()} header is not honoured`,
        );
      }),
      { numRuns: 60, seed: 25 },
    );
    expect(backend.seen.length).toBe(before);
  });

  test('headers that only look similar are forwarded (x-target-regions, target-region, x-region)', async () => {
    const res = await call(proxy().handler, {
      url: '/api/v1/echo/jobs',
      headers: [
        ['X-Target-Regions', 'a'],
        ['Target-Region', 'b'],
        ['X-Region', 'c'],
      ],
    });
    expect(res.statusCode).toBe(200);
    const headers = json(res.body)['headers'] as Record<string, string>;
    expect([headers['x-target-regions'], headers['target-region'], headers['x-region']]).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  test.each(['GET', 'HEAD'])(
    'a %s with a body → 400 naming the problem (not the backend 403)',
    async (method) => {
      const before = backend.seen.length;
      const res = await call(proxy().handler, { method, url: '/api/v1/echo/jobs', body: '{"a":1}' });
      expect(res.statusCode).toBe(400);
      expect(json(res.body)).toEqual({
        message: `A ${method} request may not carry a body: send its parameters in the query string, or use the operation's POST/PUT/PATCH/DELETE method`,
      });
      expect(backend.seen.length).toBe(before);
    },
  );

  test('generated GET bodies are all refused with 400; an empty GET body is no body', async () => {
    const before = backend.seen.length;
    const { handler } = proxy();
    await fc.assert(
      fc.asyncProperty(fc.string({ minLength: 1, maxLength: 200 }), async (body) => {
        const res = await call(handler, { method: 'GET', url: '/api/v1/echo/jobs', body });
        expect(res.statusCode).toBe(400);
      }),
      { numRuns: 40, seed: 25 },
    );
    expect(backend.seen.length).toBe(before);
    expect((await call(handler, { method: 'GET', url: '/api/v1/echo/jobs', body: '' })).statusCode).toBe(200);
  });

  test('a DELETE body is forwarded and verified by the service (the bulk delete carries one)', async () => {
    const res = await call(proxy().handler, {
      method: 'DELETE',
      url: '/api/v1/echo/jobs',
      body: '{"dry_run":true}',
      headers: [['content-type', 'application/json']],
    });
    expect(res.statusCode).toBe(200);
    expect(Buffer.from(json(res.body)['body_b64'] as string, 'base64').toString('utf8')).toBe(
      '{"dry_run":true}',
    );
  });

  test("the caller's Authorization, x-amz-*, x-svc-* and hop-by-hop headers never reach the backend", async () => {
    const before = backend.seen.length;
    const res = await call(proxy().handler, {
      method: 'POST',
      url: '/api/v1/echo/jobs',
      body: '{}',
      headers: [
        [
          'Authorization',
          'AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE/20250101/us-east-2/execute-api/aws4_request, Signature=deadbeef',
        ],
        ['X-Amz-Date', '20250101T000000Z'],
        ['X-Amz-Security-Token', 'caller-session-token'],
        ['X-Svc-Signature', 'a'.repeat(64)],
        ['x-svc-nonce', 'b'.repeat(32)],
        ['X-SVC-Whatever', 'x'],
        ['Connection', 'x-secret-hop'],
        ['X-Secret-Hop', 'y'],
        ['Proxy-Authorization', 'Basic Zm9vOmJhcg=='],
        ['Upgrade', 'websocket'],
        ['Content-Type', 'application/json'],
        ['X-Client', 'kept'],
      ],
    });
    expect(res.statusCode).toBe(200);
    const seen = backend.seen.slice(before);
    expect(seen).toHaveLength(1);
    const names = (seen[0]?.rawHeaders ?? []).filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
    expect(names).not.toContain('authorization');
    expect(names).not.toContain('proxy-authorization');
    expect(names).not.toContain('upgrade');
    expect(names).not.toContain('x-secret-hop');
    expect(names.filter((n) => n.startsWith('x-amz-'))).toEqual([]);
    // Exactly the proxy's own five envelope headers, once each.
    expect(names.filter((n) => n.startsWith('x-svc-')).sort()).toEqual([
      'x-svc-content-sha256',
      'x-svc-nonce',
      'x-svc-signature',
      'x-svc-signature-version',
      'x-svc-timestamp',
    ]);
    const raw = JSON.stringify(seen[0]?.rawHeaders);
    expect(raw).not.toMatch(/AKIAEXAMPLE|caller-session-token|deadbeef|a{64}|b{32}/);
    expect(seen[0]?.headers['x-client']).toBe('kept');
  });
});

describe('deadline', () => {
  test('a backend slower than the configured limit → 504 while it is still working', async () => {
    slow = gate();
    let answered = false;
    void slow.wait.then(() => (answered = true));
    const before = backend.seen.length;
    const { handler, logger } = proxy({ forwardTimeoutMs: 300 });
    const res = await call(handler, { url: '/api/v1/slow' });
    expect(res.statusCode).toBe(504);
    expect(json(res.body)).toEqual({ message: 'Gateway Timeout' });
    expect(backend.seen.length).toBe(before + 1); // it was forwarded…
    expect(answered).toBe(false); // …and given up on before the backend answered
    expect(logger.lines.at(-1)).toMatchObject({
      level: 'error',
      fields: { reason: 'backend_timeout', status: 504 },
    });
    slow.open();
  });

  test("the limit shrinks to the Lambda's remaining time, so the proxy answers before it is killed", async () => {
    slow = gate();
    const { handler } = proxy({ forwardTimeoutMs: 28_000 });
    const res = await handler(
      restEvent({ url: '/api/v1/slow' }),
      lambdaContext({ getRemainingTimeInMillis: () => 1_300 }),
    );
    expect(res.statusCode).toBe(504);
    slow.open();
  });
});

describe('byte-exact round trips', () => {
  test('multi-value query: every value, in order, decoded by the backend to what the caller sent', async () => {
    const values = ['a', 'b&c', '%41', 'x=y z', '1+1', 'ü€𝄞', ''];
    const url = `/api/v1/echo/jobs?${values.map((v) => `tag=${encodeURIComponent(v)}`).join('&')}&single=%2F`;
    const res = await call(proxy().handler, { url });
    expect(res.statusCode).toBe(200);
    const body = json(res.body);
    const query = body['query'] as Record<string, unknown>;
    expect(query['tag']).toEqual(values);
    expect(query['single']).toBe('/');
    expect(new URL(`https://x${String(body['url'])}`).searchParams.getAll('tag')).toEqual(values);
  });

  test('a request body the backend echoes as octet-stream comes back base64, byte-exact', async () => {
    const payload = 'line 1\nünïcödé 𝄞 \u0000 end';
    const res = await call(proxy().handler, { method: 'POST', url: '/api/v1/echo-bytes', body: payload });
    expect(res.statusCode).toBe(200);
    expect(res.isBase64Encoded).toBe(true);
    expect(Buffer.from(res.body, 'base64')).toEqual(Buffer.from(payload, 'utf8'));
  });

  test('non-UTF-8 bytes are base64-encoded even under a text content type', async () => {
    const res = await call(proxy().handler, { url: '/api/v1/binary' });
    expect(res.isBase64Encoded).toBe(true);
    expect(Buffer.from(res.body, 'base64')).toEqual(ALL_BYTES);
    expect(res.multiValueHeaders?.['content-type']?.[0]).toMatch(/^text\/plain/);
  });

  test('JSON comes back as text', async () => {
    const res = await call(proxy().handler, { url: '/api/v1/echo/x' });
    expect(res.isBase64Encoded).toBe(false);
    expect(() => JSON.parse(res.body) as unknown).not.toThrow();
  });
});

describe('backend answers pass through unchanged', () => {
  test('404 and 500 bodies, and an unknown path', async () => {
    const { handler } = proxy();
    const notFound = await call(handler, { url: '/api/v1/jobs/svc-jobs/missing' });
    expect([notFound.statusCode, json(notFound.body)]).toEqual([
      404,
      { detail: 'Job svc-jobs/missing not found' },
    ]);
    const failed = await call(handler, { url: '/api/v1/explode' });
    expect([failed.statusCode, json(failed.body)]).toEqual([500, { detail: 'Internal Server Error' }]);
    const unknown = await call(handler, { url: '/api/v1/no/such/path' });
    expect([unknown.statusCode, json(unknown.body)]).toEqual([404, { detail: 'Not Found' }]);
  });

  test('status, headers (every Set-Cookie, in order) and body; hop-by-hop response headers dropped', async () => {
    const res = await call(proxy().handler, { method: 'POST', url: '/api/v1/created', body: '{}' });
    expect(res.statusCode).toBe(201);
    expect(json(res.body)).toEqual({ created: true });
    const headers = res.multiValueHeaders ?? {};
    expect(headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; HttpOnly', 'c=3']);
    expect(headers['x-custom']).toEqual(['kept']);
    expect(headers['content-type']).toEqual(['application/json; charset=utf-8']);
    expect(headers['connection']).toBeUndefined();
    expect(headers['x-hop']).toBeUndefined();
    expect(headers['keep-alive']).toBeUndefined();
    expect(res.headers).toBeUndefined(); // only multiValueHeaders, so nothing is doubled
  });

  test('204 with an empty body', async () => {
    const res = await call(proxy().handler, { method: 'DELETE', url: '/api/v1/nothing' });
    expect([res.statusCode, res.body, res.isBase64Encoded]).toEqual([204, '', false]);
  });

  test('an envelope the service refuses (wrong key) comes back as its 403, unchanged', async () => {
    const res = await call(proxy({ key: 'not-the-backend-key-0123456789' }).handler, {
      url: '/api/v1/echo/x',
    });
    expect([res.statusCode, json(res.body)]).toEqual([403, { detail: 'Forbidden' }]);
  });
});

describe('proxy-side failures', () => {
  test('nothing listening → 502', async () => {
    const res = await call(proxy({ port: await closedPort() }).handler, { url: '/api/v1/echo/x' });
    expect([res.statusCode, json(res.body)]).toEqual([502, { message: 'Bad Gateway' }]);
  });

  test('a response over the size limit → 502', async () => {
    const res = await call(proxy({ maxResponseBytes: 1000 }).handler, { url: '/api/v1/big' });
    expect([res.statusCode, json(res.body)]).toEqual([502, { message: 'Backend response too large' }]);
  });

  test('a stale keep-alive socket is retried once on a fresh connection, with the same envelope', async () => {
    const nonces: string[] = [];
    const perSocket = new WeakMap<object, number>();
    const { server, port } = await startRawServer(ca.issue(['127.0.0.1', BACKEND_NAME]), (req, res) => {
      nonces.push(String(req.headers['x-svc-nonce']));
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      // The second request on a socket finds it "stale": the connection is reset without an answer.
      if (n === 2) req.socket.destroy();
      else res.end('{"ok":true}');
    });
    try {
      const { handler } = proxy({ port });
      expect((await call(handler, { url: '/api/v1/a' })).statusCode).toBe(200);
      expect((await call(handler, { url: '/api/v1/b' })).statusCode).toBe(200);
      expect(nonces).toHaveLength(3);
      expect(nonces[2]).toBe(nonces[1]);
    } finally {
      server.close();
    }
  });

  test('a signing-key store failure → 500, nothing forwarded', async () => {
    const before = backend.seen.length;
    const handler = createHandler({
      keys: {
        get: () => Promise.reject(new Error('AccessDenied')),
        refreshAfterMiss: () => Promise.resolve(undefined),
      },
      targets: staticTargetResolver(target()),
      hostHeader: BACKEND_NAME,
      logger: memoryLogger(),
    });
    const res = await call(handler, { url: '/api/v1/echo/x' });
    expect([res.statusCode, json(res.body)]).toEqual([500, { message: 'Internal server error' }]);
    expect(backend.seen.length).toBe(before);
  });
});

describe('regional mode: ALB host from SSM, verified with ELBv2 before first use', () => {
  const ALB = 'internal-gco-alb-0123456789.us-east-1.elb.amazonaws.com';
  const lbArn = (account: string) =>
    `arn:aws:elasticloadbalancing:us-east-1:${account}:loadbalancer/app/gco/0123456789abcdef`;

  function regional(lb: { Scheme: LoadBalancerSchemeEnum; account: string }) {
    const ssm = new SSMClient({ region: 'us-east-1' });
    const elbv2 = new ElasticLoadBalancingV2Client({ region: 'us-east-1' });
    mockClient(ssm)
      .on(GetParameterCommand)
      .resolves({ Parameter: { Value: ALB } });
    const elbMock = mockClient(elbv2);
    elbMock.on(DescribeLoadBalancersCommand).resolves({
      LoadBalancers: [
        { DNSName: ALB, Scheme: lb.Scheme, LoadBalancerArn: lbArn(lb.account), Type: 'application' },
      ],
    });
    const logger = memoryLogger();
    const handler = createHandlerFromEnv(
      {
        MODE: 'regional',
        ALB_HOST_PARAMETER: '/gco/us-east-1/alb-host',
        BACKEND_PORT: String(backend.port),
        BACKEND_HOSTNAME: BACKEND_NAME,
        INTERNAL_CA_PEM: ca.cert,
        SIGNING_KEY_SECRET_ARN: SECRET_ARN,
      },
      {
        clients: { secretsManager: new FakeSecret(JSON.stringify({ current: KEY })).client, ssm, elbv2 },
        logger,
        lookup: loopbackLookup,
      },
    );
    return { handler, logger, elbMock };
  }

  test('an internal ALB of this account: the signed request is accepted, the lookup cached', async () => {
    const { handler, elbMock } = regional({ Scheme: 'internal', account: ACCOUNT });
    for (const n of [1, 2]) {
      const res = await call(handler, { url: `/api/v1/echo/regional/${n}` });
      expect(res.statusCode).toBe(200);
      expect(json(res.body)['servername']).toBe(BACKEND_NAME);
    }
    expect(elbMock.commandCalls(DescribeLoadBalancersCommand)).toHaveLength(1);
  });

  test.each([
    ['internet-facing', { Scheme: 'internet-facing' as const, account: ACCOUNT }, 'alb_not_internal'],
    ['another account', { Scheme: 'internal' as const, account: '999988887777' }, 'alb_foreign_account'],
  ])('%s: refused with 500 and logged, never forwarded', async (_name, lb, reason) => {
    const before = backend.seen.length;
    const { handler, logger } = regional(lb);
    const res = await call(handler, { url: '/api/v1/echo/regional' });
    expect([res.statusCode, json(res.body)]).toEqual([500, { message: 'Internal server error' }]);
    expect(backend.seen.length).toBe(before);
    expect(logger.lines.filter((l) => l.level === 'error').map((l) => l.fields['reason'])).toContain(reason);
  });
});

describe('key rotation', () => {
  const OLD = KEY;
  const NEW = 'rotated-edge-signing-key-9876543210';

  test('a backend accepting {current: NEW, previous: OLD} accepts a proxy still holding OLD; the proxy moves to NEW after its cache age', async () => {
    const rotated = await startBackend({
      ca,
      keys: { current: NEW, previous: OLD },
      routes: (app) => echoRoute(app, '/api/v1/echo/*'),
    });
    const newOnly = await startBackend({
      ca,
      keys: { current: NEW },
      routes: (app) => echoRoute(app, '/api/v1/echo/*'),
    });
    try {
      const secret = new FakeSecret(JSON.stringify({ current: OLD }));
      let now = 1_000_000;
      const keys = secretsManagerKeySource(secret.client, SECRET_ARN, { now: () => now });
      const via = (port: number) =>
        createHandler({
          keys,
          targets: staticTargetResolver(target(port)),
          hostHeader: BACKEND_NAME,
          logger: memoryLogger(),
        });

      expect((await call(via(rotated.port), { url: '/api/v1/echo/1' })).statusCode).toBe(200);
      // Rotation lands in Secrets Manager; this proxy's cached key is still OLD.
      secret.setCurrent(JSON.stringify({ current: NEW, previous: OLD }), 'v-rotated');
      expect((await call(via(rotated.port), { url: '/api/v1/echo/2' })).statusCode).toBe(200);
      expect((await call(via(newOnly.port), { url: '/api/v1/echo/3' })).statusCode).toBe(403);
      // After the 60 s cache age the proxy signs with NEW, which even a verifier without OLD accepts.
      now += 60_001;
      expect((await call(via(rotated.port), { url: '/api/v1/echo/4' })).statusCode).toBe(200);
      expect((await call(via(newOnly.port), { url: '/api/v1/echo/5' })).statusCode).toBe(200);
    } finally {
      await rotated.close();
      await newOnly.close();
    }
  });
});

describe('logging (Powertools) never carries credentials, keys or signatures', () => {
  test('stdout/stderr of a forwarded and a refused request', async () => {
    const writes: string[] = [];
    const capture = (chunk: string | Uint8Array): boolean => {
      writes.push(String(chunk));
      return true;
    };
    // Powertools writes INFO to stdout and WARN/ERROR to stderr.
    const out = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
    const err = jest.spyOn(process.stderr, 'write').mockImplementation(capture);
    try {
      const handler = createHandler({
        keys: staticKeySource({ current: KEY }),
        targets: staticTargetResolver(target()),
        hostHeader: BACKEND_NAME,
        logger: createLogger('control-plane-proxy-test'),
      });
      const headers: [string, string][] = [
        ['Authorization', 'AWS4-HMAC-SHA256 Credential=AKIALOGTEST/x, Signature=feedface'],
        ['X-Amz-Security-Token', 'log-session-token'],
      ];
      await call(handler, { url: '/api/v1/echo/x?secret_param=1', headers });
      await call(handler, { url: '/api/v1/echo/x', headers: [...headers, ['X-Svc-Target-Region', 'x']] });
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    const text = writes.join('');
    expect(text).toContain('"message":"forwarded"');
    expect(text).toContain('"message":"request refused"');
    for (const secret of [KEY, 'AKIALOGTEST', 'feedface', 'log-session-token', 'secret_param']) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toMatch(/[0-9a-f]{64}/); // no envelope signature or body hash
  });
});

test('the exported Lambda handler imports without configuration and answers 500 JSON when it is missing', async () => {
  const writes: string[] = [];
  const logs = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    writes.push(String(chunk));
    return true;
  });
  try {
    const res = await lambdaHandler(restEvent({ url: '/api/v1/jobs' }), lambdaContext());
    expect([res.statusCode, json(res.body)]).toEqual([500, { message: 'Internal server error' }]);
  } finally {
    logs.mockRestore();
  }
  // The operator learns which variables are missing.
  expect(writes.join('')).toContain('MODE: required');
});
