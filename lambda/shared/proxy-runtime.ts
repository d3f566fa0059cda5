/**
 * Wiring shared by the two proxies: AWS clients, key source and target resolver from a ProxyConfig, the
 * lazily built handler (configuration read on the first invocation of a sandbox, never at import), and
 * small per-request helpers.
 */
import type { LookupFunction } from 'node:net';
import { ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { Context } from 'aws-lambda';
import {
  RegionalTargetResolver,
  staticTargetResolver,
  targetFactory,
  type TargetResolver,
} from './backend-target.js';
import { describeError, internalError } from './errors.js';
import type { EdgeLogger } from './logger.js';
import type { ProxyConfig } from './proxy-config.js';
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

/** SDK clients for the function's own region (AWS_REGION, set by Lambda). */
export function defaultAwsClients(): AwsClients {
  return {
    secretsManager: new SecretsManagerClient({}),
    ssm: new SSMClient({}),
    elbv2: new ElasticLoadBalancingV2Client({}),
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

export interface ProxyDeps {
  keys: KeySource;
  targets: TargetResolver;
}

/** Key source and target resolver for a configuration (global: the accelerator; regional: SSM + ELBv2). */
export function proxyDeps(
  config: ProxyConfig,
  clients: AwsClients,
  logger: EdgeLogger,
  lookup?: LookupFunction,
): ProxyDeps {
  const makeTarget = targetFactory({
    caPem: config.caPem,
    servername: config.backendHostname,
    port: config.backendPort,
    ...(lookup ? { lookup } : {}),
  });
  const keys = secretsManagerKeySource(clients.secretsManager, config.signingKeySecretArn);
  if (config.mode === 'global') {
    return { keys, targets: staticTargetResolver(makeTarget(config.acceleratorDns ?? '')) };
  }
  const targets = new RegionalTargetResolver({
    ssm: clients.ssm,
    elbv2: clients.elbv2,
    parameterName: config.albHostParameter ?? '',
    ...(config.accountId !== undefined ? { accountId: config.accountId } : {}),
    ttlMs: config.albCacheTtlMs,
    makeTarget,
    logger,
  });
  return { keys, targets };
}

/** The current signing key; a key store failure is the proxy's own 500. */
export async function currentSigningKey(keys: KeySource): Promise<string> {
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

/**
 * A handler built on first use. Configuration errors are logged once and every invocation then fails the
 * same way (`onConfigError`) instead of crashing the sandbox on import.
 */
export function lazyHandler<A extends unknown[], R>(
  build: () => (...args: A) => Promise<R>,
  onConfigError: (...args: A) => Promise<R>,
  logger: () => EdgeLogger,
): (...args: A) => Promise<R> {
  let built: ((...args: A) => Promise<R>) | undefined;
  let failed = false;
  return (...args: A) => {
    if (built === undefined && !failed) {
      try {
        built = build();
      } catch (error) {
        failed = true;
        logger().error('invalid configuration; every request fails until it is fixed', describeError(error));
      }
    }
    return built ? built(...args) : onConfigError(...args);
  };
}
