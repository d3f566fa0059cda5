import { ALB_ROUTES, defaultRoute, listenerRules, matchesPrefix, resolve } from '../../contracts/routing.js';

describe('ALB routing table (seed 000)', () => {
  test('holds exactly the seed routes', () => {
    expect(ALB_ROUTES.map((r) => [r.prefix, r.service, r.port])).toEqual([
      ['/api/v1/health', 'health-monitor', 443],
      ['/api/v1/metrics', 'health-monitor', 443],
      ['/api/v1/manifests', 'manifest-processor', 443],
      ['/inference', 'inference-proxy', 443],
      ['/healthz', 'health-monitor', 443],
      ['/', 'manifest-processor', 443],
    ]);
  });

  test.each([
    // The seed's "delivered to" table: paths a service implements but never receives through the ALB.
    ['/', 'manifest-processor'],
    ['/api/v1/status', 'manifest-processor'],
    ['/readyz', 'manifest-processor'],
    ['/healthz', 'health-monitor'],
    ['/api/v1/health', 'health-monitor'],
    // and the seed's closing summary
    ['/api/v1/metrics', 'health-monitor'],
  ])('%s is delivered to %s', (path, service) => {
    expect(resolve(path).service).toBe(service);
  });

  test.each([
    ['/api/v1/manifests/validate', 'manifest-processor'],
    ['/api/v1/manifests/ns/name?kind=Job', 'manifest-processor'],
    ['/inference/llama/v1/chat/completions', 'inference-proxy'],
    ['/inference/llama', 'inference-proxy'],
    ['/api/v1/health/deep', 'health-monitor'],
    ['/api/v1/jobs', 'manifest-processor'],
    ['/api/v1/cost/reports', 'manifest-processor'],
    ['/metrics', 'manifest-processor'],
  ])('longest prefix wins: %s → %s', (path, service) => {
    expect(resolve(path).service).toBe(service);
  });

  test('prefixes match whole segments only', () => {
    expect(matchesPrefix('/inferencex', '/inference')).toBe(false);
    expect(resolve('/inferencex').service).toBe('manifest-processor');
    expect(resolve('/api/v1/healthcheck').service).toBe('manifest-processor');
    expect(resolve('/healthzz').service).toBe('manifest-processor');
    expect(matchesPrefix('/inference/', '/inference')).toBe(true);
  });

  test('the query string never takes part in matching', () => {
    expect(resolve('/readyz?x=/healthz').service).toBe('manifest-processor');
    expect(resolve('/healthz?probe=1').service).toBe('health-monitor');
  });

  test('listener rules: priority follows prefix length, catch-all is the default action', () => {
    const rules = listenerRules();
    expect(rules.map((r) => [r.priority, r.route.prefix])).toEqual([
      [10, '/api/v1/manifests'],
      [20, '/api/v1/metrics'],
      [30, '/api/v1/health'],
      [40, '/inference'],
      [50, '/healthz'],
    ]);
    expect(rules[3]?.pathPatterns).toEqual(['/inference', '/inference/*']);
    expect(defaultRoute().service).toBe('manifest-processor');
    // Every priority is unique, as ALB requires.
    expect(new Set(rules.map((r) => r.priority)).size).toBe(rules.length);
  });

  test('evaluating the listener rules in priority order reproduces resolve()', () => {
    const viaRules = (path: string) => {
      const hit = listenerRules().find((r) =>
        r.pathPatterns.some((p) => (p.endsWith('/*') ? path.startsWith(p.slice(0, -1)) : path === p)),
      );
      return (hit?.route ?? defaultRoute()).service;
    };
    for (const path of [
      '/',
      '/api/v1/health',
      '/api/v1/health/x',
      '/inference/a/b',
      '/healthz',
      '/x',
      '/readyz',
    ]) {
      expect(viaRules(path)).toBe(resolve(path).service);
    }
  });
});
