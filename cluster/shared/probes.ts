/** Kubernetes probes every service serves: GET /healthz (liveness) and GET /readyz (readiness). */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';

/** A readiness check: true when that part of the service can serve. */
export type ReadinessCheck = () => boolean | Promise<boolean>;

export interface ProbeOptions {
  service: string;
  readiness: Record<string, ReadinessCheck>;
  /** True once shutdown has begun: readiness fails so the load balancer drains the pod. */
  isDraining: () => boolean;
}

const StringMap = Type.Record(Type.String(), Type.String());

export function registerProbes(app: FastifyInstance, opts: ProbeOptions): void {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'kubernetes_health_check_healthz_get',
        summary: 'Kubernetes liveness probe',
        response: { 200: StringMap },
      },
    },
    async () => ({ status: 'healthy', service: opts.service }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'kubernetes_readiness_check_readyz_get',
        summary: 'Kubernetes readiness probe',
        response: { 200: StringMap, 503: StringMap },
      },
    },
    async (_request, reply) => {
      const body: Record<string, string> = {};
      let ready = !opts.isDraining();
      if (!ready) body.shutdown = 'draining';
      for (const [name, check] of Object.entries(opts.readiness)) {
        let ok = false;
        try {
          ok = await check();
        } catch {
          ok = false;
        }
        body[name] = ok ? 'ok' : 'not_ready';
        ready &&= ok;
      }
      reply.code(ready ? 200 : 503);
      return { status: ready ? 'ready' : 'not_ready', service: opts.service, ...body };
    },
  );
}
