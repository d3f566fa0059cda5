/**
 * The edge of the local platform: the global API and one regional API per region, each an API Gateway
 * emulator running the real Lambda handlers, built with their factories from the same environment the
 * stacks give them. Their AWS calls go to the loopback stand-ins (real SDK clients), their HTTPS calls
 * to the accelerator / ALB names, which resolve to 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { aggregatorEnvironment } from '../contracts/env/aggregator.js';
import { createHandlerFromEnv as createAggregator } from '../lambda/aggregator/index.js';
import { createHandlerFromEnv as createControlPlaneProxy } from '../lambda/control-plane-proxy/index.js';
import { createStreamingHandlerFromEnv as createInferenceProxy } from '../lambda/inference-stream-proxy/index.js';
import { silentServiceLogger } from '../cluster/shared/logger.js';
import { createLogger, type EdgeLogger } from '../lambda/shared/logger.js';
import { proxyEnvironment } from '../contracts/env/proxy.js';
import { streamifyResponse } from '../lambda/shared/streaming.js';
import { globalApiDefinition, regionalApiDefinition, type RouteHandler } from '../contracts/api-routes.js';
import type { PlatformConfig } from '../lib/config.js';
import { albHostParameterName, regionalApiParameterPath, signingKeySecretName } from '../lib/names.js';
import type { AwsStandIns } from './aws-stand-ins/index.js';
import type { LocalCredentials } from './credentials.js';
import {
  startApiGatewayEmulator,
  type AccessLogEntry,
  type ApiGatewayEmulator,
  type LambdaBinding,
} from './api-gateway-emulator/index.js';
import { loopbackLookup } from './loopback-dns.js';

export interface EdgeOptions {
  config: PlatformConfig;
  accountId: string;
  credentials: LocalCredentials;
  aws: AwsStandIns;
  /** PEM of the internal CA the proxies trust. */
  caPem: string;
  /** ARN of the signing-key secret in each region (global region included). */
  signingKeySecretArn: (region: string) => string;
  /** The accelerator's DNS name and local port (global proxies). */
  accelerator: { dnsName: string; port: number };
  /** Each region's ALB DNS name (as registered in SSM) and its router's local port. */
  albs: Readonly<Record<string, { dnsName: string; port: number }>>;
  logs: 'json' | 'silent';
  onAccessLog?: (api: string, entry: AccessLogEntry) => void;
  /** binaryMediaTypes of the global and regional APIs: the stacks set none; tests set some. */
  binaryMediaTypes?: readonly string[];
}

export interface EdgeResources {
  /** ARN of the signing-key secret replica in each region (the global region included). */
  signingKeySecretArn: (region: string) => string;
  /** Each region's ALB: the DNS name registered in SSM and ELBv2, and its router's local port. */
  albs: Record<string, { dnsName: string; port: number }>;
}

/**
 * What the stacks create in AWS for the edge, seeded into the stand-ins: the replicated signing-key
 * secret in every region, each region's ALB (an internal load balancer of this account) and its host
 * name in SSM, where the regional proxies look it up.
 */
export function seedEdgeResources(opts: {
  config: PlatformConfig;
  aws: AwsStandIns;
  signingKey: string;
  /** Local port of each region's ALB router. */
  albPorts: Readonly<Record<string, number>>;
}): EdgeResources {
  const { config, aws } = opts;
  const secretArns = new Map<string, string>();
  for (const region of new Set([config.globalRegion, ...config.regions])) {
    const secret = JSON.stringify({ current: opts.signingKey });
    secretArns.set(region, aws.secretsManager.putSecret(region, signingKeySecretName(config), secret));
  }
  const albs: Record<string, { dnsName: string; port: number }> = {};
  for (const [region, port] of Object.entries(opts.albPorts)) {
    const name = `${config.projectName}-${region}-alb`.slice(0, 32);
    const dnsName = `internal-${name}-${randomBytes(5).readUInt32BE(0)}.${region}.elb.${config.partition.dnsSuffix}`;
    aws.elbv2.addLoadBalancer(region, { name, dnsName, scheme: 'internal' });
    aws.ssm.putParameter(region, albHostParameterName(config), dnsName);
    albs[region] = { dnsName, port };
  }
  return { signingKeySecretArn: (region) => secretArns.get(region) ?? '', albs };
}

export interface LocalEdge {
  readonly global: ApiGatewayEmulator;
  readonly regional: Readonly<Record<string, ApiGatewayEmulator>>;
  close(): Promise<void>;
}

