/**
 * One region of the local platform: what a region provides (Kubernetes API simulator, the regional
 * DynamoDB tables, the cost-report bucket, OpenCost) and the four cluster services wired as in a
 * deployment, behind the region's ALB router (HTTPS, contracts/routing.ts). Central state (job queue,
 * templates, webhooks, inference endpoints) lives in the global region's tables, passed in.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCostMonitorFromEnv } from '../cluster/cost-monitor/src/app.js';
import { costMonitorEnvironment } from '../cluster/cost-monitor/src/config.js';
import { createHealthMonitorFromEnv } from '../cluster/health-monitor/src/app.js';
import { healthMonitorEnvironment } from '../cluster/health-monitor/src/config.js';
import { createInferenceProxyFromEnv } from '../cluster/inference-proxy/src/app.js';
import { inferenceProxyEnvironment } from '../cluster/inference-proxy/src/config.js';
import { createManifestProcessorFromEnv } from '../cluster/manifest-processor/src/app.js';
import { manifestProcessorEnvironment } from '../cluster/manifest-processor/src/config.js';
import { costMonitorClientEnvironment } from '../cluster/manifest-processor/src/cost/index.js';
import { inferenceReconcilerEnvironment } from '../cluster/manifest-processor/src/inference-reconciler/config.js';
import { POLICY_ENV, policyEnvironment } from '../cluster/manifest-processor/src/policy/index.js';
import { queueEnvironment, type SpotPriceSource } from '../cluster/manifest-processor/src/queue/index.js';
import { webhookEnvironment } from '../cluster/manifest-processor/src/webhooks/index.js';
import { silentServiceLogger } from '../cluster/shared/logger.js';
import type { Service } from '../cluster/shared/service.js';
import { EnvReader } from '../contracts/env/reader.js';
import { INFERENCE_NAMESPACE } from '../contracts/inference-endpoints.js';
import { staticKeySource } from '../contracts/envelope/signing-keys.js';
import type { AlbServiceName, ClusterServiceName } from '../contracts/routing.js';
import { TABLES, tableName } from '../contracts/tables.js';
import { startAlbRouter, type AlbRouter } from './alb-router.js';
import { startLocalDynamo, type LocalDynamo } from './dynamodb.js';
import {
  kubeConfigFor,
  startKubeApiSimulator,
  type KubeApiSimulator,
  type KubeletTiming,
} from './kube-api-simulator/index.js';
import type { ModelServerOptions } from './model-server.js';
import { startOpenCostStandIn } from './opencost-stand-in.js';
import { PodModelRuntime } from './pod-model-runtime.js';
import { startLocalS3 } from './s3.js';
import { createServiceProxy } from './service-proxy.js';
import type { LocalCa } from './tls.js';

export const LOCAL_HOST = '127.0.0.1';
/** What every spot price is locally (no EC2 to ask); LOCAL_SPOT_PRICE overrides it. */
const DEFAULT_LOCAL_SPOT_PRICE = 0.1;
/** The inference reconciler's pass interval locally (a write through the API also triggers a pass). */
const LOCAL_RECONCILE_INTERVAL_MS = 500;

export interface LocalRegionOptions {
  project: string;
  region: string;
  /** Every region of the local deployment (DEPLOYMENT_REGIONS). */
  deploymentRegions: readonly string[];
  accountId: string;
  /** Host name the ALB's certificate is issued for (`backend.<project>.<internal_domain>`). */
  backendHostname: string;
  ca: LocalCa;
  signingKey: string;
  /** The global region's DynamoDB (central tables). */
  central: LocalDynamo;
  logs: 'json' | 'silent';
  kubelet?: Partial<KubeletTiming>;
  /** The image whose pods run the local sample model (default localSampleImage of this region). */
  sampleImage?: string;
  modelServer?: Pick<ModelServerOptions, 'tokenDelayMs' | 'pace'>;
  /** Registries the validation policy trusts as the project's own (default: this region's localRegistry). */
  projectRegistries?: readonly string[];
  /** Keep the region's tables, bucket and Kubernetes objects here (local/data-dir.ts); in memory otherwise. */
  dataDir?: string;
  progress: (message: string) => void;
}

