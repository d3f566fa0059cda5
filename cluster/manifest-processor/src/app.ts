/** manifest-processor (seed 000, version 2.0.0). */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { EnvelopeVerifier } from '../../../lambda/shared/envelope.js';
import { createService, type Service } from '../../shared/service.js';
import { ManifestApplier } from './apply.js';
import type { ManifestProcessorConfig } from './config.js';
import type { ProcessorContext } from './context.js';
import { JobsService } from './jobs.js';
import type { ValidationPolicy } from './policy/index.js';
import { ResourceService } from './resources.js';
import { jobRoutes } from './routes/jobs.js';
import { manifestRoutes } from './routes/manifests.js';
import { SERVICE_NAME, SERVICE_VERSION, serviceInfoRoutes } from './routes/service-info.js';

export { SERVICE_NAME, SERVICE_VERSION };

export interface ManifestProcessorDeps {
  config: ManifestProcessorConfig;
  policy: ValidationPolicy;
  kubeConfig: KubeConfig;
  envelope: EnvelopeVerifier;
  logger?: Logger;
}

export async function createManifestProcessor(deps: ManifestProcessorDeps): Promise<Service> {
  const ctx: ProcessorContext = {
    config: deps.config,
    kubeConfig: deps.kubeConfig,
    policy: deps.policy,
    applier: new ManifestApplier(deps.kubeConfig, deps.policy),
    jobs: new JobsService(deps.kubeConfig),
    resources: new ResourceService(deps.kubeConfig),
  };
  return createService({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description:
      'Submits, validates and deletes cluster manifests; lists, inspects, retries and deletes jobs',
    envelope: deps.envelope,
    ...(deps.logger ? { logger: deps.logger } : {}),
    routes: (app) => {
      serviceInfoRoutes(app, ctx);
      manifestRoutes(app, ctx);
      jobRoutes(app, ctx);
    },
  });
}
