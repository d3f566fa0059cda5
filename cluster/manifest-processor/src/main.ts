/** manifest-processor entry point (the container's command). */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EnvelopeVerifier } from '../../../lambda/shared/envelope.js';
import { serviceKeySource } from '../../shared/signing-keys.js';
import { EnvReader } from '../../shared/env.js';
import { kubeConfigFromEnv } from '../../shared/kube.js';
import { listen } from '../../shared/listen.js';
import { loadTls } from '../../shared/tls-secret.js';
import { runMain } from '../../shared/main.js';
import { createManifestProcessor, SERVICE_NAME } from './app.js';
import { loadManifestProcessorConfig } from './config.js';
import { CostMonitorClient } from './cost/index.js';
import { loadPolicyConfig, ValidationPolicy } from './policy/index.js';
import { createCentralState } from './central.js';

await runMain(SERVICE_NAME, async () => {
  const config = loadManifestProcessorConfig();
  const policy = new ValidationPolicy(loadPolicyConfig());
  const env = new EnvReader();
  const freshnessSeconds = env.number('ENVELOPE_FRESHNESS_SECONDS', 30, { min: 5, max: 300 });
  // The central tables (queue, templates, webhooks) live in the global region (ARCHITECTURE.md).
  const globalRegion = env.string('GLOBAL_REGION', config.region);
  env.done();
  const tls = await loadTls();
  const kubeConfig = kubeConfigFromEnv();
  const central = createCentralState({
    env: process.env,
    dynamodb: new DynamoDBClient({ region: globalRegion }),
    kubeConfig,
    policy,
    config,
    cost: CostMonitorClient.fromEnv(),
  });
  const service = await createManifestProcessor({
    config,
    policy,
    kubeConfig,
    envelope: new EnvelopeVerifier({ keys: serviceKeySource(), freshnessSeconds }),
    central,
  });
  central.start();
  await listen(service, process.env, tls);
});