export interface LocalRegion {
  readonly region: string;
  /** Service name → base URL (plain HTTP on loopback; cost-monitor HTTPS). */
  readonly services: Readonly<Partial<Record<ClusterServiceName, string>>>;
  readonly kubernetes: string;
  readonly kubeConfigYaml: string;
  readonly alb: AlbRouter;
  readonly aws: { dynamodb: string; s3: string };
  /** Stops the region's ALB: nothing reaches its services any more (a regional outage). */
  stopAlb(): Promise<void>;
  close(): Promise<void>;
}

/** The local account's ECR host in a region: the project's own registry, as in a deployment. */
export function localRegistry(accountId: string, region: string): string {
  return `${accountId}.dkr.ecr.${region}.amazonaws.com`;
}

/**
 * The image reference whose pods run the local sample model (endpoints.json `inference.sampleImage`).
 * Nothing is pulled: the simulated kubelet recognises the reference (pod-model-runtime.ts).
 */
export function localSampleImage(accountId: string, project: string, region: string): string {
  return `${localRegistry(accountId, region)}/${project}/sample-model:1`;
}

/** Spot prices without EC2: one configurable price for every instance type. */
class FixedSpotPrices implements SpotPriceSource {
  constructor(private readonly price: number) {}
  async currentPrice(): Promise<number> {
    return this.price;
  }
}

const REGIONAL_TABLES = Object.values(TABLES).filter((t) => t.scope === 'regional');

/** The developer's own validation-policy variables, which the local processor honours (README). */
function developerPolicyVariables(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.values(POLICY_ENV).flatMap((name) => {
      const value = env[name];
      return value === undefined ? [] : [[name, value]];
    }),
  );
}

