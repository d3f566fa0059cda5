import { EnvelopeVerifier } from '../../../contracts/envelope/envelope.js';
import { EdgeHttpError } from '../../../lambda/shared/errors.js';
import {
  buildQuery,
  derivePath,
  forwardedFor,
  eventHeaders,
  prepareRequest,
  rejectForbidden,
  requestTarget,
  withEnvelope,
} from '../../../lambda/shared/proxy-request.js';
import { staticKeySource } from '../../../contracts/envelope/signing-keys.js';
import { restEvent } from './events.js';

const HOST = 'backend.gco.gco.internal';

function refusal(fn: () => unknown): EdgeHttpError {
  try {
    fn();
  } catch (error) {
    if (error instanceof EdgeHttpError) return error;
    throw error;
  }
  throw new Error('expected an EdgeHttpError');
}

describe('rejection rules', () => {
  test.each([
    'X-SVC-Target-Region',
    'x-svc-target-region',
    'X-Svc-TARGET-region',
    'X-GCO-Target-Region',
    'x-target-region',
  ])('%s is refused with 400 whatever its value', (name) => {
    const event = restEvent({ url: '/api/v1/jobs', headers: [[name, 'us-west-2']] });
    const error = refusal(() => rejectForbidden(event));
    expect(error.statusCode).toBe(400);
    expect(error.reason).toBe('target_region_header');
  });

  test('the header is found in the single-value map too (emulators that fill only `headers`)', () => {
    const event = {
      ...restEvent({ url: '/api/v1/jobs' }),
      multiValueHeaders: {},
      headers: { 'X-Svc-Target-Region': '' },
    };
    expect(refusal(() => rejectForbidden(event)).statusCode).toBe(400);
  });

  test('a base64-encoded body is refused with 400', () => {
    const event = restEvent({
      method: 'POST',
      url: '/api/v1/jobs',
      body: 'eyJhIjoxfQ==',
      isBase64Encoded: true,
    });
    const error = refusal(() => rejectForbidden(event));
    expect([error.statusCode, error.reason]).toEqual([400, 'base64_body']);
  });

  test.each(['GET', 'HEAD', 'get'])(
    'a %s with a body is refused with 400; without one it passes',
    (method) => {
      const error = refusal(() => rejectForbidden(restEvent({ method, url: '/api/v1/jobs', body: 'x' })));
      expect([error.statusCode, error.reason]).toEqual([400, 'body_on_bodiless_method']);
      expect(() => rejectForbidden(restEvent({ method, url: '/api/v1/jobs', body: '' }))).not.toThrow();
      expect(() => rejectForbidden(restEvent({ method, url: '/api/v1/jobs' }))).not.toThrow();
    },
  );

  test('POST, PUT, PATCH and DELETE keep their bodies', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(() => rejectForbidden(restEvent({ method, url: '/api/v1/jobs', body: '{}' }))).not.toThrow();
    }
  });

  test('an ordinary request passes', () => {
    expect(() =>
      rejectForbidden(restEvent({ url: '/api/v1/jobs', headers: [['X-Svc-Other', '1']] })),
    ).not.toThrow();
  });
});

describe('path derivation', () => {
  test('execute-api URL: event.path has no stage and is used as is, percent-encoding kept', () => {
    expect(derivePath(restEvent({ url: '/api/v1/jobs/svc-jobs/train%2F1' }))).toBe(
      '/api/v1/jobs/svc-jobs/train%2F1',
    );
  });

  test('custom domain with a base path mapping: the base path is cut off', () => {
    const event = restEvent({ url: '/api/v1/jobs', basePath: '/gco' });
    expect(event.path).toBe('/gco/api/v1/jobs');
    expect(derivePath(event)).toBe('/api/v1/jobs');
  });

  test('a stage prefix in event.path (some emulators) is cut off the same way', () => {
    expect(
      derivePath({
        ...restEvent({ url: '/inference/llama/v1/chat' }),
        path: '/prod/inference/llama/v1/chat',
      }),
    ).toBe('/inference/llama/v1/chat');
  });

  test('the prefix repeated inside the proxy part is kept (first occurrence wins)', () => {
    expect(derivePath(restEvent({ url: '/api/v1/manifests/api/v1/x' }))).toBe('/api/v1/manifests/api/v1/x');
  });

  test('without event.path the path is rebuilt from the decoded proxy parameter, re-encoded', () => {
    const event = { ...restEvent({ url: '/api/v1/x' }), path: '', pathParameters: { proxy: 'jobs/a b/ü' } };
    expect(derivePath(event)).toBe('/api/v1/jobs/a%20b/%C3%BC');
  });

  test('characters not allowed raw in a path are encoded once; valid escapes stay', () => {
    const event = { ...restEvent({ url: '/api/v1/x' }), path: '/api/v1/a b/%41/100%/é' };
    expect(derivePath(event)).toBe('/api/v1/a%20b/%41/100%25/%C3%A9');
  });

  test.each(['/api/v1/../internal', '/api/v1/jobs/./x', '/api/v1/%2e%2E/healthz', '/api/v1/%2e'])(
    'dot segments are refused: %s',
    (path) => {
      const event = { ...restEvent({ url: '/api/v1/x' }), path };
      expect(refusal(() => derivePath(event)).statusCode).toBe(400);
    },
  );
});

