/**
 * POST /api/v1/queue/jobs: checks a QueuedJobRequest beyond its JSON schema (the target region is a
 * deployment region, spot fields come together, the manifest is a batch/v1 Job, the full validation
 * policy, the record fits a DynamoDB item), all before the first write, then queues it exactly once.
 */
import { itemSizeBytes, MAX_ITEM_BYTES } from '../../../shared/dynamo.js';
import { HttpError, RequestValidationError, type ValidationErrorItem } from '../../../shared/errors.js';
import { quoteList } from '../../../shared/validation.js';
import type { FieldCheck } from '../field-check.js';
import type { ValidationPolicy } from '../policy/index.js';
import { createExactlyOnce, requestHash, type SubmitOutcome } from './idempotency.js';
import { jobToItem, type QueuedJob } from './record.js';
import { MIN_SPOT_PRICE, SPOT_PRICE_HINT, type QueuedJobBody } from './schemas.js';
import type { QueueStore } from './store.js';

/** DynamoDB items stop at 400 KB; the manifest is stored as JSON text next to the record's fields. */
const MAX_MANIFEST_BYTES = 300_000;

/** Job ids are UUIDs: this stands in for one when the record's size is checked before it is written. */
const LONGEST_JOB_ID = '00000000-0000-0000-0000-000000000000';

/** The request with defaults applied and optional fields made explicit: what the idempotency hash covers. */
export interface NormalisedRequest {
  manifest: Record<string, unknown>;
  target_region: string;
  namespace: string;
  priority: number;
  labels: Record<string, string> | null;
  max_spot_price: number | null;
  spot_instance_type: string | null;
}

function literal(loc: string, input: unknown, expected: string): ValidationErrorItem {
  return {
    loc: ['body', 'manifest', loc],
    msg: `Input should be '${expected}'`,
    type: 'literal_error',
    input: input ?? null,
    ctx: { expected: `'${expected}'` },
  };
}

/** 422s a JSON schema cannot express; all of them at once, as FastAPI reports them. */
export function checkRequest(body: QueuedJobBody, deploymentRegions: readonly string[]): void {
  const items: ValidationErrorItem[] = [];
  // A job for a region no worker serves would wait forever: only the deployment's regions are accepted.
  if (!deploymentRegions.includes(body.target_region)) {
    const expected = quoteList(deploymentRegions);
    items.push({
      loc: ['body', 'target_region'],
      msg: `Input should be ${expected} (the regions of this deployment)`,
      type: 'enum',
      input: body.target_region,
      ctx: { expected },
    });
  }
  const price = body.max_spot_price ?? null;
  const type = body.spot_instance_type ?? null;
  if (price !== null && price < MIN_SPOT_PRICE) {
    items.push({
      loc: ['body', 'max_spot_price'],
      msg: `Input should be greater than or equal to ${MIN_SPOT_PRICE}; ${SPOT_PRICE_HINT}`,
      type: 'greater_than_equal',
      input: price,
      ctx: { ge: MIN_SPOT_PRICE },
    });
  }
  if (price !== null && type === null) {
    items.push({
      loc: ['body', 'spot_instance_type'],
      msg: 'Value error, spot_instance_type is required when max_spot_price is set',
      type: 'value_error',
      input: null,
    });
  }
  if (type !== null && price === null) {
    items.push({
      loc: ['body', 'max_spot_price'],
      msg: 'Value error, max_spot_price is required when spot_instance_type is set',
      type: 'value_error',
      input: null,
    });
  }
  // The queue runs batch/v1 Jobs only: anything else is a malformed request, not a policy decision.
  if (body.manifest.apiVersion !== 'batch/v1')
    items.push(literal('apiVersion', body.manifest.apiVersion, 'batch/v1'));
  if (body.manifest.kind !== 'Job') items.push(literal('kind', body.manifest.kind, 'Job'));
  if (items.length > 0) throw new RequestValidationError(items);
}

export function normalise(body: QueuedJobBody): NormalisedRequest {
  return {
    manifest: body.manifest,
    target_region: body.target_region,
    namespace: body.namespace,
    priority: body.priority,
    labels: body.labels ?? null,
    max_spot_price: body.max_spot_price ?? null,
    spot_instance_type: body.spot_instance_type ?? null,
  };
}

