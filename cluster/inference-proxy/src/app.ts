/**
 * inference-proxy: authenticated streaming reverse proxy to managed inference endpoints. Resolves
 * `/inference/<endpoint_name>/<path>` by name (forward.ts) and streams the model server's answer back
 * chunk by chunk (relay.ts). Rules and record format: docs/inference-proxy.md.
 */
import { awsClientConfig } from '../../../contracts/runtime/aws-clients.js';
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Logger } from 'pino';
import type { EnvelopeVerifier, KeySource } from '../../../contracts/envelope/envelope.js';
import { envelopeVerifierFromEnv } from '../../shared/envelope-verifier.js';
import { createService, type Service } from '../../shared/service.js';
import { loadInferenceProxyEnvConfig, type InferenceProxyConfig } from './config.js';
import { fastPathFront } from './fast-path.js';
import { createForwarder, createProxyInstruments } from './forward.js';
import { SERVICE_NAME, SERVICE_VERSION } from './identity.js';
import { descriptorRoutes, PROXY_PREFIX, proxyRoutes } from './routes.js';
import { DynamoEndpointSource, EndpointCache, type EndpointSource } from './store.js';
import { UpstreamClient, type UpstreamResolver } from './upstream.js';

export interface InferenceProxyDeps {
  config: InferenceProxyConfig;
  envelope: EnvelopeVerifier;
  /** Endpoint records (DynamoEndpointSource in a deployment); cached for config.endpointCacheTtlMs. */
  endpoints: EndpointSource;
  /** PEM bundle of the internal CA the model servers' certificates must chain to. */
  ca: string | Buffer;
  /** Canary draw in [0, 1); Math.random unless a test injects a seeded source. */
  random?: () => number;
  /** Clock of the endpoint cache (tests). */
  now?: () => number;
  logger?: Logger;
  /** Serve HTTPS directly (a pod without a TLS sidecar). */
  https?: { key: string | Buffer; cert: string | Buffer };
  /** Local platform only (upstream.ts UpstreamResolver); a cluster's DNS and kube-proxy do this. */
  resolveUpstream?: UpstreamResolver;
}

export interface InferenceProxy extends Service {
  readonly cache: EndpointCache;
}

export async function createInferenceProxy(deps: InferenceProxyDeps): Promise<InferenceProxy> {
  const { config } = deps;
  const cache = new EndpointCache(deps.endpoints, {
    ttlMs: config.endpointCacheTtlMs,
    ...(deps.now ? { now: deps.now } : {}),
  });
  const upstream = new UpstreamClient({
    ca: deps.ca,
    headersTimeoutMs: config.upstreamTimeoutMs,
    ...(deps.resolveUpstream ? { resolve: deps.resolveUpstream } : {}),
  });
  // Joined to the service's own registry once it exists (createService builds it).
  const instruments = createProxyInstruments();
  const forward = createForwarder({
    config,
    cache,
    upstream,
    instruments,
    random: deps.random ?? Math.random,
  });
  const service = await createService({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description: 'Authenticated streaming reverse proxy to managed inference endpoints',
    envelope: deps.envelope,
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.https ? { https: deps.https } : {}),
    // Endpoints and model servers are resolved per request; nothing can make this pod unready but draining.
    readiness: {},
    onClose: () => upstream.close(),
    // The plain proxied requests skip Fastify's generic chain (fast-path.ts).
    front: (service) => fastPathFront({ service, forward, envelope: deps.envelope }),
    routes: async (app) => {
      await app.register(descriptorRoutes, { config });
      await app.register(proxyRoutes, { prefix: PROXY_PREFIX, forward });
    },
  });
  service.metrics.registry.registerMetric(instruments.upstream);
  service.metrics.registry.registerMetric(instruments.headers);
  return { ...service, cache };
}

/** What a caller may supply instead of what the environment would give (tests, the local platform). */
export interface InferenceProxyOverrides {
  /** Client of the central tables' region. */
  dynamodb?: DynamoDBClient;
  keys?: KeySource;
  logger?: Logger;
  /** Where Service hosts connect (the local platform's stand-in for CoreDNS + kube-proxy). */
  resolveUpstream?: UpstreamResolver;
}

/** inference-proxy as its environment describes it: main.ts and the local platform both start it here. */
export async function createInferenceProxyFromEnv(
  env: NodeJS.ProcessEnv,
  overrides: InferenceProxyOverrides = {},
): Promise<InferenceProxy> {
  const settings = loadInferenceProxyEnvConfig(env);
  const envelope = envelopeVerifierFromEnv(env, overrides.keys);
  const dynamodb =
    overrides.dynamodb ??
    new DynamoDBClient(
      awsClientConfig({
        component: 'inference-proxy',
        // The central table lives in the global region; every region's proxy reads it there.
        region: settings.tablesRegion,
        ...(settings.dynamodbEndpoint ? { endpoint: settings.dynamodbEndpoint } : {}),
        // Bounded lookups: a slow table must surface as a 503, not as requests piling up behind it.
        connectionTimeoutMs: 2_000,
        requestTimeoutMs: 5_000,
      }),
    );
  return createInferenceProxy({
    config: settings.config,
    envelope,
    endpoints: new DynamoEndpointSource(dynamodb, settings.tableName),
    ca: readFileSync(settings.caFile),
    ...(overrides.logger ? { logger: overrides.logger } : {}),
    ...(overrides.resolveUpstream ? { resolveUpstream: overrides.resolveUpstream } : {}),
  });
}
