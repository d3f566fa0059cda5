import {
  INFERENCE_PROXY_DEFAULTS,
  loadInferenceProxyEnvConfig,
} from '../../../cluster/inference-proxy/src/config.js';
import { EndpointCache, type EndpointSource } from '../../../cluster/inference-proxy/src/store.js';
import { classify } from '../../../cluster/inference-proxy/src/upstream.js';
import { EnvironmentError } from '../../../contracts/env/reader.js';

function countingSource(values: Record<string, unknown>) {
  const calls: string[] = [];
  const source: EndpointSource & { calls: string[] } = {
    calls,
    async fetch(name) {
      calls.push(name);
      return values[name];
    },
  };
  return source;
}

describe('EndpointCache', () => {
  test('reuses hits and misses for the TTL, then reads again', async () => {
    let now = 0;
    const source = countingSource({ a: { endpoint_name: 'a' } });
    const cache = new EndpointCache(source, { ttlMs: 5000, now: () => now });
    expect(await cache.get('a')).toEqual({ endpoint_name: 'a' });
    expect(await cache.get('missing')).toBeUndefined();
    now = 4999;
    await cache.get('a');
    await cache.get('missing');
    expect(source.calls).toEqual(['a', 'missing']);
    now = 5000;
    await cache.get('a');
    await cache.get('missing');
    expect(source.calls).toEqual(['a', 'missing', 'a', 'missing']);
  });

  test('concurrent lookups of one name share a single read', async () => {
    let release: (v: unknown) => void = () => undefined;
    const calls: string[] = [];
    const cache = new EndpointCache(
      {
        fetch: (name) => {
          calls.push(name);
          return new Promise((resolve) => (release = resolve));
        },
      },
      { ttlMs: 0 },
    );
    const both = Promise.all([cache.get('a'), cache.get('a')]);
    release({ endpoint_name: 'a' });
    expect(await both).toEqual([{ endpoint_name: 'a' }, { endpoint_name: 'a' }]);
    expect(calls).toEqual(['a']);
    // TTL 0: nothing is kept once the read is done.
    await Promise.all([cache.get('a'), Promise.resolve(release(undefined))]);
    expect(calls).toEqual(['a', 'a']);
  });

  test('failures are not cached', async () => {
    let fail = true;
    const cache = new EndpointCache(
      { fetch: async () => (fail ? Promise.reject(new Error('throttled')) : { endpoint_name: 'a' }) },
      { ttlMs: 5000 },
    );
    await expect(cache.get('a')).rejects.toThrow('throttled');
    fail = false;
    expect(await cache.get('a')).toEqual({ endpoint_name: 'a' });
  });

  test('holds at most maxEntries names, evicting the oldest', async () => {
    const source = countingSource({});
    const cache = new EndpointCache(source, { ttlMs: 60_000, maxEntries: 2 });
    await cache.get('a');
    await cache.get('b');
    await cache.get('c');
    expect(cache.size).toBe(2);
    await cache.get('b');
    await cache.get('a');
    expect(source.calls).toEqual(['a', 'b', 'c', 'a']);
  });
});

describe('loadInferenceProxyEnvConfig', () => {
  const base = {
    REGION: 'us-east-1',
    INFERENCE_ENDPOINTS_TABLE: 'gco-inference-endpoints',
    INTERNAL_CA_FILE: '/etc/ca.pem',
  };

  test('defaults', () => {
    expect(loadInferenceProxyEnvConfig(base)).toEqual({
      config: { region: 'us-east-1', ...INFERENCE_PROXY_DEFAULTS },
      tableName: 'gco-inference-endpoints',
      caFile: '/etc/ca.pem',
      tablesRegion: 'us-east-1',
      dynamodbEndpoint: undefined,
    });
  });

  test('overrides', () => {
    const s = loadInferenceProxyEnvConfig({
      ...base,
      GLOBAL_REGION: 'us-east-2',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      UPSTREAM_TIMEOUT_MS: '1500',
      UPSTREAM_IDLE_TIMEOUT_MS: '2000',
      ENDPOINT_CACHE_TTL_MS: '0',
    });
    expect(s.tablesRegion).toBe('us-east-2');
    expect(s.dynamodbEndpoint).toBe('http://127.0.0.1:8000');
    expect(s.config).toMatchObject({
      upstreamTimeoutMs: 1500,
      streamIdleTimeoutMs: 2000,
      endpointCacheTtlMs: 0,
    });
  });

  test('a malformed value names its variable', () => {
    expect(() => loadInferenceProxyEnvConfig({ ...base, UPSTREAM_TIMEOUT_MS: 'soon' })).toThrow(
      /UPSTREAM_TIMEOUT_MS: expected an integer/,
    );
  });

  test('every missing variable is reported at once', () => {
    let error: unknown;
    try {
      loadInferenceProxyEnvConfig({});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EnvironmentError);
    const message = (error as Error).message;
    expect(message).toContain('REGION');
    expect(message).toContain('INFERENCE_ENDPOINTS_TABLE');
    expect(message).toContain('INTERNAL_CA_FILE');
  });
});

describe('classify', () => {
  const err = (code: string) => Object.assign(new Error(code), { code });
  test.each([
    ['ECONNREFUSED', 'refused'],
    ['ECONNRESET', 'reset'],
    ['EPIPE', 'reset'],
    ['ENOTFOUND', 'dns'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'tls'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['EHOSTUNREACH', 'unreachable'],
  ])('%s → %s', (code, failure) => {
    expect(classify(err(code), false).failure).toBe(failure);
  });

  test('only a reset on a reused connection is retryable', () => {
    expect(classify(err('ECONNRESET'), true).staleConnection).toBe(true);
    expect(classify(err('ECONNRESET'), false).staleConnection).toBe(false);
    expect(classify(err('ECONNREFUSED'), true).staleConnection).toBe(false);
  });
});
