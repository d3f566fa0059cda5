/**
 * Wiring shared by the two proxies: AWS clients, key source and target resolver from a ProxyConfig, and
 * the per-request steps both take (log fields, target and envelope, time budget).
 */
import { awsClientConfig } from '../../contracts/runtime/aws-clients.js';
import type { LookupFunction } from 'node:net';
import { ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { Context } from 'aws-lambda';
import {
  RegionalTargetResolver,
  staticTargetResolver,
  targetFactory,
  type BackendTarget,
  type TargetResolver,
} from './backend-target.js';
import { internalError } from './errors.js';
import type { OutboundRequest } from './http-forward.js';
import { createLogger, type EdgeLogger } from './logger.js';
import type { ProxyConfig } from '../../contracts/env/proxy.js';
import { withEnvelope, type ProxyEvent } from './proxy-request.js';
import { secretsManagerKeySource } from '../../contracts/runtime/secrets-key-source.js';
import type { KeySource } from '../../contracts/envelope/signing-keys.js';

/** The Lambda context fields the proxies use (tests pass just these). */
export type ProxyContext = Pick<Context, 'awsRequestId' | 'invokedFunctionArn'> &
  Partial<Pick<Context, 'getRemainingTimeInMillis'>>;

export interface AwsClients {
  secretsManager: Pick<SecretsManagerClient, 'send'>;
  ssm: Pick<SSMClient, 'send'>;
  elbv2: ElasticLoadBalancingV2Client;
}

/**
 * Set at bundle time, never at run time: a global proxy's bundle is built with
 * `process.env.GCO_PROXY_BUNDLE` defined as `"global"` (GLOBAL_PROXY_BUNDLE in
 * lib/constructs/platform-function.ts), which leaves the regional lookup and the SSM and ELBv2 clients
 * only it uses out of that bundle (docs/edge-lambdas.md, "Bundles and init"). Unset (tests, the local
 * platform, regional bundles): both modes.
 */
const GLOBAL_ONLY_MESSAGE =
  'this bundle was built for a global proxy (GCO_PROXY_BUNDLE=global): it has no regional target lookup';

/** Overrides for the from-environment factories (tests, the local platform). */
export interface FromEnvOptions {
  clients?: AwsClients;
  logger?: EdgeLogger;
  /** DNS override: the local platform maps the accelerator / ALB names to 127.0.0.1. */
  lookup?: LookupFunction;
  /** Reads INTERNAL_CA_FILE. */
  readFile?: (path: string) => string;
}

/** What both proxies' handlers are built from. */
export interface ProxyDeps {
  keys: KeySource;
  targets: TargetResolver;
  /** Host header for the backend (`backend.<project>.<internal_domain>`). */
  hostHeader: string;
  logger?: EdgeLogger;
  /** Label for logs. */
  mode?: string;
}

/**
 * The deps a configuration asks for: the accelerator (global) or SSM + ELBv2 (regional), the signing
 * key from Secrets Manager, and the logger (`service` names it when the caller passes none).
 */
export function proxyDeps(config: ProxyConfig, opts: FromEnvOptions, service: string): ProxyDeps {
  const logger = opts.logger ?? createLogger(service);
  const makeTarget = targetFactory({
    caPem: config.caPem,
    servername: config.backendHostname,
    port: config.backendPort,
    ...(opts.lookup ? { lookup: opts.lookup } : {}),
  });
  // SDK clients for the function's own region (AWS_REGION, set by Lambda) unless the caller passes them.
  const keys = secretsManagerKeySource(
    opts.clients?.secretsManager ?? new SecretsManagerClient(awsClientConfig({ component: 'edge-proxy' })),
    config.signingKeySecretArn,
  );
  const common = { keys, hostHeader: config.backendHostname, logger, mode: config.mode };
  if (config.mode === 'global') {
    return { ...common, targets: staticTargetResolver(makeTarget(config.acceleratorDns ?? '')) };
  }
  // The bundler drops this branch (and with it RegionalTargetResolver, SSM and ELBv2) from a global bundle.
  if (process.env['GCO_PROXY_BUNDLE'] !== 'global') {
    const targets = new RegionalTargetResolver({
      ssm: opts.clients?.ssm ?? new SSMClient(awsClientConfig({ component: 'edge-proxy' })),
      elbv2:
        opts.clients?.elbv2 ?? new ElasticLoadBalancingV2Client(awsClientConfig({ component: 'edge-proxy' })),
      parameterName: config.albHostParameter ?? '',
      ...(config.accountId !== undefined ? { accountId: config.accountId } : {}),
      ttlMs: config.albCacheTtlMs,
      makeTarget,
      logger,
    });
    return { ...common, targets };
  }
  throw new Error(GLOBAL_ONLY_MESSAGE);
}

/** The request fields of every log line of a proxy (never headers, bodies or query strings). */
export function requestLogFields(event: ProxyEvent, mode: string | undefined): Record<string, unknown> {
  return {
    request_id: event.requestContext?.requestId,
    method: event.httpMethod,
    path: event.path,
    mode,
  };
}

/** The backend to call and the prepared request with its envelope, signed with the current key. */
export async function signedForBackend(
  deps: Pick<ProxyDeps, 'keys' | 'targets'>,
  prepared: OutboundRequest,
  context: ProxyContext,
): Promise<{ target: BackendTarget; signed: OutboundRequest }> {
  const target = await deps.targets.resolve({ invokedFunctionArn: context.invokedFunctionArn });
  return { target, signed: withEnvelope(prepared, await currentSigningKey(deps.keys)) };
}

/** The current signing key; a key store failure is the proxy's own 500. */
async function currentSigningKey(keys: KeySource): Promise<string> {
  try {
    return (await keys.get()).current;
  } catch (error) {
    throw internalError('signing_key_unavailable', error);
  }
}

/**
 * `limitMs`, shortened so the proxy still answers (504) before Lambda kills the invocation at its own
 * timeout: `marginMs` is kept back from the remaining time.
 */
export function budgetMs(limitMs: number, context: ProxyContext, marginMs = 1_000): number {
  const remaining = context.getRemainingTimeInMillis?.();
  return remaining === undefined ? limitMs : Math.max(0, Math.min(limitMs, remaining - marginMs));
}
