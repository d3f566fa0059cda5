import {
  downstreamResponseHeaders,
  upstreamRequestHeaders,
} from '../../../cluster/inference-proxy/src/headers.js';
import { isPlausibleEndpointName, upstreamTargetOf } from '../../../cluster/inference-proxy/src/paths.js';

describe('upstreamTargetOf', () => {
  test.each([
    ['/inference/llama', { rawPath: '/', rawQuery: '', decodedPath: '/' }],
    ['/inference/llama/', { rawPath: '/', rawQuery: '', decodedPath: '/' }],
    ['/inference/llama?x=1', { rawPath: '/', rawQuery: '?x=1', decodedPath: '/' }],
    ['/inference/llama/?', { rawPath: '/', rawQuery: '?', decodedPath: '/' }],
    [
      '/inference/llama/v1/chat/completions?stream=true&a=%20',
      {
        rawPath: '/v1/chat/completions',
        rawQuery: '?stream=true&a=%20',
        decodedPath: '/v1/chat/completions',
      },
    ],
    ['/inference/llama/v1/models/', { rawPath: '/v1/models/', rawQuery: '', decodedPath: '/v1/models/' }],
    [
      '/inference/ll%61ma/v1/a%2Fb?q=a/b?c',
      { rawPath: '/v1/a%2Fb', rawQuery: '?q=a/b?c', decodedPath: '/v1/a/b' },
    ],
  ])('%s', (target, expected) => {
    expect(upstreamTargetOf(target)).toEqual(expected);
  });

  test.each([
    '/other/llama/x',
    '/inference/llama/../x',
    '/inference/llama/a/./x',
    '/inference/llama/a/%2E%2e/x',
    '/inference/llama/a/..%2Fx',
    '/inference/llama/a/..%5Cx',
    '/inference/llama/a/%zz',
    '/inference/llama/a/%0a',
    '/inference/llama/a/..',
    '/inference/llama/a/.',
    '/inference/llama/a\\..\\x',
    '/inference/llama/a/\u00e9/..',
  ])('%s is refused', (target) => {
    expect(upstreamTargetOf(target)).toBeUndefined();
  });

  // Dots that do not start a segment, and segments that only begin with dots, are ordinary names.
  test.each(['/v1/model.bin', '/a./b', '/a/b.', '/a/...', '/a/.well-known/x', '/a/..b', '/~user/@x:1;y=2'])(
    '%s is forwarded as is',
    (path) => {
      expect(upstreamTargetOf(`/inference/llama${path}`)).toEqual({
        rawPath: path,
        rawQuery: '',
        decodedPath: path,
      });
    },
  );

  test('the query is never inspected for dot segments', () => {
    expect(upstreamTargetOf('/inference/llama/x?path=../../etc')?.rawQuery).toBe('?path=../../etc');
  });

  test('implausible endpoint names', () => {
    expect(isPlausibleEndpointName('llama-3.1_8b')).toBe(true);
    expect(isPlausibleEndpointName('')).toBe(false);
    expect(isPlausibleEndpointName('a/b')).toBe(false);
    expect(isPlausibleEndpointName('a\nb')).toBe(false);
    expect(isPlausibleEndpointName('x'.repeat(256))).toBe(false);
  });
});

describe('upstreamRequestHeaders', () => {
  const ctx = {
    requestId: 'rid-1',
    remoteAddress: '10.1.2.3',
    protocol: 'https' as const,
    prefix: '/inference/llama',
    bodyLength: 12,
    method: 'POST',
  };

  test('drops hop-by-hop, Connection-listed, envelope and credential headers; adds forwarding headers', () => {
    const out = upstreamRequestHeaders(
      {
        host: 'alb.internal',
        connection: 'keep-alive, X-Private',
        'x-private': 'p',
        'keep-alive': 'timeout=5',
        'transfer-encoding': 'chunked',
        upgrade: 'websocket',
        'proxy-authorization': 'Basic x',
        te: 'trailers',
        trailer: 'x',
        expect: '100-continue',
        authorization: 'Bearer t',
        'x-svc-signature': 'f'.repeat(64),
        'x-svc-timestamp': '1',
        'content-length': '999',
        'content-type': 'application/json',
        accept: 'text/event-stream',
        'x-request-id': 'from-caller',
      },
      ctx,
    );
    expect(out).toEqual({
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'x-forwarded-for': '10.1.2.3',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'alb.internal',
      'x-forwarded-prefix': '/inference/llama',
      'x-request-id': 'rid-1',
      'content-length': '12',
    });
  });

  test('appends to an existing X-Forwarded-For chain and keeps the load balancer proto/host', () => {
    const out = upstreamRequestHeaders(
      { 'x-forwarded-for': '1.1.1.1, 2.2.2.2', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api' },
      { ...ctx, protocol: 'http' },
    );
    expect(out['x-forwarded-for']).toBe('1.1.1.1, 2.2.2.2, 10.1.2.3');
    expect(out['x-forwarded-proto']).toBe('https');
    expect(out['x-forwarded-host']).toBe('api');
  });

  test('an empty POST says content-length 0; a GET without a body says nothing', () => {
    expect(upstreamRequestHeaders({}, { ...ctx, bodyLength: undefined })['content-length']).toBe('0');
    expect(
      upstreamRequestHeaders({}, { ...ctx, bodyLength: undefined, method: 'GET' })['content-length'],
    ).toBeUndefined();
  });
});

describe('downstreamResponseHeaders', () => {
  test('keeps repeats and spelling, drops hop-by-hop and Connection-listed headers, sets our own', () => {
    // Node's raw header list: name, value, name, value, … (written here as pairs).
    const kept: [string, string][] = [
      ['Content-Type', 'text/event-stream'],
      ['Set-Cookie', 'a=1'],
      ['Set-Cookie', 'b=2'],
    ];
    const raw = [
      ...kept,
      ['Connection', 'keep-alive, X-Internal'],
      ['X-Internal', 'secret'],
      ['Keep-Alive', 'timeout=5'],
      ['Transfer-Encoding', 'chunked'],
      ['X-Request-Id', 'upstream'],
      ['x-gco-inference-target', 'spoof'],
    ].flat();
    const out = downstreamResponseHeaders(
      raw,
      { connection: 'keep-alive, X-Internal' },
      { 'x-request-id': 'rid', 'x-gco-inference-target': 'canary' },
    );
    expect(out).toEqual([...kept, ['x-request-id', 'rid'], ['x-gco-inference-target', 'canary']].flat());
  });
});
