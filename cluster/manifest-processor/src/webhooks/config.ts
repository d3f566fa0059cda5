/** Webhook configuration: its environment contract, read and written here (docs/webhooks.md, "Configuration"). */
import { TABLES } from '../../../../contracts/tables.js';
import { readContract, variablesOf, type EnvSource } from '../../../shared/env-source.js';
import { replicaId } from '../../../shared/replica-id.js';

export interface WebhookConfig {
  /** WEBHOOKS_TABLE: webhook registrations. */
  webhooksTable: string;
  /** WEBHOOK_DELIVERIES_TABLE: the delivery outbox. */
  deliveriesTable: string;
  /** Loopback/private targets allowed: local development and tests ONLY, never in a deployment. */
  allowPrivateTargets: boolean;
  /** Run the job-event watcher and the delivery worker in this process. */
  deliveryEnabled: boolean;
  /** How often the watcher lists jobs and the worker looks for due deliveries. */
  pollIntervalMs: number;
  /** Per-request deadline: connect, TLS, request, response headers and the first KiB of the body. */
  timeoutMs: number;
  /** Attempts per delivery (the first included) before it is dead. */
  maxAttempts: number;
  /** Backoff: base · 2^(attempt−1), capped, with jitter (half fixed, half random). */
  retryBaseMs: number;
  retryMaxMs: number;
  /** A claimed delivery is invisible to other workers this long; must outlast a request. */
  leaseMs: number;
  /** Deliveries attempted concurrently per worker pass. */
  batchSize: number;
  /** Transitions older than this are ignored (after an outage, and so expired outbox items never repeat). */
  eventMaxAgeMs: number;
  /** Outbox items are removed by TTL this long after they are enqueued. */
  retentionDays: number;
  /** Identifies this process in an outbox item's lease_owner. */
  workerId: string;
}

const WEBHOOK_DEFAULTS = {
  pollIntervalMs: 5_000,
  timeoutMs: 10_000,
  maxAttempts: 6,
  retryBaseMs: 30_000,
  retryMaxMs: 3_600_000,
  leaseMs: 60_000,
  batchSize: 10,
  eventMaxAgeHours: 24,
  retentionDays: 7,
} as const;

const HOUR_MS = 3_600_000;

const VARIABLES = {
  webhooksTable: TABLES.webhooks.envVar,
  deliveriesTable: TABLES.webhookDeliveries.envVar,
  allowPrivateTargets: 'WEBHOOK_ALLOW_PRIVATE_TARGETS',
  deliveryEnabled: 'WEBHOOK_DELIVERY_ENABLED',
  pollIntervalMs: 'WEBHOOK_POLL_INTERVAL_MS',
  timeoutMs: 'WEBHOOK_TIMEOUT_MS',
  maxAttempts: 'WEBHOOK_MAX_ATTEMPTS',
  retryBaseMs: 'WEBHOOK_RETRY_BASE_MS',
  retryMaxMs: 'WEBHOOK_RETRY_MAX_MS',
  leaseMs: 'WEBHOOK_LEASE_MS',
  batchSize: 'WEBHOOK_BATCH_SIZE',
  eventMaxAgeMs: 'WEBHOOK_EVENT_MAX_AGE_HOURS',
  retentionDays: 'WEBHOOK_RETENTION_DAYS',
  workerId: 'WEBHOOK_WORKER_ID',
} as const satisfies Record<keyof WebhookConfig, string>;

const MAX_MS = 86_400_000;

export function loadWebhookConfig(env: EnvSource = process.env): WebhookConfig {
  return readContract(env, (read) => {
    const table = (field: 'webhooksTable' | 'deliveriesTable', id: string) =>
      read.required(VARIABLES[field], `name of the ${id} table`) ?? '';
    const config: WebhookConfig = {
      webhooksTable: table('webhooksTable', TABLES.webhooks.id),
      deliveriesTable: table('deliveriesTable', TABLES.webhookDeliveries.id),
      allowPrivateTargets: read.boolean(VARIABLES.allowPrivateTargets, false),
      deliveryEnabled: read.boolean(VARIABLES.deliveryEnabled, true),
      pollIntervalMs: read.integer(VARIABLES.pollIntervalMs, WEBHOOK_DEFAULTS.pollIntervalMs, {
        min: 20,
        max: 300_000,
      }),
      timeoutMs: read.integer(VARIABLES.timeoutMs, WEBHOOK_DEFAULTS.timeoutMs, { min: 100, max: 60_000 }),
      maxAttempts: read.integer(VARIABLES.maxAttempts, WEBHOOK_DEFAULTS.maxAttempts, { min: 1, max: 20 }),
      retryBaseMs: read.integer(VARIABLES.retryBaseMs, WEBHOOK_DEFAULTS.retryBaseMs, {
        min: 10,
        max: MAX_MS,
      }),
      retryMaxMs: read.integer(VARIABLES.retryMaxMs, WEBHOOK_DEFAULTS.retryMaxMs, { min: 10, max: MAX_MS }),
      leaseMs: read.integer(VARIABLES.leaseMs, WEBHOOK_DEFAULTS.leaseMs, { min: 1_000, max: 3_600_000 }),
      batchSize: read.integer(VARIABLES.batchSize, WEBHOOK_DEFAULTS.batchSize, { min: 1, max: 50 }),
      eventMaxAgeMs:
        read.integer(VARIABLES.eventMaxAgeMs, WEBHOOK_DEFAULTS.eventMaxAgeHours, { min: 1, max: 720 }) *
        HOUR_MS,
      retentionDays: read.integer(VARIABLES.retentionDays, WEBHOOK_DEFAULTS.retentionDays, {
        min: 1,
        max: 365,
      }),
      workerId: read.optional(VARIABLES.workerId) ?? replicaId(read),
    };
    for (const problem of checkWebhookConfig(config)) read.problem(problem);
    return config;
  });
}

export function webhookEnvironment(config: Partial<WebhookConfig>): Record<string, string> {
  const { eventMaxAgeMs } = config;
  // The age is configured in whole hours.
  return variablesOf(VARIABLES, {
    ...config,
    eventMaxAgeMs: eventMaxAgeMs === undefined ? undefined : eventMaxAgeMs / HOUR_MS,
  });
}

/** Relations between settings (also used by code that builds a config by hand, such as tests). */
export function checkWebhookConfig(config: WebhookConfig): string[] {
  const problems: string[] = [];
  if (config.leaseMs < config.timeoutMs + 5_000) {
    problems.push(
      `WEBHOOK_LEASE_MS (${config.leaseMs}) must exceed WEBHOOK_TIMEOUT_MS (${config.timeoutMs}) by at least 5000, or a slow delivery could be sent twice`,
    );
  }
  if (config.retryMaxMs < config.retryBaseMs) {
    problems.push('WEBHOOK_RETRY_MAX_MS must be at least WEBHOOK_RETRY_BASE_MS');
  }
  if (config.eventMaxAgeMs >= config.retentionDays * 86_400_000) {
    problems.push(
      'WEBHOOK_EVENT_MAX_AGE_HOURS must be shorter than WEBHOOK_RETENTION_DAYS, or an expired outbox item could be enqueued again',
    );
  }
  return problems;
}
