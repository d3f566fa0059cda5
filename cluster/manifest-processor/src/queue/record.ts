/**
 * The queued-job record: its shape, its DynamoDB item encoding and its JSON view.
 *
 * Index membership encodes the state machine (contracts/tables.ts): `dispatch_region`/`dispatch_order` exist
 * only while the job is queued, `lease_region`/`lease_expires_at` only while a worker holds it (a claim,
 * or the status-sync hold of a job running in its region's cluster). `record_type` puts jobs — and
 * never idempotency records — into the listing indexes.
 */
import {
  mapAttribute,
  numberAttribute,
  stringAttribute,
  withoutNulls,
  type StoredItem,
} from '../../../shared/dynamo.js';
import { QUEUE_STATUSES, type QueueStatus } from './schemas.js';

export const RECORD_TYPE_JOB = 'job';
/** Prefix of idempotency records' partition keys; job ids never start with it. */
export const IDEMPOTENCY_PREFIX = 'idempotency#';
/** lease-index partition of jobs running in a region's cluster (their status is synced from there). */
const SYNC_PARTITION_PREFIX = 'sync#';

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

export function isQueueStatus(value: string | null): value is QueueStatus {
  return value !== null && (QUEUE_STATUSES as readonly string[]).includes(value);
}

function stringMap(item: StoredItem, name: string): Record<string, string> | null {
  const map = mapAttribute(item, name);
  if (!map) return null;
  const out: Record<string, string> = {};
  for (const key of Object.keys(map)) {
    const value = stringAttribute(map, key);
    if (value !== null) out[key] = value;
  }
  return out;
}

/** The full item of a newly queued job (it starts in dispatch-index and the listing indexes). */
export function jobToItem(job: QueuedJob): StoredItem {
  const queued = job.status === 'queued';
  return withoutNulls({
    pk: job.job_id,
    record_type: RECORD_TYPE_JOB,
    job_id: job.job_id,
    target_region: job.target_region,
    namespace: job.namespace,
    priority: job.priority,
    manifest: JSON.stringify(job.manifest),
    status: job.status,
    created_at: job.created_at,
    updated_at: job.updated_at,
    attempts: job.attempts,
    request_hash: job.request_hash,
    labels: job.labels,
    max_spot_price: job.max_spot_price,
    spot_instance_type: job.spot_instance_type,
    idempotency_key: job.idempotency_key,
    dispatch_region: queued ? job.target_region : null,
    dispatch_order: queued ? dispatchOrder(job) : null,
  });
}

/** A job item back to the record; undefined for anything that is not a job (idempotency records). */
export function itemToJob(item: StoredItem | undefined): QueuedJob | undefined {
  if (!item || stringAttribute(item, 'record_type') !== RECORD_TYPE_JOB) return undefined;
  const str = (name: string) => stringAttribute(item, name);
  const num = (name: string) => numberAttribute(item, name);
  const status = str('status');
  const jobId = str('job_id');
  if (!jobId || !isQueueStatus(status)) return undefined;
  let manifest: Record<string, unknown> = {};
  try {
    manifest = JSON.parse(str('manifest') ?? '{}') as Record<string, unknown>;
  } catch {
    manifest = {};
  }
  const k8sName = str('k8s_name');
  const k8sNamespace = str('k8s_namespace');
  const k8sUid = str('k8s_uid');
  return {
    job_id: jobId,
    target_region: str('target_region') ?? '',
    namespace: str('namespace') ?? '',
    priority: num('priority') ?? 0,
    labels: stringMap(item, 'labels'),
    manifest,
    max_spot_price: num('max_spot_price'),
    spot_instance_type: str('spot_instance_type'),
    status,
    created_at: str('created_at') ?? '',
    updated_at: str('updated_at') ?? '',
    attempts: num('attempts') ?? 0,
    claimed_by: str('claimed_by'),
    lease_expires_at: status === 'claimed' ? num('lease_expires_at') : null,
    waiting_reason: str('waiting_reason'),
    next_check_at: num('next_check_at'),
    last_spot_price: num('last_spot_price'),
    k8s: k8sName && k8sNamespace && k8sUid ? { namespace: k8sNamespace, name: k8sName, uid: k8sUid } : null,
    dispatched_at: str('dispatched_at'),
    started_at: str('started_at'),
    finished_at: str('finished_at'),
    cancel_reason: str('cancel_reason'),
    error: str('error'),
    idempotency_key: str('idempotency_key'),
    request_hash: str('request_hash') ?? '',
  };
}

// ---- the Kubernetes Job's name ---------------------------------------------------------------------

/** Job names become the `job-name` label of their pods: 63 characters at most. */
const MAX_NAME = 63;
const ID_CHARS = 10;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The deterministic Kubernetes name of a queued job, `<manifest name>-q<10 hex of the id>`: known from
 * submission on (the API shows it as `job_name`), and the same on every dispatch attempt (dispatcher.ts).
 */
export function kubernetesName(job: Pick<QueuedJob, 'job_id' | 'manifest'>): string {
  const metadata = isRecord(job.manifest.metadata) ? job.manifest.metadata : {};
  const raw =
    typeof metadata.name === 'string' && metadata.name !== ''
      ? metadata.name
      : typeof metadata.generateName === 'string'
        ? metadata.generateName
        : 'job';
  const suffix = `q${job.job_id
    .replace(/[^0-9a-z]/gi, '')
    .toLowerCase()
    .slice(0, ID_CHARS)}`;
  const base = raw.slice(0, MAX_NAME - suffix.length - 1).replace(/[-.]+$/, '') || 'job';
  return `${base}-${suffix}`;
}

/** Values for UpdateExpression SETs: strings, numbers, or null to REMOVE the attribute. */
export type AttributeUpdate = string | number | null;

/**
 * `job` after a write that set `set` (null: removed) and answered `updated` (its UPDATED_NEW attributes,
 * e.g. the incremented `attempts`). Attributes that are no field of QueuedJob (index keys, k8s_*) are
 * not carried over: writes that set the Kubernetes reference read the item back whole (QueueStore).
 */
export function overlaidJob(
  job: QueuedJob,
  set: Readonly<Record<string, AttributeUpdate>>,
  updated: StoredItem,
): QueuedJob {
  // QueuedJob's fields are the item's attributes of the same name (itemToJob); index-only ones are skipped.
  const fields: Record<string, unknown> = { ...job };
  for (const [attr, value] of Object.entries({ ...set, ...updated })) {
    if (attr in fields && attr !== 'manifest' && attr !== 'labels') fields[attr] = value ?? null;
  }
  if (fields.status !== 'claimed') fields.lease_expires_at = null;
  return fields as unknown as QueuedJob;
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
    job_name: kubernetesName(job),
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
