/**
 * The per-region inference reconciler (docs/inference-reconciler.md): endpoint records of the central
 * table → Kubernetes objects in gco-inference → `regions.<region>` of each record. Built here from its
 * configuration; the processor starts it with its background loops and stops it on close.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { ReadinessCheck } from '../../../shared/probes.js';
import type { InferenceReconcilerConfig } from './config.js';
import { LeaderElector } from './leader.js';
import { ReconcileLoop } from './loop.js';
import { InferenceReconciler } from './reconcile.js';
import { EndpointRecordStore } from './records.js';

export { loadInferenceReconcilerConfig, type InferenceReconcilerConfig } from './config.js';

export interface InferenceReconcilerService {
  readonly reconciler: InferenceReconciler;
  readonly loop: ReconcileLoop;
  /** The loop's readiness, when enabled. */
  readonly readiness: Record<string, ReadinessCheck>;
  /** Reconciles now (an API write changed a record); a no-op when the loop is not running. */
  trigger(): void;
  start(): void;
  close(): Promise<void>;
}

export interface InferenceReconcilerServiceOptions {
  config: InferenceReconcilerConfig;
  /** Client of the global region, where the central table lives. */
  dynamodb: DynamoDBClient;
  kubeConfig: KubeConfig;
  logger?: Logger;
  now?: () => number;
}

export function createInferenceReconciler(
  opts: InferenceReconcilerServiceOptions,
): InferenceReconcilerService {
  const { config } = opts;
  const logger = opts.logger?.child({ component: 'inference-reconciler' });
  const elector = new LeaderElector({
    kubeConfig: opts.kubeConfig,
    identity: config.replicaId,
    leaseDurationSeconds: config.leaseDurationSeconds,
    ...(opts.now ? { now: opts.now } : {}),
  });
  const reconciler = new InferenceReconciler({
    kubeConfig: opts.kubeConfig,
    store: new EndpointRecordStore(opts.dynamodb, config.tableName),
    elector,
    region: config.region,
    settings: {
      tlsSidecarImage: config.tlsSidecarImage,
      tlsSecretName: config.tlsSecretName,
      tlsSidecarConfigMap: config.tlsSidecarConfigMap,
    },
    gracePeriodMs: config.gracePeriodMs,
    ...(logger ? { logger } : {}),
    ...(opts.now ? { now: opts.now } : {}),
  });
  const loop = new ReconcileLoop({
    reconciler,
    elector,
    intervalMs: config.intervalMs,
    ...(logger ? { logger } : {}),
  });
  return {
    reconciler,
    loop,
    readiness: config.enabled ? { inference_reconciler: () => loop.running } : {},
    trigger: () => loop.trigger(),
    start() {
      if (config.enabled) loop.start();
    },
    close: () => loop.stop(),
  };
}
