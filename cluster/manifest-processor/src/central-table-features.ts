/**
 * The manifest-processor features whose state lives in the central tables (DynamoDB in the global
 * region, shared by every region's processor): the job queue, job templates and webhooks. `start()`
 * begins the background loops the configuration enables (queue worker, job-event watcher, webhook
 * delivery); `close()` stops them.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { ReadinessCheck } from '../../shared/probes.js';
import type { ValidationPolicy } from './policy/index.js';
import { createQueue, type Queue, type QueueConfig, type SpotPriceSource } from './queue/index.js';
import { TemplateStore, type TemplateConfig } from './templates/index.js';
import {
  DeliveryStore,
  DeliveryWorker,
  JobEventWatcher,
  WebhookStore,
  type WebhookConfig,
} from './webhooks/index.js';

export interface CentralTableFeatures {
  readonly queue: Queue;
  readonly templates: TemplateStore;
  readonly webhooks: { store: WebhookStore; config: WebhookConfig };
  readonly readiness: Record<string, ReadinessCheck>;
  start(): void;
  close(): Promise<void>;
}

export interface CentralTableFeaturesOptions {
  queue: QueueConfig;
  templates: TemplateConfig;
  webhooks: WebhookConfig;
  /** Client of the global region, where the central tables live. */
  dynamodb: DynamoDBClient;
  kubeConfig: KubeConfig;
  policy: ValidationPolicy;
  /** Copied into webhook payloads so receivers can tell regions apart (webhooks are global). */
  source: { region: string; cluster: string };
  spotPrices?: SpotPriceSource;
  logger?: Logger;
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
  const worker = new DeliveryWorker({ webhooks: webhookStore, deliveries, config: webhookConfig, ...logger });
  return {
    queue,
    templates,
    webhooks: { store: webhookStore, config: webhookConfig },
    readiness: {
      ...queue.readiness,
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
    },
    async close() {
      await Promise.all([watcher.stop(), worker.stop()]);
      await queue.close();
    },
  };
}