describe('query rebuilding', () => {
  test('multi-value keys keep every value in order; each component is encoded exactly once', () => {
    const event = restEvent({
      url: '/api/v1/jobs?tag=a&tag=b%26c&tag=%2541&q=x%3Dy%20z&empty=&plus=1%2B1&uni=%C3%BC',
    });
    const query = buildQuery(event);
    expect(query).toBe('tag=a&tag=b%26c&tag=%2541&q=x%3Dy%20z&empty=&plus=1%2B1&uni=%C3%BC');
    const parsed = new URLSearchParams(query);
    expect(parsed.getAll('tag')).toEqual(['a', 'b&c', '%41']);
    expect(parsed.get('q')).toBe('x=y z');
    expect(parsed.get('plus')).toBe('1+1');
  });

  test('non-adjacent repeats arrive grouped by API Gateway and are sent grouped', () => {
    expect(buildQuery(restEvent({ url: '/api/v1/jobs?a=1&b=2&a=3' }))).toBe('a=1&a=3&b=2');
  });

  test('falls back to the single-value map, and to no query at all', () => {
    const event = { ...restEvent({ url: '/api/v1/jobs' }), queryStringParameters: { limit: '5' } };
    expect(buildQuery(event)).toBe('limit=5');
    expect(requestTarget(restEvent({ url: '/api/v1/jobs' }))).toBe('/api/v1/jobs');
    expect(requestTarget(restEvent({ url: '/api/v1/jobs?limit=5' }))).toBe('/api/v1/jobs?limit=5');
  });

  test('a lone surrogate cannot be encoded: 400', () => {
    const event = {
      ...restEvent({ url: '/api/v1/jobs' }),
      multiValueQueryStringParameters: { a: ['\ud800'] },
    };
    expect(refusal(() => buildQuery(event)).statusCode).toBe(400);
  });
});

