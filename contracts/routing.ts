/**
 * The internal ALB's routing table (seed 000, "Routing"). This is the ONE source for the regional
 * stack's listener rules, the local platform's ALB router and the tests: change a route here only.
 */

/**
 * The cluster services, by the one name each has everywhere: its folder under cluster/, its logs and
 * metrics, its Kubernetes Deployment, Service and ServiceAccount, and the local platform's endpoints.
 */
export const CLUSTER_SERVICES = [
  'manifest-processor',
  'health-monitor',
  'inference-proxy',
  'cost-monitor',
] as const;
export type ClusterServiceName = (typeof CLUSTER_SERVICES)[number];

/** Cluster services reachable through the internal load balancer. cost-monitor is deliberately absent. */
export type AlbServiceName = Exclude<ClusterServiceName, 'cost-monitor'>;

export interface AlbRoute {
  /** Path prefix matched on whole segments: `/inference` matches `/inference/x`, never `/inferencex`. */
  readonly prefix: string;
  readonly service: AlbServiceName;
  /** Target port (the pod's TLS sidecar). */
  readonly port: number;
}

/** The seed's table, in the seed's order. `/` is the catch-all (the listener's default action). */
export const ALB_ROUTES: readonly AlbRoute[] = Object.freeze([
  { prefix: '/api/v1/health', service: 'health-monitor', port: 443 },
  { prefix: '/api/v1/metrics', service: 'health-monitor', port: 443 },
  { prefix: '/api/v1/manifests', service: 'manifest-processor', port: 443 },
  { prefix: '/inference', service: 'inference-proxy', port: 443 },
  { prefix: '/healthz', service: 'health-monitor', port: 443 },
  { prefix: '/', service: 'manifest-processor', port: 443 },
]);

const CATCH_ALL_PREFIX = '/';

/** True when `path` (no query string) falls under `prefix` on a segment boundary. */
export function matchesPrefix(path: string, prefix: string): boolean {
  if (prefix === CATCH_ALL_PREFIX) return path.startsWith('/');
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** Strips the query string (and fragment) from a request target, leaving the path the ALB matches on. */
export function pathOf(target: string): string {
  const end = target.search(/[?#]/);
  return end === -1 ? target : target.slice(0, end);
}

/** The route that wins for a request target: the longest matching prefix. */
export function resolve(target: string, routes: readonly AlbRoute[] = ALB_ROUTES): AlbRoute {
  const path = pathOf(target);
  let best: AlbRoute | undefined;
  for (const route of routes) {
    if (matchesPrefix(path, route.prefix) && (!best || route.prefix.length > best.prefix.length))
      best = route;
  }
  if (!best) throw new Error(`No route for ${JSON.stringify(path)}: the routing table has no catch-all`);
  return best;
}

export interface ListenerRuleSpec {
  readonly priority: number;
  /** ALB path-pattern values: the prefix itself and everything below it on a segment boundary. */
  readonly pathPatterns: readonly [string, string];
  readonly route: AlbRoute;
}

/**
 * Listener rules for every non-catch-all route. ALB evaluates the lowest priority first, so longer
 * prefixes get lower numbers; ties (equal length) are ordered by name to keep priorities stable.
 * The catch-all `/` is the listener's default action, not a rule.
 */
export function listenerRules(routes: readonly AlbRoute[] = ALB_ROUTES): ListenerRuleSpec[] {
  return routes
    .filter((r) => r.prefix !== CATCH_ALL_PREFIX)
    .sort((a, b) => b.prefix.length - a.prefix.length || a.prefix.localeCompare(b.prefix))
    .map((route, i) => ({
      priority: (i + 1) * 10,
      pathPatterns: [route.prefix, `${route.prefix}/*`] as const,
      route,
    }));
}

/** The catch-all route, served by the listener's default action. */
export function defaultRoute(routes: readonly AlbRoute[] = ALB_ROUTES): AlbRoute {
  const route = routes.find((r) => r.prefix === CATCH_ALL_PREFIX);
  if (!route) throw new Error('The routing table has no catch-all "/" route');
  return route;
}