/** What a submission decides about a job; everything else starts out empty. */
export type JobSubmission = Pick<
  QueuedJob,
  | 'job_id'
  | 'target_region'
  | 'namespace'
  | 'priority'
  | 'labels'
  | 'manifest'
  | 'max_spot_price'
  | 'spot_instance_type'
  | 'idempotency_key'
  | 'request_hash'
>;

/** A job as it enters the queue: queued, unclaimed, never attempted or dispatched. */
export function enqueuedJob(submission: JobSubmission, createdAt: string): QueuedJob {
  return {
    job_id: submission.job_id,
    target_region: submission.target_region,
    namespace: submission.namespace,
    priority: submission.priority,
    labels: submission.labels,
    manifest: submission.manifest,
    max_spot_price: submission.max_spot_price,
    spot_instance_type: submission.spot_instance_type,
    status: 'queued',
    created_at: createdAt,
    updated_at: createdAt,
    attempts: 0,
    claimed_by: null,
    lease_expires_at: null,
    waiting_reason: null,
    next_check_at: null,
    last_spot_price: null,
    k8s: null,
    dispatched_at: null,
    started_at: null,
    finished_at: null,
    cancel_reason: null,
    error: null,
    idempotency_key: submission.idempotency_key,
    request_hash: submission.request_hash,
  };
}

export interface SubmissionDeps {
  store: QueueStore;
  policy: ValidationPolicy;
  idempotencyTtlHours: number;
  /** Regions a job may target (DEPLOYMENT_REGIONS). */
  deploymentRegions: readonly string[];
  /** The API server's strict field check (this region's cluster); the dispatch applies strictly anyway. */
  fieldCheck?: Pick<FieldCheck, 'refusalOf'>;
}

export async function submitJob(
  deps: SubmissionDeps,
  body: QueuedJobBody,
  idempotencyKey: string | undefined,
  now: number,
): Promise<SubmitOutcome> {
  checkRequest(body, deps.deploymentRegions);
  const request = normalise(body);
  const violations = deps.policy.check([request.manifest], request.namespace);
  if (violations.length > 0) {
    throw new HttpError(400, {
      message: `The manifest violates the validation policy (${violations.length} violation${violations.length === 1 ? '' : 's'})`,
      violations,
    });
  }
  const manifestBytes = Buffer.byteLength(JSON.stringify(request.manifest), 'utf8');
  if (manifestBytes > MAX_MANIFEST_BYTES) {
    throw new HttpError(
      413,
      `The manifest is ${manifestBytes} bytes; the queue stores at most ${MAX_MANIFEST_BYTES}`,
    );
  }
  const namespace = deps.policy.namespaceOf(request.manifest, request.namespace);
  // A misspelt field is refused now, not when a worker dispatches the job (every region runs the same
  // Kubernetes version, so this cluster's schema is the target's).
  const refusal = await deps.fieldCheck?.refusalOf(request.manifest, namespace);
  if (refusal !== undefined) throw new HttpError(400, refusal);
  const hash = requestHash(request);
  const build = (jobId: string, createdAt: string, key: string | null): QueuedJob =>
    enqueuedJob(
      {
        job_id: jobId,
        target_region: request.target_region,
        namespace,
        priority: request.priority,
        labels: request.labels,
        manifest: request.manifest,
        max_spot_price: request.max_spot_price,
        spot_instance_type: request.spot_instance_type,
        idempotency_key: key,
        request_hash: hash,
      },
      createdAt,
    );
  // The largest record this submission can write (an id and a key of the longest form) must fit.
  const itemBytes = itemSizeBytes(
    jobToItem(build(LONGEST_JOB_ID, new Date(now).toISOString(), idempotencyKey ?? null)),
  );
  if (itemBytes > MAX_ITEM_BYTES) {
    throw new HttpError(
      413,
      `The job record would be ${itemBytes} bytes; DynamoDB stores at most ${MAX_ITEM_BYTES} per item: send fewer or shorter labels, or a smaller manifest`,
    );
  }
  return createExactlyOnce({
    store: deps.store,
    key: idempotencyKey,
    hash,
    build,
    now,
    ttlHours: deps.idempotencyTtlHours,
  });
}
