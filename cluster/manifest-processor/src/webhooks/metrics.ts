/**
 * The webhook metrics (contracts/platform-metrics.ts), published once per metrics interval:
 * - WebhookDeliveriesSucceeded / WebhookDeliveriesFailed: this replica's delivery attempts since the last
 *   publication (a failed attempt counts whether it is retried or not: non-2xx, timeout, refused target);
 * - WebhookOutboxDepth / OldestWebhookOutboxEntryAgeSeconds: the undelivered outbox items. The outbox is
 *   one central table, so every region reports the same backlog under its own Region dimension (read
 *   with Maximum, duplicates change nothing).
 */
import type { Log } from '../../../../contracts/runtime/logging.js';
import type { MetricsSink } from '../../../shared/emf-publisher.js';
import { PolledTask, PollingLoop } from '../../../shared/polling-loop.js';
import type { DeliveryStore } from './store.js';
import type { DeliveryPassResult } from './worker.js';

export interface WebhookMetricsOptions {
  deliveries: Pick<DeliveryStore, 'backlog'>;
  sink: MetricsSink;
  intervalMs: number;
  now?: () => number;
  logger?: Pick<Log, 'warn' | 'error'>;
}

export interface WebhookMetricValues {
  succeeded: number;
  failed: number;
  depth: number;
  oldestAgeSeconds: number;
}

/** Counts the delivery worker's outcomes and publishes them with the outbox backlog. */
export class WebhookMetrics extends PolledTask {
  protected readonly loop: PollingLoop;
  private readonly now: () => number;
  private succeeded = 0;
  private failed = 0;

  constructor(private readonly opts: WebhookMetricsOptions) {
    super();
    this.now = opts.now ?? Date.now;
    this.loop = new PollingLoop({
      name: 'webhook-metrics',
      intervalMs: opts.intervalMs,
      pass: async () => {
        await this.publishOnce();
      },
      ...(opts.logger ? { logger: opts.logger } : {}),
    });
  }

  /** Adds one worker pass's outcomes (DeliveryWorker calls it after every pass). */
  record(result: DeliveryPassResult): void {
    this.succeeded += result.delivered;
    this.failed += result.retrying + result.failed + result.dead;
  }

  /** Publishes the counts since the last call and the outbox backlog; the values are returned. */
  async publishOnce(): Promise<WebhookMetricValues> {
    const counts = { succeeded: this.succeeded, failed: this.failed };
    this.succeeded = 0;
    this.failed = 0;
    let backlog: { depth: number; oldestCreatedAt: string | undefined };
    try {
      backlog = await this.opts.deliveries.backlog();
    } catch (error) {
      // The counts are this replica's alone: publish them even when the table cannot be read.
      this.opts.sink.publish({
        webhookDeliveriesSucceeded: counts.succeeded,
        webhookDeliveriesFailed: counts.failed,
      });
      throw error;
    }
    const created = backlog.oldestCreatedAt === undefined ? Number.NaN : Date.parse(backlog.oldestCreatedAt);
    const oldestAgeSeconds = Number.isFinite(created)
      ? Math.max(0, Math.floor((this.now() - created) / 1000))
      : 0;
    this.opts.sink.publish({
      webhookDeliveriesSucceeded: counts.succeeded,
      webhookDeliveriesFailed: counts.failed,
      webhookOutboxDepth: backlog.depth,
      oldestWebhookOutboxAge: oldestAgeSeconds,
    });
    return { ...counts, depth: backlog.depth, oldestAgeSeconds };
  }
}
