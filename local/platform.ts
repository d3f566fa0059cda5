/**
 * The local platform: everything on 127.0.0.1 with no AWS account, reached as users reach a deployment.
 *
 *   caller ──SigV4──▶ API Gateway emulator (global /prod, regional /prod per region, analytics /live)
 *     ──▶ real Lambda handlers ──HTTPS──▶ accelerator (TCP pass-through) / regional ALB router (TLS)
 *     ──▶ cluster services (per region) ──▶ Kubernetes API simulator, DynamoDB, S3, model server
 *
 * Stand-ins for what AWS provides: dynalite (central tables in the global region, regional tables per
 * region), s3rver, kinesalite, Secrets Manager / SSM / ELBv2 on loopback, a throw-away internal CA and
 * random IAM credentials per run. State is in memory unless `dataDir` is given (local/data-dir.ts). `bin/local.mjs` (npm start) runs local/cli.ts around this; tests start it in-process.
 * docs/local-platform.md describes the pieces, ports and limits.
 */
import { randomBytes } from 'node:crypto';
import { loadConfig, type PlatformConfig } from '../lib/config.js';
import { aggregatorRoleName } from '../lib/names.js';
import { TABLES, tableName } from '../contracts/tables.js';
import { startAccelerator } from './accelerator.js';
import { startLocalAnalytics, type LocalAnalytics } from './analytics.js';
import { startAwsStandIns } from './aws-stand-ins/index.js';
import { createLocalCredentials } from './credentials.js';
import { claimDataDir, dataPath, readIdentity, writeIdentity } from './data-dir.js';
import { startLocalDynamo } from './dynamodb.js';
import { seedEdgeResources, startLocalEdge } from './edge.js';
import { registerInferenceEndpoint } from './inference-endpoint.js';
import type { KubeletTiming } from './kube-api-simulator/index.js';
import type { ModelServerOptions } from './model-server.js';
import { MODEL_HEALTH_PATH, MODEL_SERVING_PATHS, startModelServer } from './model-server.js';
import { LOCAL_HOST, localRegistry, localSampleImage, startLocalRegion, type LocalRegion } from './region.js';
import { createLocalCa } from './tls.js';

const DEFAULT_REGION = 'us-east-1';
const GLOBAL_REGION = 'us-east-2';
export const PROJECT = 'gco';
/** The account id the local platform plays (no real account is involved). */
export const LOCAL_ACCOUNT_ID = '000000000000';
/** The sample inference endpoint registered at startup. */
export const SAMPLE_ENDPOINT = 'sample-model';

interface RegionEndpoints {
  services: Record<string, string>;
  kubernetes: string;
  alb: string;
}

/** `.local/endpoints.json` (docs/architecture.md, "Local platform"). Top-level services are the first region's. */
export interface LocalEndpoints {
  services: Record<string, string>;
  /** The first region's ALB router (HTTPS, certificate for the backend host name). */
  alb: string;
  kubernetes: string;
  /** Base URLs with the stage: what `curl --aws-sigv4` calls. */
  apis: { global: string; regional: Record<string, string>; analytics?: string };
  /** Every region's services, simulator and ALB. */
  regions: Record<string, RegionEndpoints>;
  /** Loopback stand-ins of the AWS services the platform uses. */
  aws: {
    dynamodb: string;
    s3: string;
    secretsManager: string;
    ssm: string;
    elbv2: string;
    kinesis?: string;
  };
  /** The accelerator's local port and the names the proxies resolve to 127.0.0.1. */
  edge: { acceleratorDns: string; acceleratorPort: number; backendHostname: string };
  /**
   * The pre-registered sample endpoint and its model server; `sampleImage` is the image an endpoint
   * deploys to run that model in the simulated pods (other images run a stub that answers 501).
   */
  inference: { endpoint: string; modelServer: string; model: string; sampleImage: string };
  signingKey: string;
  /** SigV4 credentials the APIs accept (the developer's; a random pair per run unless fixed). */
  credentials: { accessKeyId: string; secretAccessKey: string };
  region: string;
  globalRegion: string;
  /** PEM of the throw-away internal CA (the ALB, cost-monitor and model servers present certificates from it). */
  internalCaPem: string;
  pid: number;
  startedAt: string;
}

export interface LocalPlatformOptions {
  /** Envelope signing key; a random one per run by default. */
  signingKey?: string;
  /** Deployment regions (default `["us-east-1"]`); each gets its own cluster services and ALB. */
  regions?: readonly string[];
  /** CDK context overrides (cdk.json shape), e.g. `{ analytics_api: { authorizer_cache_ttl_seconds: 0 } }`. */
  context?: Record<string, unknown>;
  /** Fixed developer credentials; random per run otherwise. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Service and Lambda logs: JSON lines to stdout, or nothing (tests). */
  logs?: 'json' | 'silent';
  kubelet?: Partial<KubeletTiming>;
  modelServer?: Pick<ModelServerOptions, 'tokenDelayMs' | 'pace'>;
  /** Start the analytics API (default true). */
  analytics?: boolean;
  /** Called as each component comes up, for progress output. */
  onProgress?: (message: string) => void;
  /**
   * Keep every piece's state in this directory (local/data-dir.ts): tables, streams, buckets,
   * Kubernetes objects, credentials and signing key survive a restart. In memory otherwise.
   */
  dataDir?: string;
}

