/**
 * The local platform: everything on 127.0.0.1 with no AWS account. Stand-ins for what a region provides
 * (Kubernetes API simulator, DynamoDB via dynalite, S3 via s3rver, OpenCost, a throw-away internal CA) and
 * the four cluster services wired as in a deployment. `bin/local.ts` is the CLI around this; tests start
 * it in-process. Later issues add the ALB router and the API Gateway emulator.
 */
import { randomBytes } from 'node:crypto';
import { createCostMonitor } from '../../cluster/cost-monitor/src/app.js';
import { loadCostMonitorConfig } from '../../cluster/cost-monitor/src/config.js';
import { createHealthMonitor } from '../../cluster/health-monitor/src/app.js';
import { loadHealthMonitorConfig } from '../../cluster/health-monitor/src/config.js';
import { SnapshotCollector } from '../../cluster/health-monitor/src/snapshot.js';
import { createInferenceProxy } from '../../cluster/inference-proxy/src/app.js';
import { INFERENCE_PROXY_DEFAULTS } from '../../cluster/inference-proxy/src/config.js';
import { DynamoEndpointSource } from '../../cluster/inference-proxy/src/store.js';
import { createManifestProcessor } from '../../cluster/manifest-processor/src/app.js';
import { loadManifestProcessorConfig } from '../../cluster/manifest-processor/src/config.js';
import { CostMonitorClient } from '../../cluster/manifest-processor/src/cost/index.js';
import { loadPolicyConfig, ValidationPolicy } from '../../cluster/manifest-processor/src/policy/index.js';
import { createCentralState } from '../../cluster/manifest-processor/src/central.js';
import type { SpotPriceSource } from '../../cluster/manifest-processor/src/queue/index.js';
import { createLogger, silentLogger } from '../../cluster/shared/logger.js';
import type { Service } from '../../cluster/shared/service.js';
import { EnvelopeVerifier } from '../../lambda/shared/envelope.js';
import { staticKeySource } from '../../lambda/shared/signing-keys.js';
import { TABLES, tableName } from '../tables.js';
import { startLocalDynamo } from './dynamodb.js';
import { kubeConfigFor, startKubeApiSimulator, type KubeletTiming } from './kube-api-simulator/index.js';
import { startOpenCostStandIn } from './opencost-stand-in.js';
import { startLocalS3 } from './s3.js';
import { createTestCa } from './tls.js';

export const LOCAL_HOST = '127.0.0.1';
export const DEFAULT_REGION = 'us-east-1';
export const GLOBAL_REGION = 'us-east-2';
export const PROJECT = 'gco';
/** The account id the local platform plays (no real account is involved). */
export const LOCAL_ACCOUNT_ID = '000000000000';
export const COST_REPORTS_BUCKET = `${PROJECT}-cost-reports`;
/** What every spot price is locally (no EC2 to ask); LOCAL_SPOT_PRICE overrides it. */
export const DEFAULT_LOCAL_SPOT_PRICE = 0.1;

/** `.local/endpoints.json` (ARCHITECTURE.md, "Local platform"); entries appear as services land. */
export interface LocalEndpoints {
  services: Record<string, string>;
  kubernetes: string;
  /** Loopback stand-ins of the AWS services the platform uses. */
  aws: { dynamodb: string; s3: string };
  signingKey: string;
  region: string;
  globalRegion: string;
  /** PEM of the throw-away internal CA (cost-monitor and model servers present certificates from it). */
  internalCaPem: string;
  pid: number;
  startedAt: string;
}

export interface LocalPlatformOptions {
  /** Envelope signing key; a random one per run by default. */
  signingKey?: string;
  region?: string;
  /** Service logs: JSON lines to stdout, or nothing (tests). */
  logs?: 'json' | 'silent';
  kubelet?: Partial<KubeletTiming>;
  /** Called as each component comes up, for progress output. */
  onProgress?: (message: string) => void;
}

export interface LocalPlatform {
  readonly endpoints: LocalEndpoints;
  /** A kubeconfig for kubectl pointing at the simulator. */
  readonly kubeConfigYaml: string;
  close(): Promise<void>;
}

/** Spot prices without EC2: one configurable price for every instance type. */
class FixedSpotPrices implements SpotPriceSource {
  constructor(private readonly price: number) {}
  async currentPrice(): Promise<number> {
    return this.price;
  }
}

