/**
 * One region of the local platform: what a region provides (Kubernetes API simulator, the regional
 * DynamoDB tables, the cost-report bucket, OpenCost) and the four cluster services wired as in a
 * deployment, behind the region's ALB router (HTTPS, lib/routing.ts). Central state (job queue,
 * templates, webhooks, inference endpoints) lives in the global region's tables, passed in.
 */
import { createCostMonitor } from '../cluster/cost-monitor/src/app.js';
import { loadCostMonitorConfig } from '../cluster/cost-monitor/src/config.js';
import { createHealthMonitor } from '../cluster/health-monitor/src/app.js';
import { loadHealthMonitorConfig } from '../cluster/health-monitor/src/config.js';
import { SnapshotCollector } from '../cluster/health-monitor/src/snapshot.js';
import { createInferenceProxy } from '../cluster/inference-proxy/src/app.js';
import { INFERENCE_PROXY_DEFAULTS } from '../cluster/inference-proxy/src/config.js';
import { DynamoEndpointSource } from '../cluster/inference-proxy/src/store.js';
import { createManifestProcessor } from '../cluster/manifest-processor/src/app.js';
import { createCentralState } from '../cluster/manifest-processor/src/central.js';
import { loadManifestProcessorConfig } from '../cluster/manifest-processor/src/config.js';
import { CostMonitorClient } from '../cluster/manifest-processor/src/cost/index.js';
import { loadPolicyConfig, ValidationPolicy } from '../cluster/manifest-processor/src/policy/index.js';
import type { SpotPriceSource } from '../cluster/manifest-processor/src/queue/index.js';
import { createLogger, silentLogger } from '../cluster/shared/logger.js';
import type { Service } from '../cluster/shared/service.js';
import { EnvelopeVerifier } from '../lambda/shared/envelope.js';
import { staticKeySource } from '../lambda/shared/signing-keys.js';
import type { AlbServiceName } from '../lib/routing.js';
import { TABLES, tableName } from '../lib/tables.js';
import { startAlbRouter, type AlbRouter } from './alb-router.js';
import { startLocalDynamo, type LocalDynamo } from './dynamodb.js';
import { kubeConfigFor, startKubeApiSimulator, type KubeletTiming } from './kube-api-simulator/index.js';
import { startOpenCostStandIn } from './opencost-stand-in.js';
import { startLocalS3 } from './s3.js';
import type { LocalCa } from './tls.js';

export const LOCAL_HOST = '127.0.0.1';
/** What every spot price is locally (no EC2 to ask); LOCAL_SPOT_PRICE overrides it. */
export const DEFAULT_LOCAL_SPOT_PRICE = 0.1;

export interface LocalRegionOptions {
  project: string;
  region: string;
  accountId: string;
  /** Host name the ALB's certificate is issued for (`backend.<project>.<internal_domain>`). */
  backendHostname: string;
  ca: LocalCa;
  signingKey: string;
  /** The global region's DynamoDB (central tables). */
  central: LocalDynamo;
  logs: 'json' | 'silent';
  kubelet?: Partial<KubeletTiming>;
  progress: (message: string) => void;
}

export interface LocalRegion {
  readonly region: string;
  /** Service name → base URL (plain HTTP on loopback; cost-monitor HTTPS). */
  readonly services: Readonly<Record<string, string>>;
  readonly kubernetes: string;
  readonly kubeConfigYaml: string;
  readonly alb: AlbRouter;
  readonly aws: { dynamodb: string; s3: string };
  /** Stops the region's ALB: nothing reaches its services any more (a regional outage). */
  stopAlb(): Promise<void>;
  close(): Promise<void>;
}

/** Spot prices without EC2: one configurable price for every instance type. */
class FixedSpotPrices implements SpotPriceSource {
  constructor(private readonly price: number) {}
  async currentPrice(): Promise<number> {
    return this.price;
  }
}

const REGIONAL_TABLES = Object.values(TABLES).filter((t) => t.scope === 'regional');

