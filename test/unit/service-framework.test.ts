import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Type } from 'typebox';
import { EnvelopeVerifier, signEnvelope } from '../../contracts/envelope/envelope.js';
import { staticKeySource } from '../../contracts/envelope/signing-keys.js';
import { HttpError, RequestValidationError } from '../../cluster/shared/errors.js';
import { Nullable, StringEnum } from '../../cluster/shared/schema.js';
import { createService, type Service } from '../../cluster/shared/service.js';

const KEY = 'test-signing-key-0123456789abcdef';
const JobStatus = StringEnum(['pending', 'running', 'completed', 'succeeded', 'failed']);

interface Harness {
  service: Service;
  logs: string[];
  ready: { value: boolean };
}

async function makeService(): Promise<Harness> {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logs.push(chunk.toString());
      cb();
    },
  });
  const ready = { value: true };
  const service = await createService({
    name: 'test-service',
    version: '9.9.9',
    description: 'framework test service',
    envelope: new EnvelopeVerifier({ keys: staticKeySource({ current: KEY }) }),
    logger: pino({ level: 'info' }, sink),
    readiness: { worker: () => ready.value },
    routes: (app) => {
      app.get(
        '/api/v1/jobs',
        {
          schema: {
            operationId: 'list_jobs_api_v1_jobs_get',
            querystring: Type.Object({
              limit: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
              offset: Type.Integer({ minimum: 0, default: 0 }),
              status: Type.Optional(Nullable(JobStatus)),
              label_selector: Type.Optional(Type.String({ maxLength: 1024 })),
            }),
          },
        },
        async (request) => ({ query: request.query }),
      );
      app.post(
        '/api/v1/queue/jobs',
        {
          schema: {
            operationId: 'submit_job_to_queue_api_v1_queue_jobs_post',
            body: Type.Object({
              manifest: Type.Record(Type.String(), Type.Unknown()),
              target_region: Type.String(),
              priority: Type.Integer({ minimum: 0, maximum: 100, default: 0 }),
              max_spot_price: Type.Optional(Nullable(Type.Number({ exclusiveMinimum: 0 }))),
              tags: Type.Optional(Type.Array(Type.String(), { minItems: 1 })),
            }),
          },
        },
        async (request) => {
          if (request.body.target_region === 'teapot') throw new HttpError(409, 'already queued');
          if (request.body.target_region === 'explode') throw new Error('secret internal detail');
          if (request.body.target_region === 'semantic') {
            throw new RequestValidationError([
              { loc: ['body', 'target_region'], msg: 'Value error, bad', type: 'value_error' },
            ]);
          }
          return { accepted: request.body };
        },
      );
    },
  });
  return { service, logs, ready };
}

function signed(method: string, url: string, body?: string, key = KEY) {
  return {
    method: method as 'GET',
    url,
    payload: body,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...signEnvelope({ key, method, target: url, body }),
    },
  };
}

