/** inference-proxy configuration from environment variables (docs/inference-proxy.md, "Environment"). */
import { TABLES } from '../../../lib/tables.js';
import { EnvConfigError, EnvReader } from '../../shared/env.js';

export interface InferenceProxyConfig {
  /** The region this proxy serves: an endpoint is forwarded to only while it is `running` here. */
  region: string;
  /** Deadline from sending the request to the model server's response headers (504 beyond). */
  upstreamTimeoutMs: number;
  /** Longest silence allowed inside a streamed response before both sides are cut (ALB idle timeout). */
  streamIdleTimeoutMs: number;
  /** How long an endpoint record (or its absence) is reused before DynamoDB is asked again. */
  endpointCacheTtlMs: number;
}

export const INFERENCE_PROXY_DEFAULTS = {
  upstreamTimeoutMs: 60_000,
  // Seed 000: the load balancer's idle timeout is 300 s; a silent stream longer than that is dead anyway.
  streamIdleTimeoutMs: 300_000,
  endpointCacheTtlMs: 5_000,
} as const;

/** Everything main.ts needs besides the config proper: where the table and the CA live. */
export interface InferenceProxySettings {
  config: InferenceProxyConfig;
  tableName: string;
  /** PEM bundle of the cluster internal CA the model pods' TLS sidecars chain to. */
  caFile: string;
  /** Region of the central tables (the global region); defaults to this pod's AWS region. */
  tablesRegion: string;
  /** DynamoDB endpoint override for local runs (dynalite); unset in a deployment. */
  dynamodbEndpoint: string | undefined;
  envelopeFreshnessSeconds: number;
}

export function loadInferenceProxySettings(env: NodeJS.ProcessEnv = process.env): InferenceProxySettings {
  const read = new EnvReader(env);
  const region = read.optionalString('REGION') ?? read.optionalString('AWS_REGION');
  const tableName = read.optionalString(TABLES.inferenceEndpoints.envVar);
  const caFile = read.optionalString('INTERNAL_CA_FILE');
  const config: InferenceProxyConfig = {
    region: region ?? '',
    upstreamTimeoutMs: read.number('UPSTREAM_TIMEOUT_MS', INFERENCE_PROXY_DEFAULTS.upstreamTimeoutMs, {
      min: 100,
      // The edge's streaming window is 900 s; waiting longer for headers could never reach the caller.
      max: 900_000,
      integer: true,
    }),
    streamIdleTimeoutMs: read.number(
      'UPSTREAM_IDLE_TIMEOUT_MS',
      INFERENCE_PROXY_DEFAULTS.streamIdleTimeoutMs,
      { min: 100, max: 900_000, integer: true },
    ),
    endpointCacheTtlMs: read.number('ENDPOINT_CACHE_TTL_MS', INFERENCE_PROXY_DEFAULTS.endpointCacheTtlMs, {
      min: 0,
      max: 60_000,
      integer: true,
    }),
  };
  const settings: InferenceProxySettings = {
    config,
    tableName: tableName ?? '',
    caFile: caFile ?? '',
    tablesRegion: read.optionalString('GLOBAL_REGION') ?? read.optionalString('AWS_REGION') ?? region ?? '',
    dynamodbEndpoint: read.optionalString('DYNAMODB_ENDPOINT'),
    envelopeFreshnessSeconds: read.number('ENVELOPE_FRESHNESS_SECONDS', 30, { min: 5, max: 300 }),
  };
  read.done();
  const missing: string[] = [];
  if (!region)
    missing.push('REGION: not set (nor AWS_REGION); the region whose running endpoints are served');
  if (!tableName) {
    missing.push(
      `${TABLES.inferenceEndpoints.envVar}: not set (name of the ${TABLES.inferenceEndpoints.id} table)`,
    );
  }
  if (!caFile) missing.push('INTERNAL_CA_FILE: not set (PEM bundle of the cluster internal CA)');
  if (missing.length > 0) throw new EnvConfigError(missing);
  return settings;
}
