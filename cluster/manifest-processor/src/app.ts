/**
 * manifest-processor: submits, validates and deletes cluster manifests; lists, inspects, retries and
 * deletes jobs; and fronts the central job queue, job templates, webhooks, the inference endpoint
 * lifecycle (docs/inference-endpoints.md) and this region's cost-monitor (docs/manifest-processor.md). Each feature is a Fastify plugin under its own prefix.
 */
import { awsClientConfig } from '../../../contracts/runtime/aws-clients.js';
import { withoutSdkLogFilter } from '../../../contracts/runtime/sdk-log-filter.js';
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { EnvReader } from '../../../contracts/env/reader.js';
import type { EnvelopeVerifier, KeySource } from '../../../contracts/envelope/envelope.js';
import { loadEmfConfig } from '../../shared/emf-config.js';
import { EmfPublisher } from '../../shared/emf-publisher.js';
import { envelopeVerifierFromEnv } from '../../shared/envelope-verifier.js';
import { kubeConfigFromEnv } from '../../shared/kube.js';
import { createLogger } from '../../shared/logger.js';
import { DEFAULT_MAX_JSON_DEPTH } from '../../shared/json-scan.js';
import { replicaId } from '../../shared/replica-id.js';
import { createService, type Service } from '../../shared/service.js';
import { ManifestApplier } from './apply.js';
import { createCentralTableFeatures, type CentralTableFeatures } from './central-table-features.js';
import { loadManifestProcessorConfig, type ManifestProcessorConfig } from './config.js';
import type { ProcessorContext } from './context.js';
import { COST_PREFIX, CostMonitorClient, costRoutes, loadCostMonitorClientSettings } from './cost/index.js';
import { SERVICE_NAME, SERVICE_VERSION } from './identity.js';
import {
  EndpointValidator,
  INFERENCE_ENDPOINTS_PREFIX,
  inferenceEndpointRoutes,
  InferenceEndpointStore,
  loadInferenceEndpointConfig,
  type InferenceEndpointConfig,
} from './inference-endpoints/index.js';
import { JOBS_PREFIX, jobRoutes } from './jobs/routes.js';
import { JobsService } from './jobs/service.js';
import { MANIFESTS_PREFIX, manifestRoutes } from './manifests/routes.js';
import { loadInferenceReconcilerConfig } from './inference-reconciler/index.js';
import { loadPolicyConfig, ValidationPolicy } from './policy/index.js';
import { loadQueueConfig, QUEUE_PREFIX, queueRoutes, type SpotPriceSource } from './queue/index.js';
import { ResourceService } from './resources.js';
import { serviceInfoRoutes } from './service-info/routes.js';
import { loadTemplateConfig, templateRoutes, TEMPLATES_PREFIX } from './templates/index.js';
import { loadWebhookConfig, webhookRoutes, WEBHOOKS_PREFIX } from './webhooks/index.js';

export interface ManifestProcessorDeps {
  config: ManifestProcessorConfig;
  policy: ValidationPolicy;
  kubeConfig: KubeConfig;
  envelope: EnvelopeVerifier;
  logger?: Logger;
  /**
   * Queue, templates and webhooks; their background loops start with the service and stop when it
   * closes. Tests of the Kubernetes-facing operations may leave them out.
   */
  centralTables?: CentralTableFeatures;
  /** This region's cost-monitor behind /api/v1/cost (left out with the central tables in such tests). */
  cost?: CostMonitorClient;
  /** The inference endpoint lifecycle behind /api/v1/inference/endpoints (left out like the central tables). */
  inferenceEndpoints?: {
    store: InferenceEndpointStore;
    config: InferenceEndpointConfig;
    /** The regions an endpoint may list (DEPLOYMENT_REGIONS, as the queue's target regions). */
    deploymentRegions: readonly string[];
  };
}

