/**
 * health-monitor's answers (docs/service-framework.md): the descriptor, cluster health, utilization and
 * operational status. Response schemas of its routes: Fastify serialises through them, so a field left
 * out here is left out of the answer.
 */
import { Type, type Static } from 'typebox';
import { EnvelopeRejected, ErrorDetail, HTTPValidationError } from './errors.js';
import { Nullable, NullableNumber } from './schema.js';

const Where = { cluster: Type.String(), region: Type.String() };

const HealthMonitorDescriptor = Type.Object({
  service: Type.String(),
  version: Type.String(),
  ...Where,
  description: Type.String(),
  endpoints: Type.Object({
    health: Type.String(),
    metrics: Type.String(),
    status: Type.String(),
    liveness: Type.String(),
    readiness: Type.String(),
  }),
});

/** One threshold check: ok, violated, disabled, unknown (not measurable) or not_applicable. */
const HealthCheck = Type.Object({
  status: Type.String(),
  threshold: Type.Number(),
  value: NullableNumber,
  unit: Type.String(),
  reason: Type.Optional(Type.String()),
});

const HealthChecks = Type.Object({
  cpu: HealthCheck,
  memory: HealthCheck,
  gpu: HealthCheck,
  pending_pods: HealthCheck,
});

const PodCounts = Type.Object({
  total: Type.Integer(),
  pending: Type.Integer(),
  running: Type.Integer(),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  unknown: Type.Integer(),
});

/**
 * GET /api/v1/health, 200 (healthy) or 503 (unhealthy): the checks when the cluster could be read, the
 * reason when it could not.
 */
export const ClusterHealth = Type.Object({
  status: Type.String({ description: 'healthy or unhealthy' }),
  ...Where,
  timestamp: Type.String(),
  reason: Type.Optional(Type.String()),
  checks: Type.Optional(HealthChecks),
  nodes: Type.Optional(Type.Object({ total: Type.Integer(), ready: Type.Integer() })),
  pods: Type.Optional(PodCounts),
});
export type ClusterHealth = Static<typeof ClusterHealth>;

const Cores = Type.Object({ cpu_cores: Type.Number(), memory_bytes: Type.Number(), gpus: Type.Number() });

const NodeMetrics = Type.Object({
  name: Type.String(),
  ready: Type.Boolean(),
  instance_type: Nullable(Type.String()),
  zone: Nullable(Type.String()),
  pods: Type.Integer(),
  allocatable: Cores,
  requested: Cores,
  /** Live usage from metrics.k8s.io; null when that API could not be read. */
  usage: Type.Union([Type.Object({ cpu_cores: Type.Number(), memory_bytes: Type.Number() }), Type.Null()]),
});

const ClusterUtilization = Type.Object({
  cpu: Type.Object({
    allocatable_cores: Type.Number(),
    used_cores: NullableNumber,
    requested_cores: Type.Number(),
    utilization_percent: NullableNumber,
  }),
  memory: Type.Object({
    allocatable_bytes: Type.Number(),
    used_bytes: NullableNumber,
    requested_bytes: Type.Number(),
    utilization_percent: NullableNumber,
  }),
  gpu: Type.Object({
    allocatable: Type.Number(),
    requested: Type.Number(),
    utilization_percent: NullableNumber,
  }),
});

const ClusterMetrics = Type.Object({
  ...Where,
  timestamp: Type.String(),
  utilization: ClusterUtilization,
  metrics_source: Type.Object({ status: Type.String(), error: Type.Optional(Type.String()) }),
  pods: PodCounts,
  nodes: Type.Array(NodeMetrics),
});

const HealthMonitorStatus = Type.Object({
  service: Type.String(),
  version: Type.String(),
  ...Where,
  health: Type.String(),
  kubernetes_api: Type.String({ description: 'ok or unavailable' }),
  last_refresh: Type.String(),
  refresh_interval_seconds: Type.Number(),
  thresholds: Type.Object({
    cpu_percent: Type.Number(),
    memory_percent: Type.Number(),
    gpu_percent: Type.Number(),
    pending_pods: Type.Number(),
  }),
  checks: Type.Optional(HealthChecks),
  reason: Type.Optional(Type.String()),
  node_count: Nullable(Type.Integer()),
});

/** Every operation answers these besides its own. */
const common = { 403: EnvelopeRejected, 422: HTTPValidationError };

export const HEALTH_MONITOR_RESPONSES = {
  root: { 200: HealthMonitorDescriptor, ...common },
  // Exempt from the envelope (a load balancer probes it): no 403.
  health: { 200: ClusterHealth, 503: ClusterHealth, 422: HTTPValidationError },
  metrics: {
    200: ClusterMetrics,
    503: ErrorDetail('The cluster snapshot could not be read'),
    ...common,
  },
  status: { 200: HealthMonitorStatus, ...common },
};
