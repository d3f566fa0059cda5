/** manifest-processor entry point (the container's command). */
import { EnvelopeVerifier } from '../../../lambda/shared/envelope.js';
import { keySourceFromEnv } from '../../../lambda/shared/signing-keys.js';
import { EnvReader } from '../../shared/env.js';
import { kubeConfigFromEnv } from '../../shared/kube.js';
import { listen } from '../../shared/listen.js';
import { runMain } from '../../shared/main.js';
import { createManifestProcessor, SERVICE_NAME } from './app.js';
import { loadManifestProcessorConfig } from './config.js';
import { loadPolicyConfig, ValidationPolicy } from './policy/index.js';

await runMain(SERVICE_NAME, async () => {
  const config = loadManifestProcessorConfig();
  const policy = new ValidationPolicy(loadPolicyConfig());
  const env = new EnvReader();
  const freshnessSeconds = env.number('ENVELOPE_FRESHNESS_SECONDS', 30, { min: 5, max: 300 });
  env.done();
  const service = await createManifestProcessor({
    config,
    policy,
    kubeConfig: kubeConfigFromEnv(),
    envelope: new EnvelopeVerifier({ keys: keySourceFromEnv(), freshnessSeconds }),
  });
  await listen(service);
});
