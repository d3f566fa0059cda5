/** Webhook configuration from environment variables (docs/webhooks.md, "Configuration"). */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { TABLES } from '../../../../lib/tables.js';
import { EnvConfigError, EnvReader } from '../../../shared/env.js';

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

export const WEBHOOK_DEFAULTS = {
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

function defaultWorkerId(env: NodeJS.ProcessEnv): string {
  return `${env.HOSTNAME || hostname()}-${randomBytes(3).toString('hex')}`;
}

export function loadWebhookConfig(env: NodeJS.ProcessEnv = process.env): WebhookConfig {
  const read = new EnvReader(env);
  const webhooksTable = read.optionalString(TABLES.webhooks.envVar);
  const deliveriesTable = read.optionalString(TABLES.webhookDeliveries.envVar);
  const ms = { integer: true, max: 86_400_000 };
  const config: WebhookConfig = {
    webhooksTable: webhooksTable ?? '',
    deliveriesTable: deliveriesTable ?? '',
    allowPrivateTargets: read.boolean('WEBHOOK_ALLOW_PRIVATE_TARGETS', false),
    deliveryEnabled: read.boolean('WEBHOOK_DELIVERY_ENABLED', true),
    pollIntervalMs: read.number('WEBHOOK_POLL_INTERVAL_MS', WEBHOOK_DEFAULTS.pollIntervalMs, {
      ...ms,
      min: 20,
      max: 300_000,
    }),
    timeoutMs: read.number('WEBHOOK_TIMEOUT_MS', WEBHOOK_DEFAULTS.timeoutMs, {
      ...ms,
      min: 100,
      max: 60_000,
    }),
    maxAttempts: read.number('WEBHOOK_MAX_ATTEMPTS', WEBHOOK_DEFAULTS.maxAttempts, {
      integer: true,
      min: 1,
      max: 20,
    }),
    retryBaseMs: read.number('WEBHOOK_RETRY_BASE_MS', WEBHOOK_DEFAULTS.retryBaseMs, { ...ms, min: 10 }),
    retryMaxMs: read.number('WEBHOOK_RETRY_MAX_MS', WEBHOOK_DEFAULTS.retryMaxMs, { ...ms, min: 10 }),
    leaseMs: read.number('WEBHOOK_LEASE_MS', WEBHOOK_DEFAULTS.leaseMs, { ...ms, min: 1_000, max: 3_600_000 }),
    batchSize: read.number('WEBHOOK_BATCH_SIZE', WEBHOOK_DEFAULTS.batchSize, {
      integer: true,
      min: 1,
      max: 50,
    }),
    eventMaxAgeMs:
      read.number('WEBHOOK_EVENT_MAX_AGE_HOURS', WEBHOOK_DEFAULTS.eventMaxAgeHours, {
        integer: true,
        min: 1,
        max: 720,
      }) * 3_600_000,
    retentionDays: read.number('WEBHOOK_RETENTION_DAYS', WEBHOOK_DEFAULTS.retentionDays, {
      integer: true,
      min: 1,
      max: 365,
    }),
    workerId: read.string('WEBHOOK_WORKER_ID', defaultWorkerId(env)),
  };
  read.done();
  const problems: string[] = [];
  if (!webhooksTable)
    problems.push(`${TABLES.webhooks.envVar}: not set (name of the ${TABLES.webhooks.id} table)`);
  if (!deliveriesTable) {
    problems.push(
      `${TABLES.webhookDeliveries.envVar}: not set (name of the ${TABLES.webhookDeliveries.id} table)`,
    );
  }
  problems.push(...checkWebhookConfig(config));
  if (problems.length > 0) throw new EnvConfigError(problems);
  return config;
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
