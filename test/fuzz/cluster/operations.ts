/**
 * Every operation of every cluster service, read from the services' own /openapi.json (so it carries
 * the route schemas the services validate with), plus what the schema alone cannot say: values that
 * satisfy the rules beyond the schema (a policy-valid Job manifest, a deployment region, an existing
 * fixture), the statuses a valid request may get, and which records a rejected write must not leave.
 */
import fc from 'fast-check';
import type { ClusterServiceName } from '../../../contracts/routing.js';
import { jobManifest as clusterJobManifest } from '../../support/cluster-fixtures.js';
import { DEPLOYMENT_REGIONS, MODEL_ENDPOINT, type JsonSchema, type OpenApiDocument } from './harness.js';
import { INFERENCE_ENDPOINT_REFINEMENTS } from './inference-endpoints-refinements.js';
import { freeObject, valueOf } from './schema-arbitrary.js';

/** Fixtures every run can find (created by the suite before it starts). */
export const FIXTURE = {
  namespace: 'svc-jobs',
  job: 'fuzz-fixture-job',
  template: 'fuzz-fixture-template',
} as const;

export interface ParamSpec {
  name: string;
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  service: ClusterServiceName;
  method: string;
  /** OpenAPI path with `{param}` placeholders. */
  path: string;
  operationId: string;
  pathParams: ParamSpec[];
  query: ParamSpec[];
  headers: ParamSpec[];
  body?: { schema: JsonSchema; required: boolean };
  refinement: Refinement;
}

export type WriteCheck = 'queue' | 'template' | 'webhook' | 'cluster' | 'endpoint';

interface Refinement {
  /** Valid values of path parameters (an existing fixture or any well-formed name). */
  path?: Record<string, fc.Arbitrary<string>>;
  /** Valid values of query parameters, where the schema admits values the operation refuses. */
  query?: Record<string, fc.Arbitrary<unknown>>;
  headers?: Record<string, fc.Arbitrary<string>>;
  /** A valid body, where the schema alone admits bodies the operation refuses. */
  body?: fc.Arbitrary<unknown>;
  /** Statuses a valid request may get (default 200). */
  valid?: number[];
  /** 5xx statuses the operation documents (503 from a health check). */
  documented5xx?: number[];
  /** 4xx statuses whose documented body is a structure, not `{"detail": string}` (per-resource reports). */
  structured4xx?: number[];
  /** What a rejected request of this write operation must leave unchanged. */
  write?: WriteCheck;
  /** Responses relayed from the model server (marked by x-gco-inference-target) are the model's own. */
  relayed?: boolean;
}

const dnsLabel = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/);
const allowedNamespace = fc.constantFrom('svc-jobs', 'default');
const jobName = fc.oneof(fc.constant(FIXTURE.job), dnsLabel);
const labelPart = fc.stringMatching(/^[a-z0-9]([-a-z0-9_.]{0,8}[a-z0-9])?$/);
const labelSelector = fc
  .array(fc.tuple(labelPart, fc.oneof(labelPart, fc.constant(''))), { minLength: 1, maxLength: 3 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join(','));
const ascii = fc.string({ maxLength: 20, unit: 'grapheme-ascii' });

/** A batch/v1 Job the validation policy accepts: trusted image, small requests, allowed namespace. */
export const jobManifest = fc
  .record({ name: dnsLabel, message: ascii, namespace: fc.option(allowedNamespace, { nil: undefined }) })
  .map(({ name, message, namespace }) =>
    clusterJobManifest(name, {
      command: ['echo', message],
      cpu: '10m',
      memory: '16Mi',
      ...(namespace ? { namespace } : {}),
    }),
  );

/** Spot fields come together, at or above the floor (docs/api-limits.md). */
const spotFields = fc.oneof(
  fc.constant({}),
  fc.record({
    max_spot_price: fc.double({ min: 0.000001, max: 10_000, noNaN: true }),
    spot_instance_type: fc.constantFrom('m5.large', 'g5.xlarge', 'p4d.24xlarge'),
  }),
);

const queuedJob = fc
  .tuple(
    fc.record(
      {
        manifest: jobManifest,
        target_region: fc.constantFrom(...DEPLOYMENT_REGIONS),
        namespace: allowedNamespace,
        priority: fc.integer({ min: 0, max: 100 }),
        labels: fc.option(fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), ascii, { maxKeys: 3 })),
      },
      { requiredKeys: ['manifest', 'target_region'] },
    ),
    spotFields,
  )
  .map(([job, spot]) => ({ ...job, ...spot }));

/** Template manifests: a Job whose values may hold placeholders (never in keys), with defaults for all. */
const templateBody = fc
  .record(
    {
      name: fc.string({ minLength: 1, maxLength: 63, unit: 'binary' }),
      description: fc.option(fc.string({ maxLength: 100 })),
      parameters: fc.option(freeObject),
    },
    { requiredKeys: ['name'] },
  )
  .chain((t) => jobManifest.map((manifest) => ({ ...t, manifest })));

