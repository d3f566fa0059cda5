/**
 * manifest-processor's answers on the central tables (docs/queue.md, docs/templates.md,
 * docs/webhooks.md): the job queue, job templates and webhooks. Response schemas of their routes:
 * Fastify serialises through them, so a field left out here is left out of the answer; manifests,
 * template parameters and labels stay open objects.
 */
import { Type, type Static, type TInteger } from 'typebox';
import { QUEUE_STATUSES, type QueueStatus } from '../queue-states.js';
import { BodyTooLarge, EnvelopeRejected, ErrorDetail, HTTPValidationError } from './errors.js';
import { ApplyReport, JobView, PolicyRejected } from './manifest-processor.js';
import { FreeFormObject, NullableNumber, NullableString, StringEnum, StringMap } from './schema.js';

export const WEBHOOK_EVENTS = ['job.completed', 'job.failed', 'job.started'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

const K8sRef = Type.Object({ namespace: Type.String(), name: Type.String(), uid: Type.String() });

const QueuedJobFields = {
  job_id: Type.String(),
  status: StringEnum(QUEUE_STATUSES),
  target_region: Type.String(),
  namespace: Type.String(),
  job_name: Type.String({
    description: 'Name of the Kubernetes Job the queue creates for it (fixed at submission)',
  }),
  priority: Type.Integer(),
  labels: Type.Union([StringMap, Type.Null()]),
  max_spot_price: NullableNumber,
  spot_instance_type: NullableString,
  created_at: Type.String(),
  updated_at: Type.String(),
  attempts: Type.Integer(),
  claimed_by: NullableString,
  lease_expires_at: NullableString,
  waiting_reason: NullableString,
  next_check_at: NullableString,
  last_spot_price: NullableNumber,
  k8s: Type.Union([K8sRef, Type.Null()]),
  dispatched_at: NullableString,
  started_at: NullableString,
  finished_at: NullableString,
  cancel_reason: NullableString,
  error: NullableString,
  idempotency_key: NullableString,
};

/** A queued job without its manifest, as listings show it. */
export const QueuedJobSummary = Type.Object(QueuedJobFields);
export type QueuedJobSummary = Static<typeof QueuedJobSummary>;

/** One queued job with its manifest. */
export const QueuedJob = Type.Object({ ...QueuedJobFields, manifest: FreeFormObject });
export type QueuedJob = Static<typeof QueuedJob>;

export const QueuedJobSubmitted = Type.Object({
  ...QueuedJobFields,
  manifest: FreeFormObject,
  idempotent_replay: Type.Boolean(),
});
export type QueuedJobSubmitted = Static<typeof QueuedJobSubmitted>;

export const QueuedJobList = Type.Object({
  jobs: Type.Array(QueuedJobSummary),
  count: Type.Integer(),
  limit: Type.Integer(),
  next_cursor: NullableString,
});
export type QueuedJobList = Static<typeof QueuedJobList>;

const JobError = Type.Object({ job_id: Type.String(), error: Type.String() });

/** What one worker pass did (POST /api/v1/queue/poll). */
const QueuePass = Type.Object({
  region: Type.String(),
  worker_id: Type.String(),
  requeued: Type.Array(Type.String()),
  dispatched: Type.Array(Type.Object({ job_id: Type.String(), k8s: K8sRef })),
  waiting: Type.Array(Type.Object({ job_id: Type.String(), reason: Type.String() })),
  retrying: Type.Array(JobError),
  failed: Type.Array(JobError),
  lost: Type.Array(Type.String()),
  synced: Type.Array(Type.Object({ job_id: Type.String(), status: StringEnum(QUEUE_STATUSES) })),
  errors: Type.Array(Type.String()),
});

const StatusCounts = Type.Object({
  total: Type.Integer(),
  ...(Object.fromEntries(QUEUE_STATUSES.map((status) => [status, Type.Integer()])) as Record<
    QueueStatus,
    TInteger
  >),
});

export const QueueStats = Type.Object({
  total: Type.Integer(),
  by_status: StatusCounts,
  by_region: Type.Record(Type.String(), StatusCounts),
  generated_at: Type.String(),
});
export type QueueStats = Static<typeof QueueStats>;

export const JobTemplate = Type.Object({
  name: Type.String(),
  description: NullableString,
  manifest: FreeFormObject,
  parameters: Type.Union([FreeFormObject, Type.Null()]),
  created_at: Type.String(),
  updated_at: Type.String(),
  placeholders: Type.Array(Type.String(), { description: 'Placeholder names in first-use order' }),
});
export type JobTemplate = Static<typeof JobTemplate>;

const JobTemplateList = Type.Object({ templates: Type.Array(JobTemplate), count: Type.Integer() });

export const TemplateDeleted = Type.Object({ deleted: Type.Boolean(), name: Type.String() });
export type TemplateDeleted = Static<typeof TemplateDeleted>;

/** The apply report of a job made from a template, 400 when the policy or the cluster refused it. */
const TemplateJobReport = Type.Object({ ...ApplyReport.properties, template: Type.String() });
export const TemplateJobCreated = Type.Object({ ...TemplateJobReport.properties, job: JobView });
export type TemplateJobCreated = Static<typeof TemplateJobCreated>;

export const WebhookView = Type.Object({
  webhook_id: Type.String(),
  url: Type.String(),
  events: Type.Array(StringEnum(WEBHOOK_EVENTS)),
  namespace: NullableString,
  has_secret: Type.Boolean(),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type WebhookView = Static<typeof WebhookView>;

const WebhookList = Type.Object({ webhooks: Type.Array(WebhookView), count: Type.Integer() });

const WebhookCreated = Type.Object({
  ...WebhookView.properties,
  warnings: Type.Optional(Type.Array(Type.String())),
});

export const WebhookDeleted = Type.Object({ deleted: Type.Boolean(), webhook_id: Type.String() });
export type WebhookDeleted = Static<typeof WebhookDeleted>;

const common = { 403: EnvelopeRejected, 422: HTTPValidationError };
const withBody = { ...common, 413: BodyTooLarge };
const notFound = { 404: ErrorDetail('Not found') };
const conflict = (description: string) => ({ 409: ErrorDetail(description) });
const unavailable = (what: string) => ({ 503: ErrorDetail(`${what} unavailable`) });

export const QUEUE_RESPONSES = {
  submit: {
    200: QueuedJobSubmitted,
    ...withBody,
    400: PolicyRejected,
    ...conflict('The Idempotency-Key was used with another body'),
    503: ErrorDetail('The job could not be stored exactly once; retry the request'),
  },
  list: { 200: QueuedJobList, ...common },
  get: { 200: QueuedJob, ...common, ...notFound },
  cancel: { 200: QueuedJob, ...common, ...notFound, ...conflict('A worker claimed the job') },
  poll: { 200: QueuePass, ...common },
  stats: { 200: QueueStats, ...common },
};

/** 400 of a job from a template: the report, or why the body could not be read. */
const TemplateJobRefused = Type.Union([TemplateJobReport, ErrorDetail('The body could not be read')], {
  description: 'Refused by the validation policy or the cluster (the report), or an unreadable body',
});

export const TEMPLATE_RESPONSES = {
  list: { 200: JobTemplateList, ...common, ...unavailable('Template store') },
  create: {
    200: JobTemplate,
    ...withBody,
    ...conflict('The name is taken'),
    ...unavailable('Template store'),
  },
  get: { 200: JobTemplate, ...common, ...notFound, ...unavailable('Template store') },
  delete: { 200: TemplateDeleted, ...common, ...notFound, ...unavailable('Template store') },
  createJob: {
    200: TemplateJobCreated,
    ...withBody,
    400: TemplateJobRefused,
    ...notFound,
    ...conflict('A job of that name exists'),
    502: ErrorDetail('The Kubernetes API answered with an error'),
    ...unavailable('Template store or Kubernetes API'),
  },
};

export const WEBHOOK_RESPONSES = {
  list: { 200: WebhookList, ...common, ...unavailable('Webhook store') },
  create: { 200: WebhookCreated, ...withBody, ...unavailable('Webhook store') },
  delete: { 200: WebhookDeleted, ...common, ...notFound, ...unavailable('Webhook store') },
};
