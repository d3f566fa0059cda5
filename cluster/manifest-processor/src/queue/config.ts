/** Central job queue configuration from environment variables (docs/queue.md, "Environment"). */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { TABLES } from '../../../../lib/tables.js';
import { EnvConfigError, EnvReader } from '../../../shared/env.js';

export interface QueueConfig {
  /** Physical name of the central job-queue table (JOB_QUEUE_TABLE). */
  tableName: string;
  /** Region whose jobs this processor's worker dispatches (QUEUE_REGION). */
  region: string;
  /** Run the worker continuously (CENTRAL_QUEUE_WORKER_ENABLED); POST /queue/poll works either way. */
  workerEnabled: boolean;
  pollIntervalMs: number;
  leaseMs: number;
  /** Claims a job may use before it fails (lease expiries and transient dispatch errors both count). */
  maxAttempts: number;
  /** Jobs dispatched per continuous pass. */
  batchSize: number;
  /** How long a spot-gated job waits before its price is checked again. */
  spotRecheckMs: number;
  /** How long Ec2SpotPriceSource reuses a price. */
  spotCacheMs: number;
  /** Finished jobs are deleted by TTL this long after they finish. */
  retentionDays: number;
  /** Window in which an Idempotency-Key replays its job. */
  idempotencyTtlHours: number;
  /** Continuous passes that may fail in a row before the worker gives up (readiness then fails). */
  maxConsecutiveFailures: number;
  /** Identifies this worker in claimed_by. */
  workerId: string;
}

export const QUEUE_DEFAULTS = {
  pollIntervalMs: 5_000,
  leaseMs: 60_000,
  maxAttempts: 3,
  batchSize: 5,
  spotRecheckMs: 60_000,
  spotCacheMs: 60_000,
  retentionDays: 30,
  idempotencyTtlHours: 24,
  maxConsecutiveFailures: 10,
} as const;

/** A worker id unique per process: the pod name (HOSTNAME) plus a random suffix for restarts in place. */
export function defaultWorkerId(env: NodeJS.ProcessEnv = process.env): string {
  return `${env.HOSTNAME || hostname()}-${randomBytes(3).toString('hex')}`;
}

export function loadQueueConfig(env: NodeJS.ProcessEnv = process.env): QueueConfig {
  const read = new EnvReader(env);
  const tableName = read.optionalString(TABLES.jobQueue.envVar);
  const region =
    read.optionalString('QUEUE_REGION') ?? read.optionalString('REGION') ?? read.optionalString('AWS_REGION');
  const config: QueueConfig = {
    tableName: tableName ?? '',
    region: region ?? '',
    workerEnabled: read.boolean('CENTRAL_QUEUE_WORKER_ENABLED', false),
    pollIntervalMs: read.number('QUEUE_POLL_INTERVAL_MS', QUEUE_DEFAULTS.pollIntervalMs, {
      min: 100,
      max: 3_600_000,
      integer: true,
    }),
    leaseMs: read.number('QUEUE_LEASE_MS', QUEUE_DEFAULTS.leaseMs, {
      min: 1_000,
      max: 3_600_000,
      integer: true,
    }),
    maxAttempts: read.number('QUEUE_MAX_ATTEMPTS', QUEUE_DEFAULTS.maxAttempts, {
      min: 1,
      max: 100,
      integer: true,
    }),
    batchSize: read.number('QUEUE_BATCH_SIZE', QUEUE_DEFAULTS.batchSize, { min: 1, max: 20, integer: true }),
    spotRecheckMs: read.number('QUEUE_SPOT_RECHECK_MS', QUEUE_DEFAULTS.spotRecheckMs, {
      min: 0,
      max: 3_600_000,
      integer: true,
    }),
    spotCacheMs: read.number('QUEUE_SPOT_CACHE_MS', QUEUE_DEFAULTS.spotCacheMs, {
      min: 0,
      max: 3_600_000,
      integer: true,
    }),
    retentionDays: read.number('QUEUE_RETENTION_DAYS', QUEUE_DEFAULTS.retentionDays, {
      min: 1,
      max: 3650,
      integer: true,
    }),
    idempotencyTtlHours: read.number('QUEUE_IDEMPOTENCY_TTL_HOURS', QUEUE_DEFAULTS.idempotencyTtlHours, {
      min: 1,
      max: 720,
      integer: true,
    }),
    maxConsecutiveFailures: read.number(
      'QUEUE_MAX_CONSECUTIVE_FAILURES',
      QUEUE_DEFAULTS.maxConsecutiveFailures,
      { min: 1, max: 1_000_000, integer: true },
    ),
    workerId: read.string('QUEUE_WORKER_ID', defaultWorkerId(env)),
  };
  read.done();
  const missing: string[] = [];
  if (!tableName)
    missing.push(`${TABLES.jobQueue.envVar}: not set (name of the ${TABLES.jobQueue.id} table)`);
  if (!region) missing.push('QUEUE_REGION: not set (nor REGION / AWS_REGION); the region this worker serves');
  if (missing.length > 0) throw new EnvConfigError(missing);
  return config;
}
