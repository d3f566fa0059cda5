/**
 * The queued-job record: its shape, its DynamoDB item encoding and its JSON view.
 *
 * Index membership encodes the state machine (lib/tables.ts): `dispatch_region`/`dispatch_order` exist
 * only while the job is queued, `lease_region`/`lease_expires_at` only while a worker holds it (a claim,
 * or the status-sync hold of a job running in its region's cluster). `record_type` puts jobs — and
 * never idempotency records — into the listing indexes.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { QUEUE_STATUSES, type QueueStatus } from './schemas.js';

export const RECORD_TYPE_JOB = 'job';
/** Prefix of idempotency records' partition keys; job ids never start with it. */
export const IDEMPOTENCY_PREFIX = 'idempotency#';
/** lease-index partition of jobs running in a region's cluster (their status is synced from there). */
export const SYNC_PARTITION_PREFIX = 'sync#';

export interface K8sRef {
  namespace: string;
  name: string;
  uid: string;
}

export interface QueuedJob {
  job_id: string;
  target_region: string;
  /** Namespace the Kubernetes Job runs in (the manifest's own, else the request's). */
  namespace: string;
  priority: number;
  labels: Record<string, string> | null;
  manifest: Record<string, unknown>;
  max_spot_price: number | null;
  spot_instance_type: string | null;
  status: QueueStatus;
  created_at: string;
  updated_at: string;
  /** Claims so far; (claimed_by, attempts) identifies one claim. */
  attempts: number;
  claimed_by: string | null;
  /** Epoch ms; set only while claimed. */
  lease_expires_at: number | null;
  waiting_reason: string | null;
  /** Epoch ms before which the worker does not look at the job again (spot gate, retry back-off). */
  next_check_at: number | null;
  last_spot_price: number | null;
  k8s: K8sRef | null;
  dispatched_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  cancel_reason: string | null;
  error: string | null;
  idempotency_key: string | null;
  request_hash: string;
}

/** Sort key of dispatch-index: higher priority first, then older first, then the id for a total order. */
export function dispatchOrder(job: Pick<QueuedJob, 'priority' | 'created_at' | 'job_id'>): string {
  return `${String(100 - job.priority).padStart(3, '0')}#${job.created_at}#${job.job_id}`;
}

export const syncPartition = (region: string): string => `${SYNC_PARTITION_PREFIX}${region}`;

// ---- item encoding ---------------------------------------------------------------------------------

type Item = Record<string, AttributeValue>;

const S = (value: string): AttributeValue => ({ S: value });
const N = (value: number): AttributeValue => ({ N: String(value) });

function str(item: Item, name: string): string | null {
  const v = item[name];
  return v && 'S' in v && typeof v.S === 'string' ? v.S : null;
}

function num(item: Item, name: string): number | null {
  const v = item[name];
  return v && 'N' in v && typeof v.N === 'string' ? Number(v.N) : null;
}

function stringMap(item: Item, name: string): Record<string, string> | null {
  const v = item[name];
  if (!v || !('M' in v) || !v.M) return null;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(v.M)) if (typeof value.S === 'string') out[key] = value.S;
  return out;
}

function isStatus(value: string | null): value is QueueStatus {
  return value !== null && (QUEUE_STATUSES as readonly string[]).includes(value);
}

/** The full item of a newly queued job (it starts in dispatch-index and the listing indexes). */
export function jobToItem(job: QueuedJob): Item {
  const item: Item = {
    pk: S(job.job_id),
    record_type: S(RECORD_TYPE_JOB),
    job_id: S(job.job_id),
    target_region: S(job.target_region),
    namespace: S(job.namespace),
    priority: N(job.priority),
    manifest: S(JSON.stringify(job.manifest)),
    status: S(job.status),
    created_at: S(job.created_at),
    updated_at: S(job.updated_at),
    attempts: N(job.attempts),
    request_hash: S(job.request_hash),
  };
  if (job.labels)
    item.labels = { M: Object.fromEntries(Object.entries(job.labels).map(([k, v]) => [k, S(v)])) };
  if (job.max_spot_price !== null) item.max_spot_price = N(job.max_spot_price);
  if (job.spot_instance_type !== null) item.spot_instance_type = S(job.spot_instance_type);
  if (job.idempotency_key !== null) item.idempotency_key = S(job.idempotency_key);
  if (job.status === 'queued') {
    item.dispatch_region = S(job.target_region);
    item.dispatch_order = S(dispatchOrder(job));
  }
  return item;
}