describe('header rules', () => {
  const event = restEvent({
    method: 'POST',
    url: '/api/v1/jobs',
    body: '{"name":"x"}',
    requestId: 'apigw-req-42',
    sourceIp: '198.51.100.9',
    headers: [
      ['Authorization', 'AWS4-HMAC-SHA256 Credential=AKIA/…, Signature=abc'],
      ['X-Amz-Date', '20250101T000000Z'],
      ['X-Amz-Security-Token', 'secret-token'],
      ['x-amz-content-sha256', 'UNSIGNED-PAYLOAD'],
      ['X-Svc-Signature', 'f'.repeat(64)],
      ['x-svc-nonce', '0'.repeat(32)],
      ['Host', 'abc.execute-api.us-east-2.amazonaws.com'],
      ['Connection', 'keep-alive, X-Custom-Hop'],
      ['X-Custom-Hop', 'drop me'],
      ['Keep-Alive', 'timeout=5'],
      ['Proxy-Authorization', 'Basic x'],
      ['TE', 'trailers'],
      ['Trailer', 'x'],
      ['Transfer-Encoding', 'chunked'],
      ['Upgrade', 'h2c'],
      ['Content-Length', '999'],
      ['X-Request-Id', 'caller-chosen'],
      ['X-Forwarded-For', '192.0.2.1, 198.51.100.9'],
      ['Content-Type', 'application/json'],
      ['Accept', 'application/json'],
      ['X-Trace', 'one'],
      ['x-trace', 'two'],
    ],
  });
  const prepared = prepareRequest(event, { hostHeader: HOST });

  test('caller credentials, envelope headers, hop-by-hop and host never pass', () => {
    const names = Object.keys(prepared.headers);
    for (const name of names) {
      expect(name).toBe(name.toLowerCase());
      expect(name).not.toMatch(
        /^(authorization|x-amz-|x-svc-|connection|keep-alive|proxy-|te$|trailer|transfer-encoding|upgrade|x-custom-hop)/,
      );
    }
    expect(JSON.stringify(prepared.headers)).not.toMatch(/secret-token|AKIA|Signature=abc|execute-api/);
  });

  test('the proxy sets host, x-request-id, x-forwarded-for and content-length itself', () => {
    expect(prepared.headers['host']).toBe(HOST);
    expect(prepared.headers['x-request-id']).toBe('apigw-req-42');
    expect(prepared.headers['x-forwarded-for']).toBe('192.0.2.1, 198.51.100.9');
    expect(prepared.headers['content-length']).toBe(String(Buffer.byteLength('{"name":"x"}')));
  });

  test('ordinary headers pass, repeated ones with every value', () => {
    expect(prepared.headers['content-type']).toBe('application/json');
    expect(prepared.headers['accept']).toBe('application/json');
    expect(prepared.headers['x-trace']).toEqual(['one', 'two']);
  });

  test('method upper-cased, body as UTF-8 bytes, bodyless GET without content-length', () => {
    expect(prepared.method).toBe('POST');
    expect(prepared.body?.toString('utf8')).toBe('{"name":"x"}');
    const get = prepareRequest(restEvent({ url: '/api/v1/jobs' }), { hostHeader: HOST });
    expect(get.body).toBeUndefined();
    expect(get.headers['content-length']).toBeUndefined();
    const del = prepareRequest(restEvent({ method: 'DELETE', url: '/api/v1/jobs' }), { hostHeader: HOST });
    expect(del.headers['content-length']).toBe('0');
  });

  test('x-forwarded-for: the chain ends with the source IP, appended when missing', () => {
    const headers = eventHeaders(restEvent({ url: '/x', headers: [['X-Forwarded-For', '10.0.0.1']] }));
    expect(forwardedFor(headers, '198.51.100.9')).toBe('10.0.0.1, 198.51.100.9');
    expect(forwardedFor(new Map(), '198.51.100.9')).toBe('198.51.100.9');
    expect(forwardedFor(new Map(), undefined)).toBeUndefined();
  });

  test('caller names that are also Object.prototype members stay names (events arrive as parsed JSON)', () => {
    const parsed = JSON.parse(
      '{"headers":{"__proto__":"a","constructor":"b"},"multiValueHeaders":{"__proto__":["a"],"constructor":["b"]},' +
        '"queryStringParameters":{"__proto__":"1","constructor":"2"},' +
        '"multiValueQueryStringParameters":{"__proto__":["1"],"constructor":["2"]}}',
    ) as Partial<ReturnType<typeof restEvent>>;
    const prepared = prepareRequest(
      { ...restEvent({ url: '/api/v1/jobs' }), ...parsed },
      { hostHeader: HOST },
    );
    expect(Object.entries(prepared.headers)).toEqual(
      expect.arrayContaining([
        ['__proto__', 'a'],
        ['constructor', 'b'],
      ]),
    );
    expect(prepared.target).toBe('/api/v1/jobs?__proto__=1&constructor=2');
  });

  test('a header value Node cannot send is a 400, not a crash', () => {
    const bad = restEvent({ url: '/api/v1/jobs', headers: [['X-Bad', 'a\nb']] });
    expect(refusal(() => prepareRequest(bad, { hostHeader: HOST })).statusCode).toBe(400);
  });
});

test('the signed request verifies with the envelope verifier (same target, same body)', async () => {
  const key = 'unit-signing-key-0123456789abcdef';
  const prepared = prepareRequest(
    restEvent({ method: 'POST', url: '/api/v1/jobs?namespace=svc-jobs&tag=a&tag=b%20c', body: '{"ü":1}' }),
    { hostHeader: HOST },
  );
  const signed = withEnvelope(prepared, key);
  const verifier = new EnvelopeVerifier({ keys: staticKeySource({ current: key }) });
  const result = await verifier.verify({
    method: signed.method,
    target: signed.target,
    headers: signed.headers,
    body: signed.body,
  });
  expect(result).toEqual({ ok: true });
  expect(signed.target).toBe('/api/v1/jobs?namespace=svc-jobs&tag=a&tag=b%20c');
});
