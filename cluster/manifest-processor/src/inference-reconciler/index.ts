/**
 * The per-region inference reconciler (docs/inference-reconciler.md): endpoint records of the central
 * table → Kubernetes objects in gco-inference → `regions.<region>` of each record. Built here from its
 * configuration; the processor starts it with its background loops and stops it on close.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { awsClientConfig } from '../../../../contracts/runtime/aws-clients.js';
import type { ReadinessCheck } from '../../../shared/probes.js';
import type { InferenceReconcilerConfig } from './config.js';
import { LeaderElector } from './leader.js';
import { ReconcileLoop } from './loop.js';
import { InferenceReconciler } from './reconcile.js';
import { EndpointRecordStore } from './records.js';
import { TlsSecretSync } from './tls-secret-sync.js';

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
  const tlsSync = config.tlsKeyPairSecretArn
    ? new TlsSecretSync({
        kubeConfig: opts.kubeConfig,
        secrets: new SecretsManagerClient(
          awsClientConfig({ component: 'inference-tls', region: regionOfArn(config.tlsKeyPairSecretArn) }),
        ),
        keyPairSecretArn: config.tlsKeyPairSecretArn,
        secretName: config.tlsSecretName,
        refreshMs: config.tlsRefreshMs,
        ...(logger ? { logger } : {}),
        ...(opts.now ? { now: opts.now } : {}),
      })
    : undefined;
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
    ...(tlsSync ? { tlsSync } : {}),
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

/** The region of a Secrets Manager ARN (arn:<partition>:secretsmanager:<region>:<account>:secret:<name>). */
function regionOfArn(arn: string): string {
  const region = arn.split(':')[3];
  if (!region) throw new Error(`INFERENCE_TLS_KEY_PAIR_SECRET_ARN: ${arn} is not a Secrets Manager ARN`);
  return region;
}