/** The proxies' environment, as the stacks set it, with the local listener ports. */
function proxyEnv(opts: EdgeOptions, region: string, mode: 'global' | 'regional'): NodeJS.ProcessEnv {
  const common = {
    backendHostname: opts.config.backendHostname,
    caPem: opts.caPem,
    signingKeySecretArn: opts.signingKeySecretArn(region),
  };
  if (mode === 'global') {
    return proxyEnvironment({
      ...common,
      mode,
      acceleratorDns: opts.accelerator.dnsName,
      backendPort: opts.accelerator.port,
    });
  }
  const alb = opts.albs[region];
  if (alb === undefined) throw new Error(`no ALB for region ${region}`);
  return proxyEnvironment({
    ...common,
    mode,
    albHostParameter: albHostParameterName(opts.config),
    backendPort: alb.port,
  });
}

/** The control-plane and inference proxies of one API, from their factories. */
function proxyLambdas(
  opts: EdgeOptions,
  region: string,
  mode: 'global' | 'regional',
  logger: (service: string) => EdgeLogger,
): Partial<Record<RouteHandler, LambdaBinding>> {
  const env = proxyEnv(opts, region, mode);
  const lookup = loopbackLookup([
    opts.accelerator.dnsName,
    ...Object.values(opts.albs).map((a) => a.dnsName),
  ]);
  const clients = opts.aws.clients(region);
  return {
    'control-plane-proxy': {
      kind: 'buffered',
      handler: createControlPlaneProxy(env, { clients, lookup, logger: logger('control-plane-proxy') }),
    },
    'inference-stream-proxy': {
      kind: 'streaming',
      handler: streamifyResponse(
        createInferenceProxy(env, { clients, lookup, logger: logger('inference-stream-proxy') }),
      ),
    },
  };
}

export async function startLocalEdge(opts: EdgeOptions): Promise<LocalEdge> {
  const { config } = opts;
  const logger = (service: string): EdgeLogger =>
    opts.logs === 'json' ? createLogger(service) : silentServiceLogger();
  const started: ApiGatewayEmulator[] = [];
  const close = async () => {
    await Promise.all(started.map((api) => api.close().catch(() => undefined)));
  };
  try {
    const regional: Record<string, ApiGatewayEmulator> = {};
    for (const region of config.regions) {
      const api = await startApiGatewayEmulator({
        api: regionalApiDefinition(config),
        region,
        accountId: opts.accountId,
        credentials: opts.credentials,
        lambdas: proxyLambdas(opts, region, 'regional', logger),
        functionName: (handler) => `${config.projectName}-${region}-${handler}`,
        ...(opts.binaryMediaTypes ? { binaryMediaTypes: opts.binaryMediaTypes } : {}),
        ...(opts.onAccessLog
          ? { onAccessLog: (e: AccessLogEntry) => opts.onAccessLog?.(`regional ${region}`, e) }
          : {}),
      });
      started.push(api);
      regional[region] = api;
      // Published where the aggregator discovers it, as each regional stack does.
      opts.aws.ssm.putParameter(
        config.globalRegion,
        `${regionalApiParameterPath(config)}/${region}`,
        api.url,
      );
    }

    // The aggregator: discovery from SSM and the expected regions, exactly the stack's variables.
    const aggregatorEnv = aggregatorEnvironment({
      discovery: { source: 'ssm', parameterPath: regionalApiParameterPath(config) },
      expectedRegions: config.regions,
    });
    const aggregator = createAggregator(aggregatorEnv, {
      ssmClient: opts.aws.ssmClient(config.globalRegion),
      credentials: {
        accessKeyId: opts.credentials.aggregator.accessKeyId,
        secretAccessKey: opts.credentials.aggregator.secretAccessKey,
        ...(opts.credentials.aggregator.sessionToken !== undefined
          ? { sessionToken: opts.credentials.aggregator.sessionToken }
          : {}),
      },
      logger: logger('aggregator'),
    });

    const globalApi = await startApiGatewayEmulator({
      api: globalApiDefinition(config),
      region: config.globalRegion,
      accountId: opts.accountId,
      credentials: opts.credentials,
      lambdas: {
        ...proxyLambdas(opts, config.globalRegion, 'global', logger),
        aggregator: { kind: 'buffered', handler: aggregator },
      },
      functionName: (handler) => `${config.projectName}-global-${handler}`,
      ...(opts.binaryMediaTypes ? { binaryMediaTypes: opts.binaryMediaTypes } : {}),
      ...(config.waf.enabled ? { waf: config.waf } : {}),
      ...(opts.onAccessLog ? { onAccessLog: (e: AccessLogEntry) => opts.onAccessLog?.('global', e) } : {}),
    });
    started.push(globalApi);
    return { global: globalApi, regional, close };
  } catch (error) {
    await close();
    throw error;
  }
}
