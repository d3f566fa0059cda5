/** Central job queue configuration: its environment contract, read and written here (docs/queue.md). */
import { TABLES } from '../../../../contracts/tables.js';
import { readContract, variablesOf, type EnvSource } from '../../../shared/env-source.js';
import { replicaId } from '../../../shared/replica-id.js';

export interface QueueConfig {
  /** Physical name of the central job-queue table (JOB_QUEUE_TABLE). */
  tableName: string;
  /** Region whose jobs this processor's worker dispatches (QUEUE_REGION). */
  region: string;
  /** Every region of the deployment: the target_region values a submission may name (DEPLOYMENT_REGIONS). */
  deploymentRegions: string[];
  /** Run the worker continuously (CENTRAL_QUEUE_WORKER_ENABLED); POST /queue/poll works either way. */
  workerEnabled: boolean;
  pollIntervalMs: number;
  leaseMs: number;
  /** Claims a job may use before it fails (lease expiries and transient dispatch errors both count). */
  maxAttempts: number;
  /** Jobs one claim window of the continuous worker claims (one read of dispatch-index). */
  batchSize: number;
  /** Kubernetes applies one worker runs at once (QUEUE_DISPATCH_CONCURRENCY). */
  dispatchConcurrency: number;
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
  /** One window fills every apply slot (= dispatchConcurrency) with one index read (docs/queue.md). */
  batchSize: 16,
  dispatchConcurrency: 16,
  spotRecheckMs: 60_000,
  spotCacheMs: 60_000,
  retentionDays: 30,
  idempotencyTtlHours: 24,
  maxConsecutiveFailures: 10,
} as const;

const VARIABLES = {
  tableName: TABLES.jobQueue.envVar,
  region: 'QUEUE_REGION',
  deploymentRegions: 'DEPLOYMENT_REGIONS',
  workerEnabled: 'CENTRAL_QUEUE_WORKER_ENABLED',
  pollIntervalMs: 'QUEUE_POLL_INTERVAL_MS',
  leaseMs: 'QUEUE_LEASE_MS',
  maxAttempts: 'QUEUE_MAX_ATTEMPTS',
  batchSize: 'QUEUE_BATCH_SIZE',
  dispatchConcurrency: 'QUEUE_DISPATCH_CONCURRENCY',
  spotRecheckMs: 'QUEUE_SPOT_RECHECK_MS',
  spotCacheMs: 'QUEUE_SPOT_CACHE_MS',
  retentionDays: 'QUEUE_RETENTION_DAYS',
  idempotencyTtlHours: 'QUEUE_IDEMPOTENCY_TTL_HOURS',
  maxConsecutiveFailures: 'QUEUE_MAX_CONSECUTIVE_FAILURES',
  workerId: 'QUEUE_WORKER_ID',
} as const satisfies Record<keyof QueueConfig, string>;

/** Every duration and count has the same shape: an integer within bounds, with a documented default. */
const BOUNDS = {
  pollIntervalMs: { min: 100, max: 3_600_000 },
  leaseMs: { min: 1_000, max: 3_600_000 },
  maxAttempts: { min: 1, max: 100 },
  batchSize: { min: 1, max: 20 },
  dispatchConcurrency: { min: 1, max: 64 },
  spotRecheckMs: { min: 0, max: 3_600_000 },
  spotCacheMs: { min: 0, max: 3_600_000 },
  retentionDays: { min: 1, max: 3650 },
  idempotencyTtlHours: { min: 1, max: 720 },
  maxConsecutiveFailures: { min: 1, max: 1_000_000 },
} as const satisfies Record<keyof typeof QUEUE_DEFAULTS, { min: number; max: number }>;

export function loadQueueConfig(env: EnvSource = process.env): QueueConfig {
  return readContract(env, (read) => {
    const tableName = read.required(VARIABLES.tableName, `name of the ${TABLES.jobQueue.id} table`) ?? '';
    const region =
      read.optional(VARIABLES.region) ?? read.optional('REGION') ?? read.optional('AWS_REGION') ?? '';
    if (region === '') {
      read.problem(`${VARIABLES.region}: required (nor REGION / AWS_REGION; the region this worker serves)`);
    }
    // Unset means a deployment of this one region; the regional stack always sets the full list.
    const deploymentRegions = read.list(VARIABLES.deploymentRegions, region === '' ? [] : [region]);
    if (region !== '' && !deploymentRegions.includes(region)) {
      read.problem(`${VARIABLES.deploymentRegions}: must include this worker's region ${region}`);
    }
    const integer = (field: keyof typeof QUEUE_DEFAULTS) =>
      read.integer(VARIABLES[field], QUEUE_DEFAULTS[field], BOUNDS[field]);
    return {
      tableName,
      region,
      deploymentRegions,
      workerEnabled: read.boolean(VARIABLES.workerEnabled, false),
      pollIntervalMs: integer('pollIntervalMs'),
      leaseMs: integer('leaseMs'),
      maxAttempts: integer('maxAttempts'),
      batchSize: integer('batchSize'),
      dispatchConcurrency: integer('dispatchConcurrency'),
      spotRecheckMs: integer('spotRecheckMs'),
      spotCacheMs: integer('spotCacheMs'),
      retentionDays: integer('retentionDays'),
      idempotencyTtlHours: integer('idempotencyTtlHours'),
      maxConsecutiveFailures: integer('maxConsecutiveFailures'),
      workerId: read.optional(VARIABLES.workerId) ?? replicaId(read),
    };
  });
}

export function queueEnvironment(config: Partial<QueueConfig>): Record<string, string> {
  return variablesOf(VARIABLES, config);
}
