/**
 * Wiring shared by the two proxies: AWS clients, key source and target resolver from a ProxyConfig, and
 * the per-request steps both take (log fields, target and envelope, time budget).
 */
import type { LookupFunction } from 'node:net';
import type { ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SSMClient } from '@aws-sdk/client-ssm';
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
import type { ProxyConfig } from './proxy-config.js';
import { withEnvelope, type ProxyEvent } from './proxy-request.js';
import { secretsManagerKeySource } from './secrets-key-source.js';
import type { KeySource } from './signing-keys.js';

/** The Lambda context fields the proxies use (tests pass just these). */
export type ProxyContext = Pick<Context, 'awsRequestId' | 'invokedFunctionArn'> &
  Partial<Pick<Context, 'getRemainingTimeInMillis'>>;

export interface AwsClients {
  secretsManager: Pick<SecretsManagerClient, 'send'>;
  ssm: Pick<SSMClient, 'send'>;
  elbv2: ElasticLoadBalancingV2Client;
}

/**
 * The regional mode's SDK clients for the function's own region (AWS_REGION, set by Lambda). Their
 * modules are imported on the first target lookup, never at module init, so a global proxy (which
 * never calls SSM or ELBv2) does not pay for them (docs/edge-lambdas.md, "Bundles and init").
 */
async function regionalAwsClients(): Promise<Pick<AwsClients, 'ssm' | 'elbv2'>> {
  const [ssm, elbv2] = await Promise.all([
    import('@aws-sdk/client-ssm'),
    import('@aws-sdk/client-elastic-load-balancing-v2'),
  ]);
  return { ssm: new ssm.SSMClient({}), elbv2: new elbv2.ElasticLoadBalancingV2Client({}) };
}

/** A resolver built on its first use (a failed build is retried on the next request). */
function deferredResolver(build: () => Promise<TargetResolver>): TargetResolver {
  let built: Promise<TargetResolver> | undefined;
  return {
    async resolve(ctx) {
      const pending = (built ??= build());
      pending.catch(() => {
        if (built === pending) built = undefined;
      });
      return (await pending).resolve(ctx);
    },
  };
}

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
  const { clients } = opts;
  const makeTarget = targetFactory({
    caPem: config.caPem,
    servername: config.backendHostname,
    port: config.backendPort,
    ...(opts.lookup ? { lookup: opts.lookup } : {}),
  });
  const keys = secretsManagerKeySource(
    clients?.secretsManager ?? new SecretsManagerClient({}),
    config.signingKeySecretArn,
  );
  const common = { keys, hostHeader: config.backendHostname, logger, mode: config.mode };
  if (config.mode === 'global') {
    return { ...common, targets: staticTargetResolver(makeTarget(config.acceleratorDns ?? '')) };
  }
  const regional = (regionalClients: Pick<AwsClients, 'ssm' | 'elbv2'>): TargetResolver =>
    new RegionalTargetResolver({
      ssm: regionalClients.ssm,
      elbv2: regionalClients.elbv2,
      parameterName: config.albHostParameter ?? '',
      ...(config.accountId !== undefined ? { accountId: config.accountId } : {}),
      ttlMs: config.albCacheTtlMs,
      makeTarget,
      logger,
    });
  const targets = clients
    ? regional(clients)
    : deferredResolver(async () => regional(await regionalAwsClients()));
  return { ...common, targets };
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