/** A job item back to the record; undefined for anything that is not a job (idempotency records). */
export function itemToJob(item: Item | undefined): QueuedJob | undefined {
  if (!item || str(item, 'record_type') !== RECORD_TYPE_JOB) return undefined;
  const status = str(item, 'status');
  const jobId = str(item, 'job_id');
  if (!jobId || !isStatus(status)) return undefined;
  let manifest: Record<string, unknown> = {};
  try {
    manifest = JSON.parse(str(item, 'manifest') ?? '{}') as Record<string, unknown>;
  } catch {
    manifest = {};
  }
  const k8sName = str(item, 'k8s_name');
  const k8sNamespace = str(item, 'k8s_namespace');
  const k8sUid = str(item, 'k8s_uid');
  return {
    job_id: jobId,
    target_region: str(item, 'target_region') ?? '',
    namespace: str(item, 'namespace') ?? '',
    priority: num(item, 'priority') ?? 0,
    labels: stringMap(item, 'labels'),
    manifest,
    max_spot_price: num(item, 'max_spot_price'),
    spot_instance_type: str(item, 'spot_instance_type'),
    status,
    created_at: str(item, 'created_at') ?? '',
    updated_at: str(item, 'updated_at') ?? '',
    attempts: num(item, 'attempts') ?? 0,
    claimed_by: str(item, 'claimed_by'),
    lease_expires_at: status === 'claimed' ? num(item, 'lease_expires_at') : null,
    waiting_reason: str(item, 'waiting_reason'),
    next_check_at: num(item, 'next_check_at'),
    last_spot_price: num(item, 'last_spot_price'),
    k8s: k8sName && k8sNamespace && k8sUid ? { namespace: k8sNamespace, name: k8sName, uid: k8sUid } : null,
    dispatched_at: str(item, 'dispatched_at'),
    started_at: str(item, 'started_at'),
    finished_at: str(item, 'finished_at'),
    cancel_reason: str(item, 'cancel_reason'),
    error: str(item, 'error'),
    idempotency_key: str(item, 'idempotency_key'),
    request_hash: str(item, 'request_hash') ?? '',
  };
}

/** Values for UpdateExpression SETs: strings, numbers, or null to REMOVE the attribute. */
export type AttributeUpdate = string | number | null;

export function toAttribute(value: string | number): AttributeValue {
  return typeof value === 'number' ? N(value) : S(value);
}

// ---- JSON view ---------------------------------------------------------------------------------------

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The record as the API returns it (docs/queue.md "Record fields"); lists omit the manifest. */
export function jobView(job: QueuedJob, opts: { manifest: boolean } = { manifest: true }) {
  return {
    job_id: job.job_id,
    status: job.status,
    target_region: job.target_region,
    namespace: job.namespace,
    priority: job.priority,
    labels: job.labels,
    max_spot_price: job.max_spot_price,
    spot_instance_type: job.spot_instance_type,
    created_at: job.created_at,
    updated_at: job.updated_at,
    attempts: job.attempts,
    claimed_by: job.claimed_by,
    lease_expires_at: iso(job.lease_expires_at),
    waiting_reason: job.waiting_reason,
    next_check_at: job.status === 'queued' ? iso(job.next_check_at) : null,
    last_spot_price: job.last_spot_price,
    k8s: job.k8s,
    dispatched_at: job.dispatched_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    cancel_reason: job.cancel_reason,
    error: job.error,
    idempotency_key: job.idempotency_key,
    ...(opts.manifest ? { manifest: job.manifest } : {}),
  };
}

export type JobView = ReturnType<typeof jobView>;