/** Overrides that name neither {{name}} nor {{namespace}} and only fill placeholders with scalars. */
const templateOverrides = fc.option(
  fc.dictionary(
    fc.stringMatching(/^x_[a-z]{1,6}$/),
    fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean()),
    { maxKeys: 3 },
  ),
);

const webhookBody = fc.record(
  {
    // Port 9 (discard) refuses at once: deliveries to these webhooks fail fast and harm nothing.
    url: fc.stringMatching(/^[a-z0-9/]{0,20}$/).map((path) => `https://127.0.0.1:9/${path}`),
    events: fc.uniqueArray(fc.constantFrom('job.completed', 'job.failed', 'job.started'), {
      minLength: 1,
      maxLength: 3,
    }),
    namespace: fc.option(fc.string({ minLength: 1, maxLength: 63, unit: 'binary' })),
    secret: fc.option(fc.string({ minLength: 1, maxLength: 512 })),
  },
  { requiredKeys: ['url', 'events'] },
);

/** A bulk delete that deletes nothing the other operations rely on: always a dry run. */
const bulkDelete = fc
  .record(
    {
      label_selector: fc.option(labelSelector),
      namespace: fc.option(allowedNamespace),
      older_than_days: fc.option(fc.integer({ min: 1, max: 365 })),
      status: fc.option(fc.constantFrom('pending', 'running', 'completed', 'succeeded', 'failed')),
    },
    { requiredKeys: [] },
  )
  .map((b) => ({ ...b, dry_run: true }));

const submission = fc.record(
  {
    manifests: fc.array(fc.oneof(jobManifest, freeObject), { maxLength: 3 }),
    namespace: fc.option(fc.oneof(allowedNamespace, fc.string({ maxLength: 20 }))),
    dry_run: fc.boolean(),
    validate: fc.boolean(),
  },
  { requiredKeys: ['manifests'] },
);

const KUBE_OBJECT_PATH = { namespace: allowedNamespace, name: jobName };
const anyId = fc.oneof(fc.uuid(), fc.string({ minLength: 1, maxLength: 128, unit: 'binary' }));

