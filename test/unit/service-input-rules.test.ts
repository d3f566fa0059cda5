/**
 * The service framework's one rule set for every input (docs/service-framework.md, "Request bodies",
 * "Validation rules", "OPTIONS"; docs/api-limits.md): bodies are JSON objects with no unknown field, a
 * non-JSON body is 415, an absent all-optional body is `{}`, nesting is bounded before parsing, text
 * parameters follow pydantic's lax rules (integers: decimal digits only), error bodies stay small,
 * every path answers OPTIONS, and nothing Fastify says about a URL is echoed.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Type } from 'typebox';
import { EnvelopeVerifier, signEnvelope } from '../../contracts/envelope/envelope.js';
import { staticKeySource } from '../../contracts/envelope/signing-keys.js';
import { silentServiceLogger } from '../../cluster/shared/logger.js';
import { createService, type Service } from '../../cluster/shared/service.js';
import { ERROR_HINT } from '../../cluster/shared/validation.js';

const KEY = 'input-rules-test-key-0123456789abcdef';

let service: Service;

beforeAll(async () => {
  service = await createService({
    name: 'input-rules',
    version: '1.0.0',
    description: 'input rules under test',
    envelope: new EnvelopeVerifier({ keys: staticKeySource({ current: KEY }) }),
    logger: silentServiceLogger(),
    routes: (app) => {
      app.post(
        '/required',
        {
          schema: {
            body: Type.Object({
              name: Type.String({ maxLength: 8, [ERROR_HINT]: 'use a short name' }),
              free: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
            }),
          },
        },
        async (request) => ({ body: request.body }),
      );
      app.post(
        '/optional',
        {
          schema: {
            body: Type.Object({
              window_hours: Type.Integer({ minimum: 1, maximum: 168, default: 24 }),
              include_rows: Type.Boolean({ default: false }),
            }),
          },
        },
        async (request) => ({ body: request.body }),
      );
      app.post('/no-body', async () => ({ ok: true }));
      app.get(
        '/items/:id',
        {
          schema: {
            params: Type.Object({ id: Type.String({ maxLength: 128 }) }),
            querystring: Type.Object({
              limit: Type.Integer({ minimum: 1, maximum: 1000, default: 50 }),
              flag: Type.Boolean({ default: false }),
              ratio: Type.Optional(Type.Number()),
            }),
          },
        },
        async (request) => ({ params: request.params, query: request.query }),
      );
      app.delete('/items/:id', async () => ({ deleted: true }));
    },
  });
});
afterAll(() => service.app.close());

function call(
  method: string,
  url: string,
  opts: { body?: string | Buffer; contentType?: string | null } = {},
) {
  const body = opts.body;
  const contentType = opts.contentType === undefined ? 'application/json' : opts.contentType;
  return service.app.inject({
    method: method as 'POST',
    url,
    ...(body === undefined ? {} : { payload: body }),
    headers: {
      ...(body !== undefined && contentType !== null ? { 'content-type': contentType } : {}),
      ...signEnvelope({ key: KEY, method, target: url, ...(body === undefined ? {} : { body }) }),
    },
  });
}

describe('JSON bodies', () => {
  test.each([
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonp',
    'application/json; charset=latin1',
  ])('%s → 415 {"detail"} with no echo of the body', async (type) => {
    const res = await call('POST', '/required', { body: 'name=secret-bytes', contentType: type });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({ detail: expect.stringMatching(/^Unsupported media type: /) });
    expect(res.body).not.toContain('secret-bytes');
  });

  test('application/json with a charset, +json and no content type at all are read as JSON', async () => {
    for (const contentType of ['application/json; charset=UTF-8', 'application/merge-patch+json', null]) {
      const res = await call('POST', '/required', { body: '{"name":"a"}', contentType });
      expect([contentType, res.statusCode, res.json()]).toEqual([contentType, 200, { body: { name: 'a' } }]);
    }
  });

  test('an unknown top-level field is extra_forbidden; free-form objects inside stay open', async () => {
    const res = await call('POST', '/required', { body: '{"name":"a","nmae":"b","free":{"any":1}}' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      { loc: ['body', 'nmae'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 'b' },
    ]);
    expect(
      (await call('POST', '/required', { body: '{"name":"a","free":{"x":{"y":[1]}}}' })).statusCode,
    ).toBe(200);
  });

  test('an absent body is {} when every field is optional, "Field required" otherwise', async () => {
    expect((await call('POST', '/optional')).json()).toEqual({
      body: { window_hours: 24, include_rows: false },
    });
    expect((await call('POST', '/optional', { body: '' })).statusCode).toBe(200);
    const missing = await call('POST', '/required');
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail).toEqual([
      { loc: ['body'], msg: 'Field required', type: 'missing', input: null },
    ]);
  });

  test('a body sent to a route without one is ignored, whatever its type', async () => {
    const res = await call('POST', '/no-body', {
      body: Buffer.from([0xff, 0x00]),
      contentType: 'text/plain',
    });
    expect(res.statusCode).toBe(200);
  });

  test('not UTF-8 → 400; a byte order mark is dropped', async () => {
    const bad = await call('POST', '/required', { body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ detail: expect.stringContaining('not valid UTF-8') });
    const bom = await call('POST', '/required', {
      body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"a"}')]),
    });
    expect(bom.statusCode).toBe(200);
  });

  test('not JSON → one json_invalid item with Python’s message, never the engine’s', async () => {
    const res = await call('POST', '/required', { body: '{"name": oops}' });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      {
        loc: ['body', 9],
        msg: 'JSON decode error',
        type: 'json_invalid',
        input: {},
        ctx: { error: 'Expecting value' },
      },
    ]);
  });

  test('5,000 levels deep → one 422 HTTPValidationError naming the limit, before anything parses', async () => {
    const res = await call('POST', '/required', {
      body: `{"free":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}`,
    });
    expect(res.statusCode).toBe(422);
    const [item] = res.json().detail as { loc: unknown[]; msg: string; type: string }[];
    expect(item).toMatchObject({ type: 'value_error', ctx: { max_depth: 64 } });
    expect(item?.loc.slice(0, 4)).toEqual(['body', 'free', 'a', 0]);
    expect(item?.msg).toMatch(/at most 64 levels deep/);
    expect(res.body).not.toMatch(/call stack/i);
  });

  test('lone surrogate escapes and __proto__ keys are refused', async () => {
    const surrogate = await call('POST', '/required', { body: '{"name":"\\ud800"}' });
    expect(surrogate.json().detail[0]).toMatchObject({ loc: ['body', 'name'], type: 'string_unicode' });
    const proto = await call('POST', '/required', { body: '{"name":"a","free":{"__proto__":{"x":1}}}' });
    expect(proto.json().detail[0]).toMatchObject({ loc: ['body', 'free', '__proto__'], type: 'value_error' });
  });

  test('a hint says what to do; a 1 MiB value comes back as an excerpt', async () => {
    const long = 'n'.repeat(1_000_000);
    const res = await call('POST', '/required', { body: JSON.stringify({ name: long }) });
    expect(res.statusCode).toBe(422);
    expect(res.body.length).toBeLessThan(4096);
    const [item] = res.json().detail as { msg: string; input: string }[];
    expect(item?.msg).toBe('String should have at most 8 characters; use a short name');
    expect(item?.input).toBe(`${'n'.repeat(2048)}…`);
  });

  test('a thousand bad fields give at most about 8 KB of items', async () => {
    const body = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`extra_${i}`, 'x'.repeat(100)]));
    const res = await call('POST', '/required', { body: JSON.stringify({ name: 'a', ...body }) });
    expect(res.statusCode).toBe(422);
    expect(res.body.length).toBeLessThan(10 * 1024);
    expect(res.json().detail.length).toBeGreaterThan(1);
  });
});

describe('text parameters', () => {
  test.each([
    ['limit=007', { limit: 7, flag: false }],
    ['limit=-0&flag=YES', 'less'],
    ['flag=on', { limit: 50, flag: true }],
    ['flag=0', { limit: 50, flag: false }],
    ['flag=F', { limit: 50, flag: false }],
    ['limit=5&limit=6', { limit: 6, flag: false }],
    ['ratio=.5', { limit: 50, flag: false, ratio: 0.5 }],
    ['ratio=1e3', { limit: 50, flag: false, ratio: 1000 }],
  ])('%s is read as pydantic reads it', async (query, expected) => {
    const res = await call('GET', `/items/x?${query}`);
    if (expected === 'less') {
      expect(res.json().detail[0]).toMatchObject({ loc: ['query', 'limit'], type: 'greater_than_equal' });
    } else {
      expect([res.statusCode, res.json().query]).toEqual([200, expected]);
    }
  });

  test.each(['0x10', '1e3', '+5', '1.0', ' 5', '1_000', ''])('limit=%j is int_parsing', async (value) => {
    const res = await call('GET', `/items/x?limit=${encodeURIComponent(value)}`);
    expect(res.statusCode).toBe(422);
    expect(res.json().detail).toEqual([
      {
        loc: ['query', 'limit'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        type: 'int_parsing',
        input: value,
      },
    ]);
  });

  test.each(['maybe', '2', '', 'truee'])('flag=%j is bool_parsing', async (value) => {
    const res = await call('GET', `/items/x?flag=${value}`);
    expect(res.json().detail[0]).toMatchObject({ loc: ['query', 'flag'], type: 'bool_parsing' });
  });

  test.each(['inf', 'NaN', '0x1'])('ratio=%s is float_parsing', async (value) => {
    const res = await call('GET', `/items/x?ratio=${value}`);
    expect(res.json().detail[0]).toMatchObject({ loc: ['query', 'ratio'], type: 'float_parsing' });
  });

  test('a path parameter over 100 characters is validated by its schema: a small 422, no 414 echo', async () => {
    const ok = await call('GET', `/items/${'a'.repeat(128)}`);
    expect(ok.statusCode).toBe(200);
    const long = await call('GET', `/items/${'a'.repeat(5000)}`);
    expect(long.statusCode).toBe(422);
    expect(long.json().detail[0]).toMatchObject({ loc: ['path', 'id'], type: 'string_too_long' });
  });

  test('a malformed escape is a fixed 400 that does not quote the URL', async () => {
    const res = await call('GET', '/items/%zz-secret');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ detail: 'Malformed request URL' });
  });
});

describe('OPTIONS', () => {
  test('every path answers 204 with the methods it serves; it needs the envelope like the others', async () => {
    const items = await call('OPTIONS', '/items/abc');
    expect(items.statusCode).toBe(204);
    expect(items.headers.allow).toBe('DELETE, GET, HEAD, OPTIONS');
    expect((await call('OPTIONS', '/required')).headers.allow).toBe('OPTIONS, POST');
    expect((await service.app.inject({ method: 'OPTIONS', url: '/required' })).statusCode).toBe(403);
    // Probes are exempt from the envelope, OPTIONS included.
    expect((await service.app.inject({ method: 'OPTIONS', url: '/healthz' })).statusCode).toBe(204);
    expect((await call('OPTIONS', '/nowhere')).statusCode).toBe(404);
  });

  test('OPTIONS is not an operation of the OpenAPI document', async () => {
    const doc = (await call('GET', '/openapi.json')).json<{ paths: Record<string, object> }>();
    for (const methods of Object.values(doc.paths)) expect(Object.keys(methods)).not.toContain('options');
  });
});
