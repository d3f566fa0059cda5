/** manifest-processor entry point (the container's command). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EnvReader } from '../../../lambda/shared/env.js';
import { envelopeVerifierFromEnv } from '../../shared/envelope-verifier.js';
import { kubeConfigFromEnv } from '../../shared/kube.js';
import { runService } from '../../shared/main.js';
import { createManifestProcessor, SERVICE_NAME } from './app.js';
import { createCentralState } from './central.js';
import { loadManifestProcessorConfig } from './config.js';
import { CostMonitorClient, loadCostMonitorClientSettings } from './cost/client.js';
import { loadPolicyConfig, ValidationPolicy } from './policy/index.js';

await runService({
  name: SERVICE_NAME,
  create: async (env) => {
    const read = new EnvReader(env);
    const config = loadManifestProcessorConfig(read);
    const policy = new ValidationPolicy(loadPolicyConfig(read));
    // The central tables (queue, templates, webhooks) live in the global region (ARCHITECTURE.md).
    const globalRegion = read.string('GLOBAL_REGION', config.region);
    const costSettings = loadCostMonitorClientSettings(read);
    read.finish();
    const kubeConfig = kubeConfigFromEnv(env);
    const central = createCentralState({
      env,
      dynamodb: new DynamoDBClient({ region: globalRegion }),
      kubeConfig,
      policy,
      config,
      cost: CostMonitorClient.fromSettings(costSettings),
    });
    const service = await createManifestProcessor({
      config,
      policy,
      kubeConfig,
      envelope: envelopeVerifierFromEnv(env),
      central,
    });
    central.start();
    return service;
  },
});
