/**
 * manifest-processor's state outside Kubernetes, built once from the environment for main.ts and the
 * local platform alike: the central job queue, job templates and webhooks (DynamoDB tables in the global
 * region) and the HTTPS client of this region's cost-monitor. `start()` begins the background loops
 * (queue worker, job-event watcher, webhook delivery) that the deployment enables.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { ReadinessCheck } from '../../shared/probes.js';
import type { ManifestProcessorConfig } from './config.js';
import type { CostMonitorClient } from './cost/index.js';
import type { ValidationPolicy } from './policy/index.js';
import { createQueue, loadQueueConfig, type Queue, type SpotPriceSource } from './queue/index.js';
import { loadTemplateConfig, TemplateStore } from './templates/index.js';
import {
  DeliveryStore,
  DeliveryWorker,
  JobEventWatcher,
  loadWebhookConfig,
  WebhookStore,
  type WebhookConfig,
} from './webhooks/index.js';

export interface CentralState {
  readonly queue: Queue;
  readonly templates: TemplateStore;
  readonly webhooks: { store: WebhookStore; config: WebhookConfig };
  readonly cost: CostMonitorClient | undefined;
  readonly readiness: Record<string, ReadinessCheck>;
  start(): void;
  close(): Promise<void>;
}

export interface CentralStateOptions {
  env: NodeJS.ProcessEnv;
  /** Client of the global region, where the central tables live. */
  dynamodb: DynamoDBClient;
  kubeConfig: KubeConfig;
  policy: ValidationPolicy;
  config: ManifestProcessorConfig;
  cost?: CostMonitorClient;
  spotPrices?: SpotPriceSource;
  logger?: Logger;
}

export function createCentralState(opts: CentralStateOptions): CentralState {
  const { env, dynamodb, policy } = opts;
  const queue = createQueue({
    config: loadQueueConfig(env),
    dynamodb,
    kubeConfig: opts.kubeConfig,
    policy,
    ...(opts.spotPrices ? { spotPrices: opts.spotPrices } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  const templates = new TemplateStore(dynamodb, loadTemplateConfig(env).tableName);
  const webhookConfig = loadWebhookConfig(env);
  const webhookStore = new WebhookStore(dynamodb, webhookConfig.webhooksTable);
  const deliveries = new DeliveryStore(dynamodb, webhookConfig.deliveriesTable);
  const watcher = new JobEventWatcher({
    kubeConfig: opts.kubeConfig,
    namespaces: policy.config.allowedNamespaces,
    webhooks: webhookStore,
    deliveries,
    config: webhookConfig,
    source: { region: opts.config.region, cluster: opts.config.clusterName },
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  const worker = new DeliveryWorker({
    webhooks: webhookStore,
    deliveries,
    config: webhookConfig,
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  return {
    queue,
    templates,
    webhooks: { store: webhookStore, config: webhookConfig },
    cost: opts.cost,
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
