/**
 * Prometheus metrics. Each service owns its Registry (never prom-client's global one) so several
 * services can share a process, as they do in the local platform and in tests.
 */
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

export interface ServiceMetrics {
  readonly registry: Registry;
  readonly envelopeRejections: Counter<'reason'>;
}

export function createServiceMetrics(service: string, version: string): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service, version });
  // The event-loop delay histogram samples with a timer (perf_hooks.monitorEventLoopDelay); its default 10 ms
  // resolution wakes an idle service 100 times a second. Every 100 ms still records a blocked loop in full
  // (the late timer measures the whole stall). https://nodejs.org/api/perf_hooks.html#perf_hooksmonitoreventloopdelayoptions
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  const envelopeRejections = new Counter({
    name: 'envelope_rejections_total',
    help: 'Requests refused because the HMAC envelope did not verify, by reason',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  return { registry, envelopeRejections };
}

/** Request counters and latency histograms labelled by route pattern (bounded cardinality), plus GET /metrics. */
export function registerHttpMetrics(app: FastifyInstance, metrics: ServiceMetrics): void {
  const labelNames = ['method', 'route', 'status_code'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered',
    labelNames,
    registers: [metrics.registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests',
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [metrics.registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status_code: String(reply.statusCode),
    };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
