/**
 * Exactly-once submission with an Idempotency-Key, built from two single-item conditional writes
 * (docs/queue.md "Idempotency"):
 *
 *   1. Put `idempotency#<key>` = {request_hash, job_id (generated now), created_at} if no live record.
 *   2. Put the job item under that job_id if it does not exist.
 *
 * Whoever loses step 1 reads the record (consistently): another hash → 409; the same hash → the job.
 * If the job is missing, the winner died (or is still) between 1 and 2: the loser writes the very same
 * job — same id, same created_at, same validated body — under the same condition, so exactly one job
 * exists whoever finishes first. The job is never created before its id is durably bound to the key.
 *
 * A failed submission leaves nothing behind: everything is validated before step 1, and when step 2
 * fails (the table refuses the item, or is unreachable) the record is released again, only if it still
 * names this attempt's job, so the corrected request can use the same key.
 */
import { createHash, randomUUID } from 'node:crypto';
import { HttpError } from '../../../shared/errors.js';
import type { QueuedJob } from './record.js';
import type { QueueStore } from './store.js';

/** JSON with object keys sorted at every level: equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function requestHash(normalisedRequest: unknown): string {
  return createHash('sha256').update(canonicalJson(normalisedRequest)).digest('hex');
}

const newJobId = (): string => randomUUID();

export interface SubmitOutcome {
  job: QueuedJob;
  /** True when the answer is the job of an earlier request with the same key and body. */
  replay: boolean;
}

/** Builds the job for an id and creation time; must be deterministic in (id, createdAt, key). */
export type JobFactory = (jobId: string, createdAt: string, idempotencyKey: string | null) => QueuedJob;

/** Rounds of claim-or-read; a second round only happens when a record expired in between. */
const MAX_ROUNDS = 3;

export async function createExactlyOnce(opts: {
  store: QueueStore;
  key: string | undefined;
  hash: string;
  build: JobFactory;
  now: number;
  ttlHours: number;
}): Promise<SubmitOutcome> {
  const { store, key, hash, build, now } = opts;
  const createdAt = new Date(now).toISOString();
  if (key === undefined) {
    const job = build(newJobId(), createdAt, null);
    if (!(await store.createJob(job))) throw new HttpError(503, 'Job id collision; retry the request');
    return { job, replay: false };
  }

  const nowSeconds = Math.floor(now / 1000);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const jobId = newJobId();
    const claimed = await store.putIdempotencyRecord(
      {
        key,
        request_hash: hash,
        job_id: jobId,
        created_at: createdAt,
        expires_at: nowSeconds + opts.ttlHours * 3600,
      },
      nowSeconds,
    );
    if (claimed) {
      const job = build(jobId, createdAt, key);
      let created: boolean;
      try {
        created = await store.createJob(job);
      } catch (error) {
        await store.releaseIdempotencyRecord(key, jobId, hash).catch(() => undefined);
        throw error;
      }
      if (created) return { job, replay: false };
      // A concurrent replay completed our record first (see below): same job, already written.
      return { job: (await store.getJob(jobId)) ?? job, replay: false };
    }

    const record = await store.getIdempotencyRecord(key);
    if (!record || record.expires_at < nowSeconds) continue; // expired in between: claim it afresh
    if (record.request_hash !== hash) {
      throw new HttpError(
        409,
        `Idempotency-Key was already used with a different request body (job ${record.job_id}); use a new key for a new job`,
      );
    }
    const existing = await store.getJob(record.job_id);
    if (existing) return { job: existing, replay: true };
    // The first request bound the key but its job is not there (yet): write the same job ourselves.
    const job = build(record.job_id, record.created_at, key);
    if (await store.createJob(job)) return { job, replay: true };
    const written = await store.getJob(record.job_id);
    if (written) return { job: written, replay: true };
  }
  throw new HttpError(503, 'Could not settle the Idempotency-Key; retry the request');
}
