/**
 * The inference reconciler's environment contract (docs/inference-reconciler.md), read and written here
 * like the queue's: one reader, so one startup error names every problem.
 */
import { TABLES } from '../../../../contracts/tables.js';
import { readContract, variablesOf, type EnvSource } from '../../../shared/env-source.js';
import { replicaId } from '../../../shared/replica-id.js';

export interface InferenceReconcilerConfig {
  /** Run the reconciler (INFERENCE_RECONCILER_ENABLED); off, this processor serves only the API. */
  enabled: boolean;
  /** Physical name of the central inference-endpoints table (required when enabled). */
  tableName: string;
  /** The region whose objects this reconciler owns (REGION / AWS_REGION, like the processor's). */
  region: string;
  /** Pause between passes; a write through the API also triggers one at once (trigger()). */
  intervalMs: number;
  /** Seconds a Lease holder keeps leadership without renewing (Lease spec.leaseDurationSeconds). */
  leaseDurationSeconds: number;
  /** After this long with some but not all replicas ready, the region reports `degraded`. */
  gracePeriodMs: number;
  /** Image of the TLS sidecar in front of every model container. */
  tlsSidecarImage: string;
  /** Secret (type kubernetes.io/tls, in gco-inference) holding the internal-CA-issued serving certificate. */
  tlsSecretName: string;
  /**
   * Secrets Manager key pair (the regional stack's InferenceCertificate) synced into `tlsSecretName`;
   * unset on the local platform, which serves the models' TLS its own way: then nothing is synced.
   */
  tlsKeyPairSecretArn?: string;
  /** Longest time between two reads of that key pair (a renewal shows up within it). */
  tlsRefreshMs: number;
  /** ConfigMap (in gco-inference) holding the sidecar's nginx configuration template. */
  tlsSidecarConfigMap: string;
  /** Identifies this replica as Lease holder. */
  replicaId: string;
}

export const INFERENCE_RECONCILER_DEFAULTS = {
  intervalMs: 5_000,
  leaseDurationSeconds: 15,
  gracePeriodMs: 300_000,
  // nginx-unprivileged runs as UID 101 and listens on unprivileged ports (pod security `restricted`).
  tlsSidecarImage: 'public.ecr.aws/nginx/nginx-unprivileged:1.27-alpine',
  tlsSecretName: 'gco-inference-tls',
  tlsRefreshMs: 300_000,
  tlsSidecarConfigMap: 'gco-inference-tls-sidecar',
} as const;

const VARIABLES = {
  enabled: 'INFERENCE_RECONCILER_ENABLED',
  tableName: TABLES.inferenceEndpoints.envVar,
  region: 'REGION',
  intervalMs: 'INFERENCE_RECONCILE_INTERVAL_MS',
  leaseDurationSeconds: 'INFERENCE_RECONCILER_LEASE_SECONDS',
  gracePeriodMs: 'INFERENCE_RECONCILER_GRACE_MS',
  tlsSidecarImage: 'INFERENCE_TLS_SIDECAR_IMAGE',
  tlsSecretName: 'INFERENCE_TLS_SECRET',
  tlsKeyPairSecretArn: 'INFERENCE_TLS_KEY_PAIR_SECRET_ARN',
  tlsRefreshMs: 'INFERENCE_TLS_REFRESH_MS',
  tlsSidecarConfigMap: 'INFERENCE_TLS_SIDECAR_CONFIGMAP',
  replicaId: 'INFERENCE_RECONCILER_ID',
} as const satisfies Record<keyof InferenceReconcilerConfig, string>;

const optionalArn = (arn: string | undefined) => (arn ? { tlsKeyPairSecretArn: arn } : {});

export function loadInferenceReconcilerConfig(env: EnvSource = process.env): InferenceReconcilerConfig {
  return readContract(env, (read) => {
    const enabled = read.boolean(VARIABLES.enabled, false);
    const tableName = enabled
      ? (read.required(VARIABLES.tableName, `name of the ${TABLES.inferenceEndpoints.id} table`) ?? '')
      : (read.optional(VARIABLES.tableName) ?? '');
    return {
      enabled,
      tableName,
      region: read.string(VARIABLES.region, read.string('AWS_REGION', 'local')),
      intervalMs: read.integer(VARIABLES.intervalMs, INFERENCE_RECONCILER_DEFAULTS.intervalMs, {
        min: 50,
        max: 3_600_000,
      }),
      leaseDurationSeconds: read.integer(
        VARIABLES.leaseDurationSeconds,
        INFERENCE_RECONCILER_DEFAULTS.leaseDurationSeconds,
        { min: 1, max: 3_600 },
      ),
      gracePeriodMs: read.integer(VARIABLES.gracePeriodMs, INFERENCE_RECONCILER_DEFAULTS.gracePeriodMs, {
        min: 0,
        max: 86_400_000,
      }),
      tlsSidecarImage: read.string(VARIABLES.tlsSidecarImage, INFERENCE_RECONCILER_DEFAULTS.tlsSidecarImage),
      tlsSecretName: read.string(VARIABLES.tlsSecretName, INFERENCE_RECONCILER_DEFAULTS.tlsSecretName),
      ...optionalArn(read.optional(VARIABLES.tlsKeyPairSecretArn)),
      tlsRefreshMs: read.integer(VARIABLES.tlsRefreshMs, INFERENCE_RECONCILER_DEFAULTS.tlsRefreshMs, {
        min: 1_000,
        max: 86_400_000,
      }),
      tlsSidecarConfigMap: read.string(
        VARIABLES.tlsSidecarConfigMap,
        INFERENCE_RECONCILER_DEFAULTS.tlsSidecarConfigMap,
      ),
      replicaId: read.optional(VARIABLES.replicaId) ?? replicaId(read),
    };
  });
}

export function inferenceReconcilerEnvironment(
  config: Partial<InferenceReconcilerConfig>,
): Record<string, string> {
  return variablesOf(VARIABLES, config);
}
