/**
 * inference-proxy configuration: its environment contract, read and written here
 * (docs/inference-proxy.md, "Environment").
 */
import { TABLES } from '../../../contracts/tables.js';
import { readContract, variables, type EnvSource } from '../../shared/env-source.js';

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
  // The load balancer's idle timeout is 300 s (docs/regional-stack.md); a silent stream longer than that
  // is dead anyway.
  streamIdleTimeoutMs: 300_000,
  endpointCacheTtlMs: 5_000,
} as const;

/** The config proper plus where the wiring finds the endpoint table and the CA. */
export interface InferenceProxyEnvConfig {
  config: InferenceProxyConfig;
  tableName: string;
  /** PEM bundle of the cluster internal CA the model pods' TLS sidecars chain to. */
  caFile: string;
  /** Region of the central tables (the global region); defaults to this pod's AWS region. */
  tablesRegion: string;
  /** DynamoDB endpoint override for local runs (dynalite); unset in a deployment. */
  dynamodbEndpoint: string | undefined;
}

const VARIABLES = {
  region: 'REGION',
  upstreamTimeoutMs: 'UPSTREAM_TIMEOUT_MS',
  streamIdleTimeoutMs: 'UPSTREAM_IDLE_TIMEOUT_MS',
  endpointCacheTtlMs: 'ENDPOINT_CACHE_TTL_MS',
  tableName: TABLES.inferenceEndpoints.envVar,
  caFile: 'INTERNAL_CA_FILE',
  tablesRegion: 'GLOBAL_REGION',
  dynamodbEndpoint: 'DYNAMODB_ENDPOINT',
} as const;

export function loadInferenceProxyEnvConfig(env: EnvSource = process.env): InferenceProxyEnvConfig {
  return readContract(env, (read) => {
    const region = read.optional(VARIABLES.region) ?? read.optional('AWS_REGION');
    if (region === undefined) {
      read.problem(
        `${VARIABLES.region}: required (nor AWS_REGION; the region whose running endpoints are served)`,
      );
    }
    const config: InferenceProxyConfig = {
      region: region ?? '',
      upstreamTimeoutMs: read.integer(
        VARIABLES.upstreamTimeoutMs,
        INFERENCE_PROXY_DEFAULTS.upstreamTimeoutMs,
        {
          min: 100,
          // The edge's streaming window is 900 s; waiting longer for headers could never reach the caller.
          max: 900_000,
        },
      ),
      streamIdleTimeoutMs: read.integer(
        VARIABLES.streamIdleTimeoutMs,
        INFERENCE_PROXY_DEFAULTS.streamIdleTimeoutMs,
        { min: 100, max: 900_000 },
      ),
      endpointCacheTtlMs: read.integer(
        VARIABLES.endpointCacheTtlMs,
        INFERENCE_PROXY_DEFAULTS.endpointCacheTtlMs,
        { min: 0, max: 60_000 },
      ),
    };
    return {
      config,
      tableName:
        read.required(VARIABLES.tableName, `name of the ${TABLES.inferenceEndpoints.id} table`) ?? '',
      caFile: read.required(VARIABLES.caFile, 'PEM bundle of the cluster internal CA') ?? '',
      tablesRegion: read.optional(VARIABLES.tablesRegion) ?? read.optional('AWS_REGION') ?? region ?? '',
      dynamodbEndpoint: read.optional(VARIABLES.dynamodbEndpoint),
    };
  });
}

export function inferenceProxyEnvironment(
  settings: Partial<Omit<InferenceProxyEnvConfig, 'config'>> & { config?: Partial<InferenceProxyConfig> },
): Record<string, string> {
  const { config = {} } = settings;
  return variables({
    [VARIABLES.region]: config.region,
    [VARIABLES.upstreamTimeoutMs]: config.upstreamTimeoutMs,
    [VARIABLES.streamIdleTimeoutMs]: config.streamIdleTimeoutMs,
    [VARIABLES.endpointCacheTtlMs]: config.endpointCacheTtlMs,
    [VARIABLES.tableName]: settings.tableName,
    [VARIABLES.caFile]: settings.caFile,
    [VARIABLES.tablesRegion]: settings.tablesRegion,
    [VARIABLES.dynamodbEndpoint]: settings.dynamodbEndpoint,
  });
}
