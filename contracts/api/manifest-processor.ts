/**
 * manifest-processor's answers on the cluster side (docs/manifest-processor.md): what it says about
 * itself, manifest submission and validation, applied resources and jobs. The central-table operations
 * (queue, templates, webhooks) are in manifest-processor-central.ts. Response schemas of its routes:
 * Fastify serialises through them, so a field left out here is left out of the answer; Kubernetes
 * objects and free-form parts stay open objects.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { BodyTooLarge, EnvelopeRejected, ErrorDetail, HTTPValidationError } from './errors.js';
import { FreeFormObject, NullableInteger, NullableString, StringEnum, StringMap } from './schema.js';

/** Job statuses a filter accepts; `completed` means "finished" (succeeded or failed). */
export const JOB_STATUSES = ['pending', 'running', 'completed', 'succeeded', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
/** What one job is: every status but `completed`. */
const JOB_STATES = ['pending', 'running', 'succeeded', 'failed'] as const;

const Where = { cluster: Type.String(), region: Type.String() };

const ProcessorDescriptor = Type.Object({
  service: Type.String(),
  version: Type.String(),
  ...Where,
  description: Type.String(),
  endpoints: Type.Record(Type.String(), Type.String()),
});

const ProcessorHealth = Type.Object({
  status: Type.String({ description: 'healthy or unhealthy' }),
  service: Type.String(),
  ...Where,
  kubernetes_api: Type.String(),
  timestamp: Type.String(),
});

/** A central table as /api/v1/status reports it: its content, or `status: unavailable`. */
const CentralTableStatus = Type.Object({
  count: Type.Optional(Type.Integer()),
  names: Type.Optional(Type.Array(Type.String())),
  events: Type.Optional(Type.Array(Type.String())),
  status: Type.Optional(Type.String()),
});

const ProcessorStatus = Type.Object({
  service: Type.String(),
  version: Type.String(),
  ...Where,
  kubernetes_api: Type.String(),
  allowed_namespaces: Type.Array(Type.String()),
  default_job_namespace: Type.String(),
  resource_limits: Type.Object({
    max_cpu_cores: Type.Number(),
    max_memory_bytes: Type.Number(),
    max_gpus: Type.Number(),
  }),
  allowed_kinds: Type.Array(Type.String()),
  templates: Type.Optional(CentralTableStatus),
  webhooks: Type.Optional(CentralTableStatus),
  queue: Type.Optional(Type.Object({ region: Type.String(), worker_enabled: Type.Boolean() })),
  timestamp: Type.String(),
});

const LayerReport = Type.Object({
  status: Type.String({ description: 'ok or unavailable' }),
  error: Type.Optional(Type.String()),
  items: Type.Optional(Type.Array(Type.Unknown())),
});

const PolicyReport = Type.Object({
  policy: FreeFormObject,
  cluster_enforcement: Type.Object({ limit_ranges: LayerReport, resource_quotas: LayerReport }),
});

const PolicyViolation = Type.Object({
  index: Type.Integer({ description: 'Index of the manifest; -1 for the request-level namespace' }),
  field: Type.String(),
  rule: Type.String(),
  message: Type.String(),
});

export const ResourceResult = Type.Object({
  index: Type.Integer(),
  api_version: NullableString,
  kind: NullableString,
  name: NullableString,
  namespace: Type.String(),
  status: StringEnum(['created', 'updated', 'unchanged', 'failed', 'skipped']),
  uid: Type.Optional(Type.String()),
  message: Type.Optional(Type.String()),
  violations: Type.Optional(Type.Array(PolicyViolation)),
});
export type ResourceResult = Static<typeof ResourceResult>;

const ApplyReportFields = {
  success: Type.Boolean(),
  dry_run: Type.Boolean(),
  validated: Type.Boolean(),
  resources: Type.Array(ResourceResult),
  violations: Type.Array(PolicyViolation),
};
export const ApplyReport = Type.Object(ApplyReportFields);
export type ApplyReport = Static<typeof ApplyReport>;
export const ValidationReport = Type.Object({ valid: Type.Boolean(), ...ApplyReportFields });
export type ValidationReport = Static<typeof ValidationReport>;

const ResourceName = {
  api_version: Type.String(),
  kind: Type.String(),
  name: Type.String(),
  namespace: Type.String(),
};
const ResourceStatus = Type.Object({
  ...ResourceName,
  uid: NullableString,
  resource_version: NullableString,
  generation: NullableInteger,
  created_at: NullableString,
  labels: StringMap,
  status: Type.Unknown({ description: "The object's own status, as Kubernetes reports it" }),
});
export const ResourceDeleted = Type.Object({ deleted: Type.Boolean(), ...ResourceName });
export type ResourceDeleted = Static<typeof ResourceDeleted>;

export const JobView = Type.Object({
  name: Type.String(),
  namespace: Type.String(),
  uid: NullableString,
  status: StringEnum(JOB_STATES),
  created_at: NullableString,
  started_at: NullableString,
  completed_at: NullableString,
  labels: StringMap,
  annotations: StringMap,
  active: Type.Integer(),
  ready: Type.Integer(),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  parallelism: NullableInteger,
  completions: NullableInteger,
  backoff_limit: NullableInteger,
  images: Type.Array(Type.String()),
  conditions: Type.Array(
    Type.Object({
      type: Type.String(),
      status: Type.String(),
      reason: NullableString,
      message: NullableString,
      last_transition_time: NullableString,
    }),
  ),
});
export type JobView = Static<typeof JobView>;

export const JobList = Type.Object({
  jobs: Type.Array(JobView),
  count: Type.Integer(),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
  has_more: Type.Boolean(),
  sort: Type.String(),
});
export type JobList = Static<typeof JobList>;

export const BulkDeleteResult = Type.Object({
  dry_run: Type.Boolean(),
  matched: Type.Integer(),
  deleted: Type.Integer(),
  failed: Type.Integer(),
  jobs: Type.Array(
    Type.Object({
      namespace: Type.String(),
      name: Type.String(),
      uid: NullableString,
      status: StringEnum(JOB_STATES),
      deleted: Type.Boolean(),
      skipped: Type.Optional(Type.String()),
      error: Type.Optional(Type.String()),
    }),
  ),
});
export type BulkDeleteResult = Static<typeof BulkDeleteResult>;

const PodPlacement = Type.Object({
  name: Type.String(),
  phase: Type.String(),
  node: NullableString,
  instance_type: NullableString,
  zone: NullableString,
  capacity_type: NullableString,
  architecture: NullableString,
  node_gpus: NullableString,
  pod_ip: NullableString,
  started_at: NullableString,
  containers: Type.Array(
    Type.Object({
      name: Type.String(),
      image: Type.String(),
      ready: Type.Boolean(),
      restart_count: Type.Integer(),
      state: Type.String({ description: 'running, terminated or waiting' }),
      exit_code: NullableInteger,
      reason: NullableString,
    }),
  ),
});

export const JobDetails = Type.Object({ ...JobView.properties, pods: Type.Array(PodPlacement) });
export type JobDetails = Static<typeof JobDetails>;

export const JobDeleted = Type.Object({
  deleted: Type.Boolean(),
  namespace: Type.String(),
  name: Type.String(),
  uid: Type.Optional(Type.String()),
  propagation_policy: Type.String(),
});
export type JobDeleted = Static<typeof JobDeleted>;

const OfJob = { job: Type.String(), namespace: Type.String() };

export const JobEvents = Type.Object({
  ...OfJob,
  count: Type.Integer(),
  events: Type.Array(
    Type.Object({
      type: NullableString,
      reason: NullableString,
      message: NullableString,
      object: Type.Object({ kind: NullableString, name: NullableString }),
      count: Type.Integer(),
      first_timestamp: NullableString,
      last_timestamp: NullableString,
      source: NullableString,
    }),
  ),
});
export type JobEvents = Static<typeof JobEvents>;

/** Logs travel as JSON text fields (the answer is JSON, so it goes through this schema too). */
export const JobLogs = Type.Object({
  ...OfJob,
  pods: Type.Array(Type.Object({ pod: Type.String(), container: Type.String(), logs: Type.String() })),
  pending_pods: Type.Integer(),
});
export type JobLogs = Static<typeof JobLogs>;

export const PodLogs = Type.Object({
  ...OfJob,
  pod: Type.String(),
  container: Type.String(),
  logs: Type.String(),
});
export type PodLogs = Static<typeof PodLogs>;

export const JobMetrics = Type.Object({
  ...OfJob,
  timestamp: Type.String(),
  pods: Type.Array(
    Type.Object({
      name: Type.String(),
      phase: Type.String(),
      window: NullableString,
      containers: Type.Array(
        Type.Object({
          name: Type.String(),
          cpu: Type.String({ description: 'Kubernetes quantity' }),
          memory: Type.String({ description: 'Kubernetes quantity' }),
        }),
      ),
    }),
  ),
});
export type JobMetrics = Static<typeof JobMetrics>;

export const JobPods = Type.Object({ ...OfJob, count: Type.Integer(), pods: Type.Array(PodPlacement) });
export type JobPods = Static<typeof JobPods>;

export const JobRetried = Type.Object({
  retried: Type.Boolean(),
  original: Type.Object({ name: Type.String(), namespace: Type.String(), uid: NullableString }),
  job: JobView,
});
export type JobRetried = Static<typeof JobRetried>;

/** 400 when a manifest fails the validation policy: the violations; the orchestrator's own 400 is text. */
export const PolicyRejected = Type.Object(
  {
    detail: Type.Union([
      Type.String(),
      Type.Object({ message: Type.String(), violations: Type.Array(PolicyViolation) }),
    ]),
  },
  { description: 'Refused by the validation policy (its violations) or by the orchestrator' },
);
export type PolicyRejected = Static<typeof PolicyRejected>;

/**
 * A 400 that carries a report when the request was refused item by item, and `{"detail"}` when the body
 * itself could not be read.
 */
function ReportOrDetail<T extends TSchema>(report: T) {
  return Type.Union([report, ErrorDetail('The body could not be read')], {
    description: 'Refused: the per-resource report, or why the body could not be read',
  });
}

/** What every operation may answer besides its own (403 also for a namespace or kind not allowed). */
const COMMON_ERRORS = { 403: EnvelopeRejected, 422: HTTPValidationError };

/** Errors of an operation that reads or changes Kubernetes objects (shared/kube-errors.ts). */
const KUBE_ERRORS = {
  ...COMMON_ERRORS,
  400: ErrorDetail('Refused by the orchestrator'),
  404: ErrorDetail('Not found'),
  409: ErrorDetail('Conflict with the object as it is'),
  502: ErrorDetail('The Kubernetes API answered with an error'),
  503: ErrorDetail('Kubernetes API unavailable'),
};

export const MANIFEST_PROCESSOR_RESPONSES = {
  root: { 200: ProcessorDescriptor, ...COMMON_ERRORS },
  // Exempt from the envelope (a load balancer probes it): no 403.
  health: { 200: ProcessorHealth, 503: ProcessorHealth, 422: HTTPValidationError },
  status: { 200: ProcessorStatus, ...COMMON_ERRORS },
  policy: { 200: PolicyReport, ...COMMON_ERRORS },
  submitManifests: { 200: ApplyReport, ...KUBE_ERRORS, 400: ReportOrDetail(ApplyReport), 413: BodyTooLarge },
  validateManifests: { 200: ValidationReport, ...KUBE_ERRORS, 413: BodyTooLarge },
  resourceStatus: { 200: ResourceStatus, ...KUBE_ERRORS },
  deleteResource: { 200: ResourceDeleted, ...KUBE_ERRORS },
  listJobs: { 200: JobList, ...KUBE_ERRORS },
  bulkDelete: { 200: BulkDeleteResult, ...KUBE_ERRORS, 413: BodyTooLarge },
  job: { 200: JobDetails, ...KUBE_ERRORS },
  deleteJob: { 200: JobDeleted, ...KUBE_ERRORS },
  jobEvents: { 200: JobEvents, ...KUBE_ERRORS },
  jobLogs: { 200: JobLogs, ...KUBE_ERRORS },
  jobMetrics: {
    200: JobMetrics,
    ...KUBE_ERRORS,
    503: ErrorDetail('Kubernetes API or pod metrics (metrics.k8s.io) unavailable'),
  },
  jobPods: { 200: JobPods, ...KUBE_ERRORS },
  podLogs: { 200: PodLogs, ...KUBE_ERRORS },
  retryJob: { 200: JobRetried, ...KUBE_ERRORS, 400: PolicyRejected },
};
