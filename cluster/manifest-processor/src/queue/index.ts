/**
 * Central job queue of manifest-processor (docs/queue.md). `createQueue()` builds the store, worker and
 * route dependencies from a QueueConfig; the app registers the routes, the readiness check and onClose.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { MetricsSink } from '../../../shared/emf-publisher.js';
import type { ReadinessCheck } from '../../../shared/probes.js';
import { FieldCheck } from '../field-check.js';
import type { ValidationPolicy } from '../policy/index.js';
import type { QueueConfig } from './config.js';
import { KubeJobDispatcher, type JobDispatcher } from './dispatcher.js';
import { QueueMetrics } from './metrics.js';
import type { QueueRouteDeps } from './routes.js';
import { Ec2SpotPriceSource, type SpotPriceSource } from './spot-prices.js';
import { QueueStore } from './store.js';
import { QueueWorker } from './worker.js';

export { loadQueueConfig, QUEUE_DEFAULTS, queueEnvironment, type QueueConfig } from './config.js';
export {
  DispatchError,
  KubeJobDispatcher,
  kubernetesManifest,
  QUEUE_JOB_LABEL,
  type JobDispatcher,
} from './dispatcher.js';
export { requestHash } from './idempotency.js';
export { QueueMetrics } from './metrics.js';
export { type QueuedJob } from './record.js';
export { cancelQueuedJob, QUEUE_PREFIX, queueRoutes } from './routes.js';
export { Ec2SpotPriceSource, type SpotPriceSource } from './spot-prices.js';
export { QueueStore } from './store.js';
export { QueueWorker, type QueueWorkerOptions } from './worker.js';

export interface QueueOptions {
  config: QueueConfig;
  /** Client of the global region, where the central table lives. */
  dynamodb: DynamoDBClient;
  kubeConfig: KubeConfig;
  policy: ValidationPolicy;
  spotPrices?: SpotPriceSource;
  dispatcher?: JobDispatcher;
  logger?: Logger;
  now?: () => number;
  /** Where the region's QueueDepth / OldestQueuedJobAgeSeconds go, and how often (with the worker only). */
  metrics?: { sink: MetricsSink; intervalMs: number };
}

export interface Queue {
  readonly config: QueueConfig;
  readonly store: QueueStore;
  readonly worker: QueueWorker;
  /** The backlog metrics task, when metrics are wired and the worker runs continuously. */
  readonly metrics: QueueMetrics | undefined;
  /** Options of the queueRoutes plugin (registered under QUEUE_PREFIX). */
  readonly routeDeps: QueueRouteDeps;
  /** For createService({ readiness }): the worker task, only when it runs continuously. */
  readonly readiness: Record<string, ReadinessCheck>;
  /** Starts the continuous worker when CENTRAL_QUEUE_WORKER_ENABLED is set. */
  start(): void;
  /** For createService({ onClose }). */
  close(): Promise<void>;
}

export function createQueue(opts: QueueOptions): Queue {
  const { config } = opts;
  const store = new QueueStore(opts.dynamodb, config.tableName);
  const ownSpotSource = opts.spotPrices ? undefined : new Ec2SpotPriceSource({ cacheMs: config.spotCacheMs });
  const worker = new QueueWorker({
    store,
    dispatcher: opts.dispatcher ?? new KubeJobDispatcher(opts.kubeConfig),
    spotPrices: opts.spotPrices ?? ownSpotSource!,
    policy: opts.policy,
    region: config.region,
    workerId: config.workerId,
    leaseMs: config.leaseMs,
    maxAttempts: config.maxAttempts,
    pollIntervalMs: config.pollIntervalMs,
    batchSize: config.batchSize,
    dispatchConcurrency: config.dispatchConcurrency,
    spotRecheckMs: config.spotRecheckMs,
    retentionDays: config.retentionDays,
    maxConsecutiveFailures: config.maxConsecutiveFailures,
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.logger ? { logger: opts.logger.child({ component: 'queue-worker' }) } : {}),
  });
  // Published by the replicas that run the worker: a processor serving only routes has no region to watch.
  const metrics =
    opts.metrics && config.workerEnabled
      ? new QueueMetrics({
          store,
          sink: opts.metrics.sink,
          region: config.region,
          intervalMs: opts.metrics.intervalMs,
          ...(opts.now ? { now: opts.now } : {}),
          ...(opts.logger ? { logger: opts.logger.child({ component: 'queue-metrics' }) } : {}),
        })
      : undefined;
  return {
    config,
    store,
    worker,
    metrics,
    routeDeps: {
      store,
      policy: opts.policy,
      worker,
      deploymentRegions: config.deploymentRegions,
      fieldCheck: new FieldCheck(opts.kubeConfig),
      idempotencyTtlHours: config.idempotencyTtlHours,
      retentionDays: config.retentionDays,
      ...(opts.now ? { now: opts.now } : {}),
    },
    readiness: config.workerEnabled ? { queue_worker: () => worker.running } : {},
    start() {
      if (config.workerEnabled) worker.start();
      metrics?.start();
    },
    async close() {
      await Promise.all([worker.stop(), metrics?.stop()]);
      ownSpotSource?.destroy();
    },
  };
}