describe('cluster service framework', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await makeService();
  });
  afterEach(async () => {
    await h.service.app.close();
  });

  describe('envelope', () => {
    test('a signed request is served', async () => {
      const res = await h.service.app.inject(signed('GET', '/api/v1/jobs?limit=5'));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ query: { limit: 5, offset: 0 } });
    });

    test('an unsigned request is 403 {"detail":"Forbidden"} — before any validation', async () => {
      for (const url of ['/api/v1/jobs', '/api/v1/jobs?limit=oops', '/no/such/path', '/openapi.json', '/']) {
        const res = await h.service.app.inject({ method: 'GET', url });
        expect([url, res.statusCode, res.json()]).toEqual([url, 403, { detail: 'Forbidden' }]);
      }
    });

    test('a bad JSON body from an unauthenticated caller is 403, not 422', async () => {
      const res = await h.service.app.inject({
        method: 'POST',
        url: '/api/v1/queue/jobs',
        payload: '{oops',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.statusCode).toBe(403);
    });

    test('the exempt paths need no envelope (exact match only)', async () => {
      expect((await h.service.app.inject('/healthz')).statusCode).toBe(200);
      expect((await h.service.app.inject('/readyz')).statusCode).toBe(200);
      expect((await h.service.app.inject('/metrics')).statusCode).toBe(200);
      expect((await h.service.app.inject('/healthz/')).statusCode).toBe(403);
      expect((await h.service.app.inject('/healthz/x')).statusCode).toBe(403);
    });

    test('a request signed with the wrong key is 403 and counted by reason', async () => {
      const res = await h.service.app.inject(signed('GET', '/api/v1/jobs', undefined, 'wrong-key'));
      expect(res.statusCode).toBe(403);
      const metrics = (await h.service.app.inject('/metrics')).body;
      expect(metrics).toMatch(/envelope_rejections_total\{reason="signature_mismatch"[^}]*\} 1/);
    });

    test('a signed request to an unknown path is 404 {"detail":"Not Found"}', async () => {
      const res = await h.service.app.inject(signed('GET', '/nope'));
      expect([res.statusCode, res.json()]).toEqual([404, { detail: 'Not Found' }]);
    });
  });

  describe('422 HTTPValidationError', () => {
    /** A row: the URL of a jobs query (`<1025 chars>` stands for a long value) and the one item it yields. */
    const query = (
      q: string,
      type: string,
      msg: string,
      input: unknown,
      ctx?: Record<string, unknown>,
    ): [string, Record<string, unknown>] => [
      `/api/v1/jobs?${q}`,
      { loc: ['query', q.slice(0, q.indexOf('='))], type, msg, input, ...(ctx ? { ctx } : {}) },
    ];

    const STATUSES = "'pending', 'running', 'completed', 'succeeded' or 'failed'";

    test.each([
      query(
        'limit=abc',
        'int_parsing',
        'Input should be a valid integer, unable to parse string as an integer',
        'abc',
      ),
      query('limit=1001', 'less_than_equal', 'Input should be less than or equal to 1000', 1001, {
        le: 1000,
      }),
      query('limit=0', 'greater_than_equal', 'Input should be greater than or equal to 1', 0, { ge: 1 }),
      query('offset=-1', 'greater_than_equal', 'Input should be greater than or equal to 0', -1, { ge: 0 }),
      query('status=done', 'enum', `Input should be ${STATUSES}`, 'done', { expected: STATUSES }),
      query(
        'label_selector=<1025 chars>',
        'string_too_long',
        'String should have at most 1024 characters',
        'a'.repeat(1025),
        { max_length: 1024 },
      ),
      query('namepsace=x', 'extra_forbidden', 'Extra inputs are not permitted', 'x'),
    ])('GET %s', async (label, item) => {
      const url = label.replace('<1025 chars>', 'a'.repeat(1025));
      const res = await h.service.app.inject(signed('GET', url));
      expect(res.statusCode).toBe(422);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual({ detail: [item] });
    });

    test('every problem is reported at once', async () => {
      const res = await h.service.app.inject(signed('GET', '/api/v1/jobs?limit=0&offset=x'));
      expect(res.json().detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
        ['query', 'limit'],
        ['query', 'offset'],
      ]);
    });

    test('body: missing, wrong types, bounds, nullable', async () => {
      const body = JSON.stringify({ manifest: 'x', priority: 101, max_spot_price: 0, tags: [] });
      const res = await h.service.app.inject(signed('POST', '/api/v1/queue/jobs', body));
      expect(res.statusCode).toBe(422);
      expect(res.json().detail).toEqual([
        { loc: ['body', 'target_region'], type: 'missing', msg: 'Field required', input: JSON.parse(body) },
        {
          loc: ['body', 'manifest'],
          type: 'dict_type',
          msg: 'Input should be a valid dictionary',
          input: 'x',
        },
        {
          loc: ['body', 'priority'],
          type: 'less_than_equal',
          msg: 'Input should be less than or equal to 100',
          input: 101,
          ctx: { le: 100 },
        },
        {
          loc: ['body', 'max_spot_price'],
          type: 'greater_than',
          msg: 'Input should be greater than 0',
          input: 0,
          ctx: { gt: 0 },
        },
        {
          loc: ['body', 'tags'],
          type: 'too_short',
          msg: 'List should have at least 1 item after validation, not 0',
          input: [],
          ctx: { field_type: 'List', min_length: 1, actual_length: 0 },
        },
      ]);
    });

    test('body: JSON null is not coerced to a number', async () => {
      const body = JSON.stringify({
        manifest: {},
        target_region: 'us-east-1',
        priority: null,
        max_spot_price: null,
      });
      const res = await h.service.app.inject(signed('POST', '/api/v1/queue/jobs', body));
      expect(res.json().detail).toEqual([
        { loc: ['body', 'priority'], type: 'int_type', msg: 'Input should be a valid integer', input: null },
      ]);
    });

    test('body: missing entirely, not JSON, not an object', async () => {
      let res = await h.service.app.inject(signed('POST', '/api/v1/queue/jobs'));
      expect(res.json()).toEqual({
        detail: [{ loc: ['body'], type: 'missing', msg: 'Field required', input: null }],
      });
      res = await h.service.app.inject(signed('POST', '/api/v1/queue/jobs', '{"manifest": '));
      expect(res.statusCode).toBe(422);
      expect(res.json().detail[0]).toMatchObject({
        loc: ['body', expect.any(Number)],
        type: 'json_invalid',
        msg: 'JSON decode error',
      });
      res = await h.service.app.inject(signed('POST', '/api/v1/queue/jobs', '[1]'));
      expect(res.json().detail[0]).toMatchObject({ loc: ['body'], type: 'model_attributes_type' });
    });

    test('handlers can raise the same shape for rules a schema cannot express', async () => {
      const body = JSON.stringify({ manifest: {}, target_region: 'semantic' });
      const res = await h.service.app.inject(signed('POST', '/api/v1/queue/jobs', body));
      expect([res.statusCode, res.json()]).toEqual([
        422,
        { detail: [{ loc: ['body', 'target_region'], msg: 'Value error, bad', type: 'value_error' }] },
      ]);
    });

    test('defaults are applied', async () => {
      const body = JSON.stringify({ manifest: { kind: 'Job' }, target_region: 'us-east-1' });
      const res = await h.service.app.inject(signed('POST', '/api/v1/queue/jobs', body));
      expect(res.json()).toEqual({
        accepted: { manifest: { kind: 'Job' }, target_region: 'us-east-1', priority: 0 },
      });
    });
  });

  describe('errors', () => {
    test('HttpError → {"detail": …} with its status', async () => {
      const res = await h.service.app.inject(
        signed('POST', '/api/v1/queue/jobs', JSON.stringify({ manifest: {}, target_region: 'teapot' })),
      );
      expect([res.statusCode, res.json()]).toEqual([409, { detail: 'already queued' }]);
    });

    test('an unexpected error is a bare 500 with no internals', async () => {
      const res = await h.service.app.inject(
        signed('POST', '/api/v1/queue/jobs', JSON.stringify({ manifest: {}, target_region: 'explode' })),
      );
      expect([res.statusCode, res.json()]).toEqual([500, { detail: 'Internal Server Error' }]);
      expect(res.body).not.toContain('secret internal detail');
    });

    test('bodies over 1 MiB are refused with 413', async () => {
      const big = JSON.stringify({ manifest: { blob: 'x'.repeat(1024 * 1024) }, target_region: 'r' });
      const res = await h.service.app.inject({
        method: 'POST',
        url: '/api/v1/queue/jobs',
        payload: big,
        headers: { 'content-type': 'application/json' },
      });
      expect([res.statusCode, res.json()]).toEqual([413, { detail: 'Request body too large' }]);
    });
  });

  describe('operations', () => {
    test('request ids: a sane caller id is echoed, otherwise one is generated', async () => {
      const withId = await h.service.app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
      expect(withId.headers['x-request-id']).toBe('abc-123');
      const evil = await h.service.app.inject({ url: '/healthz', headers: { 'x-request-id': 'a\u0000b c' } });
      expect(evil.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    test('logs are JSON with the request id and never carry signatures or credentials', async () => {
      await h.service.app.inject({
        ...signed('GET', '/api/v1/jobs', undefined, 'wrong-key'),
        headers: {
          ...signed('GET', '/api/v1/jobs', undefined, 'wrong-key').headers,
          authorization: 'Bearer top-secret',
          'x-request-id': 'req-42',
        },
      });
      const lines = h.logs.map((l) => JSON.parse(l));
      expect(lines.some((l) => l.request_id === 'req-42' && l.reason === 'signature_mismatch')).toBe(true);
      const text = h.logs.join('');
      expect(text).not.toContain('top-secret');
      expect(text).not.toContain(KEY);
    });

    test('/metrics serves Prometheus text with per-route request counters', async () => {
      await h.service.app.inject(signed('GET', '/api/v1/jobs'));
      const res = await h.service.app.inject('/metrics');
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.body).toMatch(
        /http_requests_total\{method="GET",route="\/api\/v1\/jobs",status_code="200"[^}]*\} 1/,
      );
      expect(res.body).toContain('process_cpu_user_seconds_total');
    });

    test('/readyz reflects readiness checks and draining', async () => {
      expect((await h.service.app.inject('/readyz')).json()).toEqual({
        status: 'ready',
        service: 'test-service',
        worker: 'ok',
      });
      h.ready.value = false;
      let res = await h.service.app.inject('/readyz');
      expect([res.statusCode, res.json().worker]).toEqual([503, 'not_ready']);
      h.ready.value = true;
      h.service.startDraining();
      res = await h.service.app.inject('/readyz');
      expect([res.statusCode, res.json().shutdown]).toEqual([503, 'draining']);
    });

    test('/openapi.json is OpenAPI 3.1 with operation ids, 422 and the HMAC scheme', async () => {
      const doc = (await h.service.app.inject(signed('GET', '/openapi.json'))).json();
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.info).toMatchObject({ title: 'test-service', version: '9.9.9' });
      const list = doc.paths['/api/v1/jobs'].get;
      expect(list.operationId).toBe('list_jobs_api_v1_jobs_get');
      expect(list.responses['422'].content['application/json'].schema.$ref).toBe(
        '#/components/schemas/HTTPValidationError',
      );
      expect(list.security).toEqual([{ gcoHmac: [] }]);
      expect(list.parameters.find((p: { name: string }) => p.name === 'limit').schema).toMatchObject({
        minimum: 1,
        maximum: 1000,
        default: 50,
      });
      expect(doc.paths['/healthz'].get.operationId).toBe('kubernetes_health_check_healthz_get');
      expect(doc.paths['/healthz'].get.security).toBeUndefined();
      expect(doc.paths['/metrics']).toBeUndefined();
      expect(doc.components.schemas.HTTPValidationError).toBeDefined();
    });
  });
});

