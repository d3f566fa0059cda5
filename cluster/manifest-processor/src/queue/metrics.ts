/**
 * QueueDepth and OldestQueuedJobAgeSeconds of this worker's region (contracts/platform-metrics.ts),
 * computed once per metrics interval from dispatch-index and handed to the EMF publisher.
 *
 * Every replica whose worker runs publishes the same two values: no election to get wrong, and the
 * alarms and dashboards read them with the Maximum statistic, which duplicates leave unchanged.
 */
import type { Log } from '../../../../contracts/runtime/logging.js';
import type { MetricsSink } from '../../../shared/emf-publisher.js';
import { PolledTask, PollingLoop } from '../../../shared/polling-loop.js';
import type { QueueStore } from './store.js';

export interface QueueMetricsOptions {
  store: Pick<QueueStore, 'backlog'>;
  sink: MetricsSink;
  region: string;
  intervalMs: number;
  now?: () => number;
  logger?: Pick<Log, 'warn' | 'error'>;
}

export interface QueueMetricValues {
  depth: number;
  oldestAgeSeconds: number;
}

export class QueueMetrics extends PolledTask {
  protected readonly loop: PollingLoop;
  private readonly now: () => number;

  constructor(private readonly opts: QueueMetricsOptions) {
    super();
    this.now = opts.now ?? Date.now;
    this.loop = new PollingLoop({
      name: 'queue-metrics',
      intervalMs: opts.intervalMs,
      pass: async () => {
        await this.publishOnce();
      },
      ...(opts.logger ? { logger: opts.logger } : {}),
    });
  }

  /** Reads the backlog and publishes it; the values are returned for tests and callers. */
  async publishOnce(): Promise<QueueMetricValues> {
    const { depth, oldestCreatedAt } = await this.opts.store.backlog(this.opts.region);
    const created = oldestCreatedAt === undefined ? Number.NaN : Date.parse(oldestCreatedAt);
    // 0 when nothing waits (the metric's contract), and never negative across replicas' clock skew.
    const oldestAgeSeconds = Number.isFinite(created)
      ? Math.max(0, Math.floor((this.now() - created) / 1000))
      : 0;
    this.opts.sink.publish({ queueDepth: depth, oldestQueuedJobAge: oldestAgeSeconds });
    return { depth, oldestAgeSeconds };
  }
}
