/**
 * `OPTIONS` on every path a service serves: 204 with `Allow` listing the path's methods
 * (docs/service-framework.md, "OPTIONS"). The regional API routes OPTIONS /api/v1/{proxy+} to the
 * services, so a path the spec lists must answer it rather than 404. It sits behind the envelope like
 * the path's other methods and is not an operation of the OpenAPI document.
 */
import type { FastifyInstance } from 'fastify';

export interface OptionsRoutes {
  /** Adds the OPTIONS route of every path seen so far; call once, after the service's routes. */
  register(): void;
}

/** Starts recording each path's methods (call before any route is added). */
export function trackRouteMethods(app: FastifyInstance): OptionsRoutes {
  const methods = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const set = methods.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) set.add(method);
    methods.set(route.url, set);
  });
  return {
    register() {
      for (const [url, set] of [...methods]) {
        if (set.has('OPTIONS')) continue;
        // GET routes also answer HEAD (Fastify adds it unless a route opts out with its own HEAD).
        const allow = [...new Set([...set, ...(set.has('GET') ? ['HEAD'] : []), 'OPTIONS'])].sort();
        app.options(url, { schema: { hide: true } }, async (_request, reply) =>
          reply.code(204).header('allow', allow.join(', ')).send(),
        );
      }
    },
  };
}