export async function createManifestProcessor(deps: ManifestProcessorDeps): Promise<Service> {
  const { centralTables, cost, inferenceEndpoints } = deps;
  const ctx: ProcessorContext = {
    config: deps.config,
    kubeConfig: deps.kubeConfig,
    policy: deps.policy,
    applier: new ManifestApplier(deps.kubeConfig, deps.policy),
    jobs: new JobsService(deps.kubeConfig),
    resources: new ResourceService(deps.kubeConfig),
    ...(centralTables ? { centralTables } : {}),
  };
  const service = await createService({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description:
      'Submits, validates and deletes cluster manifests; lists, inspects, retries and deletes jobs',
    envelope: deps.envelope,
    // A manifest may nest as deep as the policy allows; it sits two levels down in a submission body.
    maxJsonDepth: Math.max(DEFAULT_MAX_JSON_DEPTH, deps.policy.config.maxDepth + 2),
    ...(deps.logger ? { logger: deps.logger } : {}),
    readiness: { ...(centralTables?.readiness ?? {}) },
    onClose: async () => {
      await centralTables?.close();
    },
    // Registration order is the order of /openapi.json.
    routes: async (app) => {
      await app.register(serviceInfoRoutes, ctx);
      await app.register(manifestRoutes, { ...ctx, prefix: MANIFESTS_PREFIX });
      await app.register(jobRoutes, { ...ctx, prefix: JOBS_PREFIX });
      if (centralTables) {
        await app.register(queueRoutes, { ...centralTables.queue.routeDeps, prefix: QUEUE_PREFIX });
        await app.register(templateRoutes, {
          prefix: TEMPLATES_PREFIX,
          templates: centralTables.templates,
          applier: ctx.applier,
          jobs: ctx.jobs,
          policy: ctx.policy,
        });
        await app.register(webhookRoutes, {
          prefix: WEBHOOKS_PREFIX,
          webhooks: centralTables.webhooks.store,
          allowPrivateTargets: centralTables.webhooks.config.allowPrivateTargets,
          allowedNamespaces: ctx.policy.config.allowedNamespaces,
        });
      }
      if (inferenceEndpoints) {
        await app.register(inferenceEndpointRoutes, {
          prefix: INFERENCE_ENDPOINTS_PREFIX,
          store: inferenceEndpoints.store,
          validator: new EndpointValidator({
            policy: ctx.policy,
            deploymentRegions: inferenceEndpoints.deploymentRegions,
            maxReplicas: inferenceEndpoints.config.maxReplicas,
          }),
        });
      }
      if (cost) await app.register(costRoutes, { prefix: COST_PREFIX, client: cost });
    },
  });
  centralTables?.start();
  return service;
}

/** What a caller may supply instead of what the environment would give (tests, the local platform). */
export interface ManifestProcessorOverrides {
  kubeConfig?: KubeConfig;
  /** Client of the central tables' region. */
  dynamodb?: DynamoDBClient;
  keys?: KeySource;
  spotPrices?: SpotPriceSource;
  logger?: Logger;
  /** Client of the platform metrics' log group (tests point one at a local server). */
  cloudWatchLogs?: CloudWatchLogsClient;
}

/** manifest-processor as its environment describes it: main.ts and the local platform both start it here. */
export async function createManifestProcessorFromEnv(
  env: NodeJS.ProcessEnv,
  overrides: ManifestProcessorOverrides = {},
): Promise<Service> {
  // Every contract reads from one reader, so one startup error names every problem.
  const read = new EnvReader(env);
  const config = loadManifestProcessorConfig(read);
  const policy = new ValidationPolicy(loadPolicyConfig(read));
  const queue = loadQueueConfig(read);
  const templates = loadTemplateConfig(read);
  const webhooks = loadWebhookConfig(read);
  const inference = loadInferenceEndpointConfig(read);
  const inferenceReconciler = loadInferenceReconcilerConfig(read);
  const costSettings = loadCostMonitorClientSettings(read);
  const emf = loadEmfConfig(read);
  const metricsStream = replicaId(read);
  // The central tables live in the global region (docs/architecture.md).
  const globalRegion = read.string('GLOBAL_REGION', config.region);
  read.finish();
  const envelope = envelopeVerifierFromEnv(env, overrides.keys);
  const kubeConfig = overrides.kubeConfig ?? kubeConfigFromEnv(env);
  const logger = overrides.logger ? { logger: overrides.logger } : {};
  // Every submission, claim and status read is a DynamoDB call: no per-call log filter (sdk-log-filter.ts).
  const dynamodb = withoutSdkLogFilter(
    overrides.dynamodb ??
      new DynamoDBClient(
        // Bounded like inference-proxy's: a slow table must fail the request, not pile requests up.
        awsClientConfig({
          component: 'manifest-processor',
          region: globalRegion,
          connectionTimeoutMs: 2_000,
          requestTimeoutMs: 5_000,
        }),
      ),
  );
  const centralTables = createCentralTableFeatures({
    queue,
    templates,
    webhooks,
    dynamodb,
    inference: inferenceReconciler,
    kubeConfig,
    policy,
    source: { region: config.region, cluster: config.clusterName },
    ...(overrides.spotPrices ? { spotPrices: overrides.spotPrices } : {}),
    metrics: new EmfPublisher({
      config: emf,
      streamName: metricsStream,
      ...(overrides.cloudWatchLogs ? { client: overrides.cloudWatchLogs } : {}),
      // A failed flush must show up even where the loops were given no logger.
      logger: (overrides.logger ?? createLogger(SERVICE_NAME, SERVICE_VERSION)).child({
        component: 'emf-publisher',
      }),
    }),
    ...logger,
  });
  return createManifestProcessor({
    config,
    policy,
    kubeConfig,
    envelope,
    centralTables,
    cost: CostMonitorClient.fromSettings(costSettings),
    inferenceEndpoints: {
      store: new InferenceEndpointStore(dynamodb, inference.tableName),
      config: inference,
      deploymentRegions: queue.deploymentRegions,
    },
    ...logger,
  });
}
