/** health-monitor entry point (the container's command). */
import { EnvelopeVerifier } from '../../../lambda/shared/envelope.js';
import { keySourceFromEnv } from '../../../lambda/shared/signing-keys.js';
import { kubeConfigFromEnv } from '../../shared/kube.js';
import { listen } from '../../shared/listen.js';
import { createHealthMonitor } from './app.js';
import { loadHealthMonitorConfig } from './config.js';
import { SnapshotCollector } from './snapshot.js';

const config = loadHealthMonitorConfig();
const collector = new SnapshotCollector(kubeConfigFromEnv());
const service = await createHealthMonitor({
  config,
  envelope: new EnvelopeVerifier({
    keys: keySourceFromEnv(),
    freshnessSeconds: Number(process.env.ENVELOPE_FRESHNESS_SECONDS ?? 30),
  }),
  collect: () => collector.collect(),
});
await listen(service);
