/** health-monitor entry point (the container's command). */
import { envelopeVerifierFromEnv } from '../../shared/envelope-verifier.js';
import { kubeConfigFromEnv } from '../../shared/kube.js';
import { runService } from '../../shared/main.js';
import { createHealthMonitor, SERVICE_NAME } from './app.js';
import { loadHealthMonitorConfig } from './config.js';
import { SnapshotCollector } from './snapshot.js';

await runService({
  name: SERVICE_NAME,
  create: async (env) => {
    const config = loadHealthMonitorConfig(env);
    const collector = new SnapshotCollector(kubeConfigFromEnv(env));
    return createHealthMonitor({
      config,
      envelope: envelopeVerifierFromEnv(env),
      collect: () => collector.collect(),
    });
  },
});