export async function startLocalRegion(opts: LocalRegionOptions): Promise<LocalRegion> {
  const { region, ca, project } = opts;
  const say = (what: string, url: string) => opts.progress(`${region.padEnd(14)}${what.padEnd(26)}${url}`);
  const envelope = () => new EnvelopeVerifier({ keys: staticKeySource({ current: opts.signingKey }) });
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
    say(name, services[name]);
  };

  try {
    const simulator = await startKubeApiSimulator({
      host: LOCAL_HOST,
      ...(opts.kubelet ? { kubelet: opts.kubelet } : {}),
    });
    closers.push(() => simulator.close());
    say('kubernetes API simulator', simulator.url);
    const kubeConfig = kubeConfigFor(simulator.url);

    // Regional tables in the region's own DynamoDB; central ones are the global region's.
    const [dynamo, s3, opencost] = await Promise.all([
      startLocalDynamo({ project, region, tables: REGIONAL_TABLES }),
      startLocalS3({ buckets: [`${project}-cost-reports`], region }),
      startOpenCostStandIn(),
    ]);
    closers.push(
      () => dynamo.close(),
      () => s3.close(),
      () => opencost.close(),
    );

    await start(
      'cost-monitor',
      await createCostMonitor({
        config: loadCostMonitorConfig({
          REGION: region,
          CLUSTER_NAME: `local-${region}`,
          OPENCOST_URL: opencost.url,
          COST_REPORTS_BUCKET: `${project}-cost-reports`,
          [TABLES.costReports.envVar]: tableName(project, TABLES.costReports),
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
        config: loadHealthMonitorConfig({ CLUSTER_NAME: `local-${region}`, REGION: region }),
        envelope: envelope(),
        collect: () => healthCollector.collect(),
        logger: logger('health-monitor', '1.0.0'),
      }),
    );

    // The policy reads the same variables as in a deployment. Like a deployment, the local platform adds
    // its own registry (the local account's ECR host), so the effective allowlist is the larger one.
    const policy = new ValidationPolicy(
      loadPolicyConfig({
        PROJECT_REGISTRIES: `${opts.accountId}.dkr.ecr.${region}.amazonaws.com`,
        ...process.env,
      }),
    );
    const processorConfig = loadManifestProcessorConfig({ CLUSTER_NAME: `local-${region}`, REGION: region });
    const central = createCentralState({
      env: {
        ...opts.central.env,
        QUEUE_REGION: region,
        CENTRAL_QUEUE_WORKER_ENABLED: 'true',
        QUEUE_POLL_INTERVAL_MS: '1000',
        WEBHOOK_POLL_INTERVAL_MS: '1000',
        // Local development only: webhook receivers on this machine. A deployment never sets this.
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      },
      dynamodb: opts.central.client(),
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
        endpoints: new DynamoEndpointSource(
          opts.central.client(),
          tableName(project, TABLES.inferenceEndpoints),
        ),
        ca: ca.cert,
        logger: logger('inference-proxy', '1.0.0'),
      }),
    );

    const targets: Partial<Record<AlbServiceName, string>> = {
      'manifest-processor': services['manifest-processor'],
      'health-monitor': services['health-monitor'],
      'inference-proxy': services['inference-proxy'],
    };
    let alb: AlbRouter | undefined = await startAlbRouter({
      certificate: ca.issue([opts.backendHostname, LOCAL_HOST]),
      targets,
      targetCa: ca.cert,
    });
    const albHandle = alb;
    closers.push(async () => {
      await alb?.close();
      alb = undefined;
    });
    say('ALB router', albHandle.url);

    return {
      region,
      services,
      kubernetes: simulator.url,
      kubeConfigYaml: simulator.kubeConfigYaml(),
      alb: albHandle,
      aws: { dynamodb: dynamo.endpoint, s3: s3.endpoint },
      async stopAlb() {
        await alb?.close();
        alb = undefined;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
