/** manifest-processor (seed 000, version 2.0.0). */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { EnvelopeVerifier } from '../../../lambda/shared/envelope.js';
import { createService, type Service } from '../../shared/service.js';
import { ManifestApplier } from './apply.js';
import type { CentralState } from './central.js';
import { registerCostRoutes } from './cost/index.js';
import type { ManifestProcessorConfig } from './config.js';
import type { ProcessorContext } from './context.js';
import { JobsService } from './jobs.js';
import type { ValidationPolicy } from './policy/index.js';
import { registerQueueRoutes } from './queue/index.js';
import { ResourceService } from './resources.js';
import { jobRoutes } from './routes/jobs.js';
import { manifestRoutes } from './routes/manifests.js';
import { SERVICE_NAME, SERVICE_VERSION, serviceInfoRoutes } from './routes/service-info.js';
import { registerTemplateRoutes } from './templates/index.js';
import { registerWebhookRoutes } from './webhooks/index.js';

export { SERVICE_NAME, SERVICE_VERSION };

export interface ManifestProcessorDeps {
  config: ManifestProcessorConfig;
  policy: ValidationPolicy;
  kubeConfig: KubeConfig;
  envelope: EnvelopeVerifier;
  logger?: Logger;
  /**
   * Queue, templates, webhooks and cost (central.ts). main.ts and the local platform always pass it; tests
   * of the Kubernetes-facing operations may leave it out.
   */
  central?: CentralState;
}

export async function createManifestProcessor(deps: ManifestProcessorDeps): Promise<Service> {
  const { central } = deps;
  const ctx: ProcessorContext = {
    config: deps.config,
    kubeConfig: deps.kubeConfig,
    policy: deps.policy,
    applier: new ManifestApplier(deps.kubeConfig, deps.policy),
    jobs: new JobsService(deps.kubeConfig),
    resources: new ResourceService(deps.kubeConfig),
    ...(deps.central ? { central: deps.central } : {}),
  };
  return createService({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description:
      'Submits, validates and deletes cluster manifests; lists, inspects, retries and deletes jobs',
    envelope: deps.envelope,
    ...(deps.logger ? { logger: deps.logger } : {}),
    readiness: { ...(central?.readiness ?? {}) },
    onClose: async () => {
      await central?.close();
    },
    routes: (app) => {
      serviceInfoRoutes(app, ctx);
      manifestRoutes(app, ctx);
      jobRoutes(app, ctx);
      if (!central) return;
      registerQueueRoutes(app, central.queue.routeDeps);
      registerTemplateRoutes(app, {
        templates: central.templates,
        applier: ctx.applier,
        jobs: ctx.jobs,
        policy: ctx.policy,
      });
      registerWebhookRoutes(app, {
        webhooks: central.webhooks.store,
        allowPrivateTargets: central.webhooks.config.allowPrivateTargets,
        allowedNamespaces: ctx.policy.config.allowedNamespaces,
      });
      if (central.cost) registerCostRoutes(app, { client: central.cost });
    },
  });
}
