/**
 * The manifest-processor features whose state lives in the central tables (DynamoDB in the global
 * region, shared by every region's processor): the job queue, job templates and webhooks. `start()`
 * begins the background loops the configuration enables (queue worker, job-event watcher, webhook
 * delivery); `close()` stops them.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { EmfPublisher } from '../../shared/emf-publisher.js';
import type { ReadinessCheck } from '../../shared/probes.js';
import {
  createInferenceReconciler,
  type InferenceReconcilerConfig,
  type InferenceReconcilerService,
} from './inference-reconciler/index.js';
import type { ValidationPolicy } from './policy/index.js';
import { createQueue, type Queue, type QueueConfig, type SpotPriceSource } from './queue/index.js';
import { TemplateStore, type TemplateConfig } from './templates/index.js';
import {
  DeliveryStore,
  DeliveryWorker,
  JobEventWatcher,
  WebhookMetrics,
  WebhookStore,
  type WebhookConfig,
} from './webhooks/index.js';

export interface CentralTableFeatures {
  readonly queue: Queue;
  readonly templates: TemplateStore;
  readonly webhooks: { store: WebhookStore; config: WebhookConfig };
  /** The region's inference reconciler; endpoint writes call its trigger(). */
  readonly inference?: InferenceReconcilerService;
  readonly readiness: Record<string, ReadinessCheck>;
  start(): void;
  close(): Promise<void>;
}

export interface CentralTableFeaturesOptions {
  queue: QueueConfig;
  templates: TemplateConfig;
  webhooks: WebhookConfig;
  /** The inference reconciler's settings; left out, no reconciler is built. */
  inference?: InferenceReconcilerConfig;
  /** Client of the global region, where the central tables live. */
  dynamodb: DynamoDBClient;
  kubeConfig: KubeConfig;
  policy: ValidationPolicy;
  /** Copied into webhook payloads so receivers can tell regions apart (webhooks are global). */
  source: { region: string; cluster: string };
  spotPrices?: SpotPriceSource;
  logger?: Logger;
  /**
   * Platform metrics (EMF) of the queue worker and the webhook worker; started and stopped (last flush)
   * with the loops. Left out, the loops run without metrics.
   */
  metrics?: EmfPublisher;
}

export function createCentralTableFeatures(opts: CentralTableFeaturesOptions): CentralTableFeatures {
  const { dynamodb, policy } = opts;
  const logger = opts.logger ? { logger: opts.logger } : {};
  const queue = createQueue({
    config: opts.queue,
    dynamodb,
    kubeConfig: opts.kubeConfig,
    policy,
    ...(opts.spotPrices ? { spotPrices: opts.spotPrices } : {}),
    ...(opts.metrics ? { metrics: { sink: opts.metrics, intervalMs: opts.metrics.intervalMs } } : {}),
    ...logger,
  });
  const templates = new TemplateStore(dynamodb, opts.templates.tableName);
  const webhookConfig = opts.webhooks;
  const webhookStore = new WebhookStore(dynamodb, webhookConfig.webhooksTable);
  const deliveries = new DeliveryStore(dynamodb, webhookConfig.deliveriesTable);
  const watcher = new JobEventWatcher({
    kubeConfig: opts.kubeConfig,
    namespaces: policy.config.allowedNamespaces,
    webhooks: webhookStore,
    deliveries,
    config: webhookConfig,
    source: opts.source,
    ...logger,
  });
  const webhookMetrics =
    opts.metrics && webhookConfig.deliveryEnabled
      ? new WebhookMetrics({
          deliveries,
          sink: opts.metrics,
          intervalMs: opts.metrics.intervalMs,
          ...(opts.logger ? { logger: opts.logger.child({ component: 'webhook-metrics' }) } : {}),
        })
      : undefined;
  const worker = new DeliveryWorker({
    webhooks: webhookStore,
    deliveries,
    config: webhookConfig,
    ...(webhookMetrics ? { outcomes: webhookMetrics } : {}),
    ...logger,
  });
  const inference = opts.inference
    ? createInferenceReconciler({ config: opts.inference, dynamodb, kubeConfig: opts.kubeConfig, ...logger })
    : undefined;
  return {
    queue,
    templates,
    webhooks: { store: webhookStore, config: webhookConfig },
    ...(inference ? { inference } : {}),
    readiness: {
      ...queue.readiness,
      ...(inference?.readiness ?? {}),
      ...(webhookConfig.deliveryEnabled
        ? { webhook_watcher: () => watcher.running, webhook_delivery: () => worker.running }
        : {}),
    },
    start() {
      queue.start();
      if (webhookConfig.deliveryEnabled) {
        watcher.start();
        worker.start();
      }
      webhookMetrics?.start();
      inference?.start();
      opts.metrics?.start();
    },
    async close() {
      await Promise.all([watcher.stop(), worker.stop(), webhookMetrics?.stop(), inference?.close()]);
      await queue.close();
      // After the loops: their last values go out with the final flush.
      await opts.metrics?.stop();
    },
  };
}