export interface LocalPlatform {
  readonly endpoints: LocalEndpoints;
  readonly config: PlatformConfig;
  /** A kubeconfig for kubectl pointing at the first region's simulator. */
  readonly kubeConfigYaml: string;
  /** A regional outage: the region's ALB stops, so its API answers 5xx and the accelerator skips it. */
  stopRegion(region: string): Promise<void>;
  close(): Promise<void>;
}

/** The local deployment config: cdk.json's defaults with the local regions and the analytics API on. */
export function localConfig(
  regions: readonly string[],
  context: Record<string, unknown> = {},
): PlatformConfig {
  const analytics = (context.analytics_api ?? {}) as Record<string, unknown>;
  return loadConfig({
    project_name: PROJECT,
    global_region: GLOBAL_REGION,
    regions: [...regions],
    ...context,
    analytics_api: { enabled: true, ...analytics },
  });
}

export async function startLocalPlatform(opts: LocalPlatformOptions = {}): Promise<LocalPlatform> {
  const progress = opts.onProgress ?? (() => undefined);
  const config = localConfig(opts.regions ?? [DEFAULT_REGION], opts.context);
  const partition = config.partition;
  const dataDir = opts.dataDir;
  const logs = opts.logs ?? 'silent';
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    // Reverse start order: the edge first, then what it calls.
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };

  try {
    // Claimed before anything opens the directory; released last (closers run in reverse).
    if (dataDir !== undefined) {
      const release = claimDataDir(dataDir);
      closers.push(async () => release());
    }
    const saved = dataDir === undefined ? undefined : readIdentity(dataDir);
    const signingKey = opts.signingKey ?? saved?.signingKey ?? randomBytes(32).toString('hex');
    const ca = createLocalCa('gco-platform local internal CA');
    const credentials = createLocalCredentials({
      partition: partition.partition,
      accountId: LOCAL_ACCOUNT_ID,
      aggregatorRoleName: aggregatorRoleName(config),
      ...(opts.credentials ? { developer: opts.credentials } : {}),
      ...(saved ? { saved } : {}),
    });
    if (dataDir !== undefined) {
      writeIdentity(dataDir, {
        signingKey,
        developer: credentials.developer,
        aggregator: credentials.aggregator,
      });
    }

    const [central, aws] = await Promise.all([
      startLocalDynamo({
        project: PROJECT,
        region: config.globalRegion,
        tables: Object.values(TABLES).filter((t) => t.scope === 'central'),
        ...(dataDir === undefined ? {} : { path: dataPath(dataDir, 'global', 'dynamodb') }),
      }),
      startAwsStandIns({ accountId: LOCAL_ACCOUNT_ID }),
    ]);
    closers.push(
      () => central.close(),
      () => aws.close(),
    );
    progress(`${'global'.padEnd(14)}${'dynamodb (central tables)'.padEnd(28)}${central.endpoint}`);
    progress(
      `${'global'.padEnd(14)}${'secrets manager/ssm/elbv2'.padEnd(28)}${aws.secretsManager.endpoint} ${aws.ssm.endpoint} ${aws.elbv2.endpoint}`,
    );

    // In the local account's ECR of the first region, so every region's validation policy trusts it.
    const sampleImage = localSampleImage(LOCAL_ACCOUNT_ID, PROJECT, config.regions[0] ?? DEFAULT_REGION);
    const projectRegistries = config.regions.map((r) => localRegistry(LOCAL_ACCOUNT_ID, r));
    const regions: LocalRegion[] = [];
    await Promise.all(
      config.regions.map(async (region) => {
        const started = await startLocalRegion({
          project: PROJECT,
          region,
          deploymentRegions: config.regions,
          accountId: LOCAL_ACCOUNT_ID,
          backendHostname: config.backendHostname,
          ca,
          signingKey,
          central,
          logs,
          ...(opts.kubelet ? { kubelet: opts.kubelet } : {}),
          sampleImage,
          projectRegistries,
          ...(opts.modelServer ? { modelServer: opts.modelServer } : {}),
          ...(dataDir === undefined ? {} : { dataDir: dataPath(dataDir, region) }),
          progress,
        });
        regions.push(started);
        closers.push(() => started.close());
      }),
    );
    regions.sort((a, b) => config.regions.indexOf(a.region) - config.regions.indexOf(b.region));
    const byRegion = new Map(regions.map((r) => [r.region, r]));
    const stopped = new Set<string>();

    // The sample model: one server, registered as running in every region (its service name resolves
    // inside each cluster in a deployment; here every region's inference-proxy reaches 127.0.0.1).
    const model = await startModelServer({
      certificate: ca.issue([LOCAL_HOST, 'model-server']),
      ...opts.modelServer,
    });
    closers.push(() => model.close());
    await registerInferenceEndpoint(central.client(), tableName(PROJECT, TABLES.inferenceEndpoints), {
      name: SAMPLE_ENDPOINT,
      regions: config.regions,
      service: LOCAL_HOST,
      port: model.port,
      servingPaths: MODEL_SERVING_PATHS,
      healthPath: MODEL_HEALTH_PATH,
    });
    progress(`${'global'.padEnd(14)}${`model server (${SAMPLE_ENDPOINT})`.padEnd(28)}${model.url}`);

    // The accelerator sends each connection to the first region whose ALB accepts it.
    const accelerator = await startAccelerator({
      endpoints: () =>
        regions
          .filter((r) => !stopped.has(r.region))
          .map((r) => ({ region: r.region, host: LOCAL_HOST, port: r.alb.port })),
    });
    closers.push(() => accelerator.close());
    const acceleratorDns = `a${randomBytes(8).toString('hex')}.awsglobalaccelerator.com`;
    progress(
      `${'global'.padEnd(14)}${'accelerator'.padEnd(28)}${acceleratorDns} → 127.0.0.1:${accelerator.port}`,
    );

    const { signingKeySecretArn, albs } = seedEdgeResources({
      config,
      aws,
      signingKey,
      albPorts: Object.fromEntries(regions.map((r) => [r.region, r.alb.port])),
    });
    const edge = await startLocalEdge({
      config,
      accountId: LOCAL_ACCOUNT_ID,
      credentials,
      aws,
      caPem: ca.cert,
      signingKeySecretArn,
      accelerator: { dnsName: acceleratorDns, port: accelerator.port },
      albs,
      logs,
      ...(logs === 'json'
        ? {
            onAccessLog: (api, entry) =>
              process.stdout.write(`${JSON.stringify({ access_log: api, ...entry })}\n`),
          }
        : {}),
    });
    closers.push(() => edge.close());
    for (const [region, api] of Object.entries(edge.regional))
      progress(`${region.padEnd(14)}${'regional API'.padEnd(28)}${api.url}`);
    progress(`${config.globalRegion.padEnd(14)}${'global API'.padEnd(28)}${edge.global.url}`);

    let analytics: LocalAnalytics | undefined;
    if (opts.analytics !== false && config.analyticsApi.enabled) {
      analytics = await startLocalAnalytics({
        config,
        accountId: LOCAL_ACCOUNT_ID,
        credentials,
        logs,
        ...(dataDir === undefined ? {} : { dataDir: dataPath(dataDir, 'analytics') }),
      });
      closers.push(() => analytics?.close() ?? Promise.resolve());
      progress(`${config.analyticsApi.region.padEnd(14)}${'analytics API'.padEnd(28)}${analytics.api.url}`);
    }

    const first = regions[0];
    if (first === undefined) throw new Error('no region configured');
    const regionEndpoints = Object.fromEntries(
      regions.map((r) => [
        r.region,
        { services: { ...r.services }, kubernetes: r.kubernetes, alb: r.alb.url },
      ]),
    );
    return {
      config,
      endpoints: {
        services: { ...first.services },
        alb: first.alb.url,
        kubernetes: first.kubernetes,
        apis: {
          global: edge.global.url,
          regional: Object.fromEntries(Object.entries(edge.regional).map(([r, api]) => [r, api.url])),
          ...(analytics ? { analytics: analytics.api.url } : {}),
        },
        regions: regionEndpoints,
        aws: {
          dynamodb: central.endpoint,
          s3: first.aws.s3,
          secretsManager: aws.secretsManager.endpoint,
          ssm: aws.ssm.endpoint,
          elbv2: aws.elbv2.endpoint,
          ...(analytics ? { kinesis: analytics.kinesis } : {}),
        },
        edge: { acceleratorDns, acceleratorPort: accelerator.port, backendHostname: config.backendHostname },
        inference: { endpoint: SAMPLE_ENDPOINT, modelServer: model.url, model: model.model, sampleImage },
        signingKey,
        credentials: {
          accessKeyId: credentials.developer.accessKeyId,
          secretAccessKey: credentials.developer.secretAccessKey,
        },
        region: first.region,
        globalRegion: config.globalRegion,
        internalCaPem: ca.cert,
        pid: process.pid,
        startedAt: new Date().toISOString(),
      },
      kubeConfigYaml: first.kubeConfigYaml,
      async stopRegion(region) {
        const target = byRegion.get(region);
        if (target === undefined) throw new Error(`${region} is not a region of this platform`);
        stopped.add(region);
        await target.stopAlb();
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
