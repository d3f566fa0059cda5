/** health-monitor entry point (the container's command). */
import { EnvelopeVerifier } from '../../../lambda/shared/envelope.js';
import { serviceKeySource } from '../../shared/signing-keys.js';
import { EnvReader } from '../../shared/env.js';
import { kubeConfigFromEnv } from '../../shared/kube.js';
import { listen } from '../../shared/listen.js';
import { loadTls } from '../../shared/tls-secret.js';
import { runMain } from '../../shared/main.js';
import { createHealthMonitor, SERVICE_NAME } from './app.js';
import { loadHealthMonitorConfig } from './config.js';
import { SnapshotCollector } from './snapshot.js';

await runMain(SERVICE_NAME, async () => {
  const config = loadHealthMonitorConfig();
  const env = new EnvReader();
  const freshnessSeconds = env.number('ENVELOPE_FRESHNESS_SECONDS', 30, { min: 5, max: 300 });
  env.done();
  const tls = await loadTls();
  const collector = new SnapshotCollector(kubeConfigFromEnv());
  const service = await createHealthMonitor({
    config,
    envelope: new EnvelopeVerifier({ keys: serviceKeySource(), freshnessSeconds }),
    collect: () => collector.collect(),
  });
  await listen(service, process.env, tls);
});