const REFINEMENTS: Record<string, Refinement> = {
  // manifest-processor
  root__get: {},
  kubernetes_health_check_healthz_get: {},
  kubernetes_readiness_check_readyz_get: { documented5xx: [503] },
  health_check_api_v1_health_get: { valid: [200, 503], documented5xx: [503] },
  get_service_status_api_v1_status_get: {},
  get_job_validation_policy_api_v1_policy_get: {},
  submit_manifests_api_v1_manifests_post: {
    body: submission,
    valid: [200, 400],
    structured4xx: [400],
    write: 'cluster',
  },
  validate_manifests_api_v1_manifests_validate_post: { body: submission },
  get_resource_status_api_v1_manifests__namespace___name__get: {
    path: KUBE_OBJECT_PATH,
    valid: [200, 403, 404],
  },
  delete_resource_api_v1_manifests__namespace___name__delete: {
    path: { namespace: allowedNamespace, name: dnsLabel },
    valid: [200, 403, 404],
  },
  list_jobs_api_v1_jobs_get: { query: { namespace: allowedNamespace, label_selector: labelSelector } },
  bulk_delete_jobs_api_v1_jobs_delete: { body: bulkDelete },
  get_job_api_v1_jobs__namespace___name__get: { path: KUBE_OBJECT_PATH, valid: [200, 404] },
  delete_job_api_v1_jobs__namespace___name__delete: {
    // Never the fixture: the other operations look it up.
    path: { namespace: allowedNamespace, name: dnsLabel.filter((n) => n !== FIXTURE.job) },
    valid: [200, 404, 409],
  },
  get_job_events_api_v1_jobs__namespace___name__events_get: { path: KUBE_OBJECT_PATH, valid: [200, 404] },
  get_job_logs_api_v1_jobs__namespace___name__logs_get: {
    path: KUBE_OBJECT_PATH,
    query: { container: fc.constantFrom('main', 'sidecar') },
    valid: [200, 404, 409],
  },
  get_job_metrics_api_v1_jobs__namespace___name__metrics_get: { path: KUBE_OBJECT_PATH, valid: [200, 404] },
  get_job_pods_api_v1_jobs__namespace___name__pods_get: { path: KUBE_OBJECT_PATH, valid: [200, 404] },
  get_pod_logs_api_v1_jobs__namespace___name__pods__pod_name__logs_get: {
    path: { ...KUBE_OBJECT_PATH, pod_name: dnsLabel },
    query: { container: fc.constantFrom('main', 'sidecar') },
    valid: [200, 404, 409],
  },
  retry_job_api_v1_jobs__namespace___name__retry_post: {
    path: KUBE_OBJECT_PATH,
    valid: [200, 400, 404, 409],
    structured4xx: [400],
  },
  submit_job_to_queue_api_v1_queue_jobs_post: {
    body: queuedJob,
    headers: { 'idempotency-key': fc.uuid() },
    valid: [200],
    write: 'queue',
    structured4xx: [400],
  },
  list_queued_jobs_api_v1_queue_jobs_get: {
    query: { cursor: fc.constant(undefined), target_region: fc.constantFrom(...DEPLOYMENT_REGIONS) },
  },
  get_queued_job_api_v1_queue_jobs__job_id__get: { path: { job_id: anyId }, valid: [200, 404] },
  cancel_queued_job_api_v1_queue_jobs__job_id__delete: {
    path: { job_id: anyId },
    valid: [200, 404, 409],
  },
  poll_and_process_jobs_api_v1_queue_poll_post: {},
  get_queue_stats_api_v1_queue_stats_get: {},
  list_templates_api_v1_templates_get: {},
  create_template_api_v1_templates_post: { body: templateBody, valid: [200, 409], write: 'template' },
  get_template_api_v1_templates__name__get: {
    path: { name: fc.oneof(fc.constant(FIXTURE.template), fc.string({ minLength: 1, maxLength: 63 })) },
    valid: [200, 404],
  },
  delete_template_api_v1_templates__name__delete: {
    path: { name: fc.string({ minLength: 1, maxLength: 63 }).filter((n) => n !== FIXTURE.template) },
    valid: [200, 404],
  },
  create_job_from_template_api_v1_jobs_from_template__name__post: {
    path: { name: fc.oneof(fc.constant(FIXTURE.template), fc.string({ minLength: 1, maxLength: 63 })) },
    body: fc.record(
      { name: dnsLabel, namespace: allowedNamespace, parameters: templateOverrides },
      { requiredKeys: ['name'] },
    ),
    valid: [200, 400, 404, 409],
    structured4xx: [400],
  },
  list_webhooks_api_v1_webhooks_get: {},
  create_webhook_api_v1_webhooks_post: { body: webhookBody, write: 'webhook' },
  delete_webhook_api_v1_webhooks__webhook_id__delete: { path: { webhook_id: anyId }, valid: [200, 404] },
  list_cost_reports_api_v1_cost_reports_get: {},
  generate_cost_report_api_v1_cost_reports_post: {},
  get_cost_status_api_v1_cost_status_get: {},
  ...INFERENCE_ENDPOINT_REFINEMENTS,
  // health-monitor (root, probes and health as above)
  get_metrics_api_v1_metrics_get: { documented5xx: [503] },
  get_status_api_v1_status_get: {},
  // inference-proxy: unknown endpoints and paths outside the allowlist are 404; the model answers the rest.
  ...Object.fromEntries(
    ['root', 'path'].flatMap((kind) =>
      ['get', 'post', 'head'].map((method) => [
        kind === 'root'
          ? `proxy_inference_root_inference__endpoint_name__${method}`
          : `proxy_inference_path_inference__endpoint_name___upstream_path__${method}`,
        {
          path: {
            endpoint_name: fc.oneof(fc.constant(MODEL_ENDPOINT), dnsLabel),
            upstream_path: fc.constantFrom('v1/completions', 'v1/models/local', 'health', 'v1/other'),
          },
          body: fc.record({ prompt: ascii, max_tokens: fc.integer({ min: 1, max: 4 }) }),
          valid: [200, 400, 404, 405],
          relayed: true,
        } satisfies Refinement,
      ]),
    ),
  ),
  // cost-monitor
  list_reports_internal_reports_get: {},
  generate_adhoc_report_internal_reports_post: { valid: [201] },
  get_status_internal_status_get: {},
};

/** The operations of one service's document, each with its refinement (or none: a gap the suite reports). */
export function operationsOf(service: ClusterServiceName, doc: OpenApiDocument): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = (where: string) =>
        (op.parameters ?? [])
          .filter((p) => p.in === where)
          .map((p) => ({ name: p.name, required: p.required === true, schema: p.schema }));
      const bodySchema = op.requestBody?.content['application/json']?.schema;
      ops.push({
        service,
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        pathParams: params('path'),
        query: params('query'),
        headers: params('header'),
        ...(bodySchema ? { body: { schema: bodySchema, required: op.requestBody?.required === true } } : {}),
        refinement: REFINEMENTS[op.operationId] ?? {},
      });
    }
  }
  return ops;
}

/** A valid value for one parameter: the refinement's, or the schema's. */
export function paramValue(op: Operation, where: 'path' | 'query' | 'headers', p: ParamSpec) {
  const refined = op.refinement[where]?.[p.name];
  if (refined) return refined;
  // A path parameter without a refinement: any value the schema admits, in its characters' full range.
  return valueOf(p.schema);
}