export async function startLocalRegion(opts: LocalRegionOptions): Promise<LocalRegion> {
  const { region, ca, project } = opts;
  const say = (what: string, url: string) => opts.progress(`${region.padEnd(14)}${what.padEnd(28)}${url}`);
  // Each service is started by the same createXxxFromEnv() as its container, from the variables its
  // Deployment would set; only what a deployment gets from AWS or the pod (clients, keys, TLS) is given.
  const keys = staticKeySource({ current: opts.signingKey });
  const logs = opts.logs === 'json' ? {} : { logger: silentServiceLogger() };
  const clusterName = `local-${region}`;
  const closers: (() => Promise<void>)[] = [];
  const services: Partial<Record<ClusterServiceName, string>> = {};
  const close = async () => {
    // Reverse start order: services first, then what they depend on.
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  const start = async (name: ClusterServiceName, service: Service): Promise<string> => {
    closers.push(async () => {
      service.startDraining();
      await service.app.close();
    });
    const url = await service.app.listen({ host: LOCAL_HOST, port: 0 });
    services[name] = url;
    say(name, url);
    return url;
  };

  try {
    // The internal CA bundle, mounted as a file in a deployment (INTERNAL_CA_FILE, COST_MONITOR_CA_FILE).
    const caDir = mkdtempSync(join(tmpdir(), 'gco-local-ca-'));
    closers.push(async () => rmSync(caDir, { recursive: true, force: true }));
    const caFile = join(caDir, 'internal-ca.pem');
    writeFileSync(caFile, ca.cert);

    // Pods run for real where they can: a model pod gets a loopback HTTPS server (pod-model-runtime.ts),
    // and Service hosts resolve to the Ready pods' servers for the inference-proxy (service-proxy.ts).
    const running: { simulator?: KubeApiSimulator } = {};
    const runtime: PodModelRuntime = new PodModelRuntime({
      ca,
      sampleImage: opts.sampleImage ?? localSampleImage(opts.accountId, project, region),
      ...(opts.modelServer ? { modelServer: opts.modelServer } : {}),
      serviceHostsFor: (pod) => serviceProxy.serviceHostsFor(pod),
    });
    const serviceProxy = createServiceProxy(
      () => running.simulator,
      (namespace, name, uid) => runtime.portOf(namespace, name, uid),
    );
    closers.push(() => runtime.close());
    const simulator = await startKubeApiSimulator({
      host: LOCAL_HOST,
      ...(opts.kubelet ? { kubelet: opts.kubelet } : {}),
      deploymentPods: true,
      podRuntime: runtime,
      ...(opts.dataDir === undefined ? {} : { journalFile: join(opts.dataDir, 'kubernetes.jsonl') }),
    });
    running.simulator = simulator;
    closers.push(() => simulator.close());
    // What cluster/k8s/00-namespaces.yaml creates in a deployment, before the reconciler runs.
    simulator.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: INFERENCE_NAMESPACE } });
    say('kubernetes API simulator', simulator.url);
    const kubeConfig = kubeConfigFor(simulator.url);

    // Regional tables in the region's own DynamoDB; central ones are the global region's.
    const [dynamo, s3, opencost] = await Promise.all([
      startLocalDynamo({
        project,
        region,
        tables: REGIONAL_TABLES,
        ...(opts.dataDir === undefined ? {} : { path: join(opts.dataDir, 'dynamodb') }),
      }),
      startLocalS3({
        buckets: [`${project}-cost-reports`],
        region,
        ...(opts.dataDir === undefined ? {} : { directory: join(opts.dataDir, 's3') }),
      }),
      startOpenCostStandIn(),
    ]);
    closers.push(
      () => dynamo.close(),
      () => s3.close(),
      () => opencost.close(),
    );

    const costMonitorUrl = await start(
      'cost-monitor',
      await createCostMonitorFromEnv(
        costMonitorEnvironment({
          region,
          clusterName,
          opencostUrl: opencost.url,
          bucket: `${project}-cost-reports`,
          table: tableName(project, TABLES.costReports),
        }),
        {
          s3: s3.client(),
          dynamo: dynamo.client(),
          // Real TLS from the internal CA, as manifest-processor verifies it in a deployment.
          https: ca.issue([LOCAL_HOST, 'cost-monitor']),
          ...logs,
        },
      ),
    );

    await start(
      'health-monitor',
      await createHealthMonitorFromEnv(healthMonitorEnvironment({ clusterName, region }), {
        kubeConfig,
        keys,
        ...logs,
      }),
    );

    const spotPrice = new EnvReader(process.env).number('LOCAL_SPOT_PRICE', DEFAULT_LOCAL_SPOT_PRICE, {
      min: 0,
    });
    await start(
      'manifest-processor',
      await createManifestProcessorFromEnv(
        {
          ...opts.central.env,
          ...manifestProcessorEnvironment({ clusterName, region }),
          // Like a deployment, the local platform adds its own registries (the local account's ECR hosts).
          ...policyEnvironment({
            projectRegistries: [...(opts.projectRegistries ?? [localRegistry(opts.accountId, region)])],
          }),
          ...developerPolicyVariables(process.env),
          ...queueEnvironment({
            region,
            deploymentRegions: [...opts.deploymentRegions],
            workerEnabled: true,
            pollIntervalMs: 1000,
          }),
          // The inference reconciler, as every region's processor runs it; a short pass interval locally.
          ...inferenceReconcilerEnvironment({ enabled: true, intervalMs: LOCAL_RECONCILE_INTERVAL_MS }),
          // Local development only: webhook receivers on this machine. A deployment never allows them.
          ...webhookEnvironment({ pollIntervalMs: 1000, allowPrivateTargets: true }),
          ...costMonitorClientEnvironment({ baseUrl: costMonitorUrl, caFile }),
        },
        {
          kubeConfig,
          dynamodb: opts.central.client(),
          keys,
          spotPrices: new FixedSpotPrices(spotPrice),
          ...logs,
        },
      ),
    );

    await start(
      'inference-proxy',
      await createInferenceProxyFromEnv(
        inferenceProxyEnvironment({
          config: { region },
          tableName: tableName(project, TABLES.inferenceEndpoints),
          caFile,
        }),
        {
          dynamodb: opts.central.client(),
          keys,
          resolveUpstream: (host, port) => serviceProxy.resolve(host, port),
          ...logs,
        },
      ),
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