export async function startLocalPlatform(opts: LocalPlatformOptions = {}): Promise<LocalPlatform> {
  const progress = opts.onProgress ?? (() => undefined);
  const signingKey = opts.signingKey ?? randomBytes(32).toString('hex');
  const region = opts.region ?? DEFAULT_REGION;
  const envelope = () => new EnvelopeVerifier({ keys: staticKeySource({ current: signingKey }) });
  const logger = (service: string, version: string) =>
    opts.logs === 'json' ? createLogger(service, version) : silentLogger();
  const closers: (() => Promise<void>)[] = [];
  const services: Record<string, string> = {};

  const close = async () => {
    // Reverse start order: services first, then what they depend on.
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  const start = async (name: string, service: Service) => {
    closers.push(async () => {
      service.startDraining();
      await service.app.close();
    });
    services[name] = await service.app.listen({ host: LOCAL_HOST, port: 0 });
    progress(`${name.padEnd(26)}${services[name]}`);
  };

  try {
    const ca = createTestCa('gco-platform local internal CA');

    const simulator = await startKubeApiSimulator({
      host: LOCAL_HOST,
      ...(opts.kubelet ? { kubelet: opts.kubelet } : {}),
    });
    closers.push(() => simulator.close());
    progress(`kubernetes API simulator  ${simulator.url}`);
    const kubeConfig = kubeConfigFor(simulator.url);

    // One dynalite plays both the global region's central tables and this region's regional table.
    const dynamo = await startLocalDynamo({ project: PROJECT, region: GLOBAL_REGION });
    closers.push(() => dynamo.close());
    progress(`dynamodb (dynalite)       ${dynamo.endpoint}`);

    const s3 = await startLocalS3({ buckets: [COST_REPORTS_BUCKET], region });
    closers.push(() => s3.close());
    progress(`s3 (s3rver)               ${s3.endpoint}`);

    const opencost = await startOpenCostStandIn();
    closers.push(() => opencost.close());
    progress(`opencost stand-in         ${opencost.url}`);

    await start(
      'cost-monitor',
      await createCostMonitor({
        config: loadCostMonitorConfig({
          REGION: region,
          CLUSTER_NAME: 'local',
          OPENCOST_URL: opencost.url,
          COST_REPORTS_BUCKET,
          [TABLES.costReports.envVar]: tableName(PROJECT, TABLES.costReports),
        }),
        s3: s3.client(),
        dynamo: dynamo.client(),
        // Real TLS from the internal CA, as manifest-processor verifies it in a deployment.
        https: ca.issue([LOCAL_HOST, 'cost-monitor']),
        logger: logger('cost-monitor', '1.0.0'),
      }),
    );

    const healthCollector = new SnapshotCollector(kubeConfig);
    await start(
      'health-monitor',
      await createHealthMonitor({
        config: loadHealthMonitorConfig({ CLUSTER_NAME: 'local', REGION: region }),
        envelope: envelope(),
        collect: () => healthCollector.collect(),
        logger: logger('health-monitor', '1.0.0'),
      }),
    );

    // The policy reads the same variables as in a deployment. Like a deployment, the local platform adds
    // its own registry (the local account's ECR host), so the effective allowlist is the larger one.
    const policy = new ValidationPolicy(
      loadPolicyConfig({
        PROJECT_REGISTRIES: `${LOCAL_ACCOUNT_ID}.dkr.ecr.${region}.amazonaws.com`,
        ...process.env,
      }),
    );
    const processorConfig = loadManifestProcessorConfig({ CLUSTER_NAME: 'local', REGION: region });
    const central = createCentralState({
      env: {
        ...dynamo.env,
        QUEUE_REGION: region,
        CENTRAL_QUEUE_WORKER_ENABLED: 'true',
        QUEUE_POLL_INTERVAL_MS: '1000',
        WEBHOOK_POLL_INTERVAL_MS: '1000',
        // Local development only: webhook receivers on this machine. A deployment never sets this.
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      },
      dynamodb: dynamo.client(),
      kubeConfig,
      policy,
      config: processorConfig,
      cost: new CostMonitorClient({ baseUrl: services['cost-monitor'] ?? '', ca: ca.cert }),
      spotPrices: new FixedSpotPrices(Number(process.env.LOCAL_SPOT_PRICE ?? DEFAULT_LOCAL_SPOT_PRICE)),
      logger: logger('manifest-processor', '2.0.0'),
    });
    await start(
      'manifest-processor',
      await createManifestProcessor({
        config: processorConfig,
        policy,
        kubeConfig,
        envelope: envelope(),
        central,
        logger: logger('manifest-processor', '2.0.0'),
      }),
    );
    central.start();

    await start(
      'inference-proxy',
      await createInferenceProxy({
        config: { ...INFERENCE_PROXY_DEFAULTS, region },
        envelope: envelope(),
        endpoints: new DynamoEndpointSource(dynamo.client(), tableName(PROJECT, TABLES.inferenceEndpoints)),
        ca: ca.cert,
        logger: logger('inference-proxy', '1.0.0'),
      }),
    );

    return {
      endpoints: {
        services,
        kubernetes: simulator.url,
        aws: { dynamodb: dynamo.endpoint, s3: s3.endpoint },
        signingKey,
        region,
        globalRegion: GLOBAL_REGION,
        internalCaPem: ca.cert,
        pid: process.pid,
        startedAt: new Date().toISOString(),
      },
      kubeConfigYaml: simulator.kubeConfigYaml(),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
