/** health-monitor's operations: the descriptor, health, metrics and status of the cluster (docs/service-framework.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { HEALTH_MONITOR_RESPONSES as RESPONSES } from '../../../contracts/api/health-monitor.js';
import { serviceUnavailable } from '../../shared/errors.js';
import type { ServiceApp } from '../../shared/service.js';
import type { HealthMonitorConfig } from './config.js';
import { evaluateHealth } from './evaluate.js';
import { SERVICE_NAME, SERVICE_VERSION } from './identity.js';
import type { SnapshotCache, SnapshotState } from './snapshot-cache.js';
import type { ClusterSnapshot } from './snapshot.js';

export interface HealthRoutesOptions {
  config: HealthMonitorConfig;
  cache: SnapshotCache;
}

function nodeView(n: ClusterSnapshot['nodes'][number]) {
  return {
    name: n.name,
    ready: n.ready,
    instance_type: n.instanceType,
    zone: n.zone,
    pods: n.pods,
    allocatable: {
      cpu_cores: n.allocatable.cpu,
      memory_bytes: n.allocatable.memory,
      gpus: n.allocatable.gpu,
    },
    requested: { cpu_cores: n.requested.cpu, memory_bytes: n.requested.memory, gpus: n.requested.gpu },
    usage: n.usage && { cpu_cores: n.usage.cpu, memory_bytes: n.usage.memory },
  };
}

/** The cluster and region every answer names. */
const where = (config: HealthMonitorConfig) => ({ cluster: config.clusterName, region: config.region });

/** GET /api/v1/health's body; its status decides 200 or 503. */
function healthBody(config: HealthMonitorConfig, state: SnapshotState) {
  if (!state.ok) {
    return {
      status: 'unhealthy',
      ...where(config),
      timestamp: state.at.toISOString(),
      reason: `Kubernetes API unavailable: ${state.error}`,
    };
  }
  const evaluation = evaluateHealth(state.snapshot, config.thresholds);
  return {
    status: evaluation.healthy ? 'healthy' : 'unhealthy',
    ...where(config),
    timestamp: state.snapshot.collectedAt.toISOString(),
    checks: evaluation.checks,
    nodes: {
      total: state.snapshot.nodes.length,
      ready: state.snapshot.nodes.filter((n) => n.ready).length,
    },
    pods: state.snapshot.pods,
  };
}

function rootRoute(app: ServiceApp, { config }: HealthRoutesOptions): void {
  app.get(
    '/',
    {
      schema: {
        operationId: 'root__get',
        summary: 'Basic service information',
        response: RESPONSES.root,
      },
    },
    async () => ({
      service: SERVICE_NAME,
      version: SERVICE_VERSION,
      ...where(config),
      description: 'Cluster health and resource utilization',
      endpoints: {
        health: '/api/v1/health',
        metrics: '/api/v1/metrics',
        status: '/api/v1/status',
        liveness: '/healthz',
        readiness: '/readyz',
      },
    }),
  );
}

function healthRoute(app: ServiceApp, { config, cache }: HealthRoutesOptions): void {
  app.get(
    '/api/v1/health',
    {
      schema: {
        operationId: 'health_check_api_v1_health_get',
        summary: '200 when the cluster is healthy, 503 when unhealthy',
        response: RESPONSES.health,
      },
    },
    async (_request, reply) => {
      const body = healthBody(config, await cache.current());
      return reply.code(body.status === 'healthy' ? 200 : 503).send(body);
    },
  );
}

function metricsRoute(app: ServiceApp, { config, cache }: HealthRoutesOptions): void {
  app.get(
    '/api/v1/metrics',
    {
      schema: {
        operationId: 'get_metrics_api_v1_metrics_get',
        summary: 'Resource utilization of the cluster and its nodes',
        response: RESPONSES.metrics,
      },
    },
    async () => {
      const state = await cache.current();
      if (!state.ok) throw serviceUnavailable(`Cluster metrics are unavailable: ${state.error}`);
      const evaluation = evaluateHealth(state.snapshot, config.thresholds);
      return {
        ...where(config),
        timestamp: state.snapshot.collectedAt.toISOString(),
        cluster: config.clusterName,
        utilization: evaluation.utilization,
        metrics_source: state.snapshot.metricsError
          ? { status: 'unavailable', error: state.snapshot.metricsError }
          : { status: 'ok' },
        pods: state.snapshot.pods,
        nodes: state.snapshot.nodes.map(nodeView),
      };
    },
  );
}

function statusRoute(app: ServiceApp, { config, cache }: HealthRoutesOptions): void {
  app.get(
    '/api/v1/status',
    {
      schema: {
        operationId: 'get_status_api_v1_status_get',
        summary: 'Operational information',
        response: RESPONSES.status,
      },
    },
    async () => {
      const state = await cache.current();
      const health = healthBody(config, state);
      return {
        service: SERVICE_NAME,
        version: SERVICE_VERSION,
        ...where(config),
        health: health.status,
        kubernetes_api: state.ok ? 'ok' : 'unavailable',
        last_refresh: state.at.toISOString(),
        refresh_interval_seconds: config.refreshIntervalSeconds,
        thresholds: {
          cpu_percent: config.thresholds.cpuPercent,
          memory_percent: config.thresholds.memoryPercent,
          gpu_percent: config.thresholds.gpuPercent,
          pending_pods: config.thresholds.pendingPods,
        },
        ...('checks' in health ? { checks: health.checks } : { reason: health.reason }),
        node_count: state.ok ? state.snapshot.nodes.length : (state.lastGood?.nodes.length ?? null),
      };
    },
  );
}

export const healthRoutes: FastifyPluginAsyncTypebox<HealthRoutesOptions> = async (app, options) => {
  for (const route of [rootRoute, healthRoute, metricsRoute, statusRoute]) route(app, options);
};
