import {
  chooseTarget,
  isPathAllowed,
  isValidHost,
  parseServingPath,
  resolveEndpoint,
  type InferenceEndpoint,
} from '../../../cluster/inference-proxy/src/endpoint.js';

const REGION = 'us-east-1';

const record = (extra: Record<string, unknown> = {}) => ({
  endpoint_name: 'llama',
  regions: { [REGION]: { state: 'running' }, 'eu-west-1': { state: 'stopped' } },
  service: 'llama.models.svc.cluster.local',
  serving_paths: ['/v1/chat/completions', '/v1/models/*'],
  health_path: '/health',
  updated_at: '2025-01-01T00:00:00Z',
  ...extra,
});

function ready(extra: Record<string, unknown> = {}): InferenceEndpoint {
  const r = resolveEndpoint(record(extra), REGION);
  if (r.kind !== 'ready') throw new Error(`expected ready, got ${JSON.stringify(r)}`);
  return r.endpoint;
}

describe('resolveEndpoint', () => {
  test('a running record resolves with defaults filled in', () => {
    expect(ready()).toEqual({
      name: 'llama',
      service: 'llama.models.svc.cluster.local',
      port: 8443,
      canary: undefined,
      proxyService: undefined,
      servingPaths: [
        { kind: 'exact', path: '/v1/chat/completions' },
        { kind: 'prefix', path: '/v1/models' },
      ],
      healthPath: '/health',
      updatedAt: '2025-01-01T00:00:00Z',
    });
  });

  test('canary port defaults to the endpoint port; hosts are lower-cased', () => {
    const e = ready({ port: 9000, service: 'LLAMA.svc', canary: { service: 'Canary.svc', weight: 12.5 } });
    expect(e.service).toBe('llama.svc');
    expect(e.canary).toEqual({ service: 'canary.svc', port: 9000, weight: 12.5 });
  });

  test.each([
    [{ regions: { [REGION]: { state: 'stopped' } } }, 'stopped'],
    [{ regions: { 'eu-west-1': { state: 'running' } } }, undefined],
    [{ regions: {} }, undefined],
  ])('a record not running here is not_running (%j)', (extra, state) => {
    expect(resolveEndpoint(record(extra), REGION)).toEqual({ kind: 'not_running', state });
  });

  test('routing fields are not checked for a record that is not running here', () => {
    expect(
      resolveEndpoint(record({ regions: { [REGION]: { state: 'creating' } }, service: undefined }), REGION),
    ).toEqual({ kind: 'not_running', state: 'creating' });
  });

  test.each<[string, unknown]>([
    ['not an object', 'llama'],
    ['no name', { ...record(), endpoint_name: undefined }],
    ['regions missing', { ...record(), regions: undefined }],
    ['region entry a string', record({ regions: { [REGION]: 'running' } })],
    ['service with a scheme', record({ service: 'https://llama' })],
    ['service with user info', record({ service: 'a@llama' })],
    ['service empty', record({ service: '' })],
    ['port as a string', record({ port: '8443' })],
    ['port zero', record({ port: 0 })],
    ['canary without service', record({ canary: { weight: 10 } })],
    ['canary weight negative', record({ canary: { service: 'c.svc', weight: -1 } })],
    ['canary weight NaN-ish', record({ canary: { service: 'c.svc', weight: '10' } })],
    ['proxy_service not a host', record({ proxy_service: 'router:9000' })],
    ['serving_paths missing', record({ serving_paths: undefined })],
    ['serving path with a query', record({ serving_paths: ['/v1?x=1'] })],
    ['serving path with ..', record({ serving_paths: ['/v1/../admin'] })],
    ['serving path with //', record({ serving_paths: ['/v1//x'] })],
    ['serving path escaped', record({ serving_paths: ['/v1/%2e%2e'] })],
    ['health path relative', record({ health_path: 'health' })],
    ['updated_at a number', record({ updated_at: 5 })],
  ])('%s → invalid', (_label, doc) => {
    expect(resolveEndpoint(doc, REGION).kind).toBe('invalid');
  });
});

describe('serving paths', () => {
  test('exact entries match only themselves; "/x/*" matches /x and beneath on whole segments', () => {
    const e = ready({ serving_paths: ['/generate', '/v1/models/*'], health_path: '/healthz' });
    const allowed = ['/generate', '/v1/models', '/v1/models/', '/v1/models/a/b', '/healthz'];
    const refused = ['/generate/', '/generatex', '/v1/modelsx', '/v1', '/', '/health'];
    for (const p of allowed) expect({ p, ok: isPathAllowed(e, p) }).toEqual({ p, ok: true });
    for (const p of refused) expect({ p, ok: isPathAllowed(e, p) }).toEqual({ p, ok: false });
  });

  test('"/" allows only the root; "/*" allows every path', () => {
    expect(isPathAllowed(ready({ serving_paths: ['/'] }), '/')).toBe(true);
    expect(isPathAllowed(ready({ serving_paths: ['/'] }), '/x')).toBe(false);
    expect(isPathAllowed(ready({ serving_paths: ['/*'] }), '/any/thing')).toBe(true);
  });

  test('no health path means none is allowed beyond the serving paths', () => {
    expect(isPathAllowed(ready({ health_path: undefined }), '/health')).toBe(false);
  });

  test('"*" anywhere but a final "/*" is refused', () => {
    expect(() => parseServingPath('/v1/*x')).toThrow();
    expect(() => parseServingPath('/v1*')).toThrow();
  });
});

describe('hosts', () => {
  test.each(['llama.models.svc.cluster.local', 'a', '10.0.0.1', 'x-1.y'])('%s is a host', (h) => {
    expect(isValidHost(h)).toBe(true);
  });
  test.each(['', '-a', 'a-', 'a..b', 'a b', 'a/b', 'a:1', '::1', 'a_b', `${'a'.repeat(64)}.svc`])(
    '%j is not',
    (h) => {
      expect(isValidHost(h)).toBe(false);
    },
  );
});

describe('chooseTarget', () => {
  const sequence = (...values: number[]) => {
    const queue = [...values];
    return () => {
      const v = queue.shift();
      if (v === undefined) throw new Error('random drawn more often than expected');
      return v;
    };
  };

  test('weight w sends draws below w% to the canary', () => {
    const e = ready({ canary: { service: 'c.svc', weight: 25 } });
    const random = sequence(0, 0.2499, 0.25, 0.99);
    expect([1, 2, 3, 4].map(() => chooseTarget(e, random).role)).toEqual([
      'canary',
      'canary',
      'primary',
      'primary',
    ]);
  });

  test('no draw is made without a real choice', () => {
    const never = sequence();
    expect(chooseTarget(ready(), never)).toEqual({
      role: 'primary',
      host: 'llama.models.svc.cluster.local',
      port: 8443,
    });
    expect(chooseTarget(ready({ canary: { service: 'c.svc', weight: 0 } }), never).role).toBe('primary');
    expect(chooseTarget(ready({ canary: { service: 'c.svc', weight: 100, port: 1 } }), never)).toEqual({
      role: 'canary',
      host: 'c.svc',
      port: 1,
    });
    expect(
      chooseTarget(ready({ proxy_service: 'router.svc', canary: { service: 'c.svc', weight: 50 } }), never),
    ).toEqual({ role: 'proxy', host: 'router.svc', port: 8443 });
  });
});