describe('cluster service framework over TLS', () => {
  test('serves HTTPS with the given certificate (verified against the issuing CA)', async () => {
    const { createLocalCa } = await import('../../local/tls.js');
    const { request } = await import('node:https');
    const ca = createLocalCa();
    const service = await createService({
      name: 'tls-service',
      version: '1.0.0',
      description: 'tls',
      envelope: false,
      https: ca.issue(['127.0.0.1']),
      routes: () => undefined,
    });
    try {
      const address = await service.app.listen({ host: '127.0.0.1', port: 0 });
      expect(address).toMatch(/^https:\/\//);
      const body = await new Promise<string>((resolve, reject) => {
        const req = request(`${address}/healthz`, { ca: ca.cert }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve(text));
        });
        req.once('error', reject);
        req.end();
      });
      expect(JSON.parse(body)).toEqual({ status: 'healthy', service: 'tls-service' });
    } finally {
      await service.app.close();
    }
  });
});

describe('cluster service framework: framework-level errors', () => {
  test('a malformed percent-escape answers 400 {"detail"}', async () => {
    const h = await makeService();
    try {
      const res = await h.service.app.inject({ method: 'GET', url: '/api/v1/jobs%zz' });
      expect([res.statusCode, res.json()]).toEqual([400, { detail: 'Malformed request URL' }]);
    } finally {
      await h.service.app.close();
    }
  });
});
