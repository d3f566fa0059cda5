/** health-monitor: cluster health and resource utilization of one region (docs/service-framework.md). */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { EnvelopeVerifier, KeySource } from '../../../contracts/envelope/envelope.js';
import { envelopeVerifierFromEnv } from '../../shared/envelope-verifier.js';
import { kubeConfigFromEnv } from '../../shared/kube.js';
import { createService, type Service } from '../../shared/service.js';
import { loadHealthMonitorConfig, type HealthMonitorConfig } from './config.js';
import { SERVICE_NAME, SERVICE_VERSION } from './identity.js';
import { healthRoutes } from './routes.js';
import { SnapshotCache } from './snapshot-cache.js';
import { SnapshotCollector, type ClusterSnapshot } from './snapshot.js';

export interface HealthMonitorDeps {
  config: HealthMonitorConfig;
  envelope: EnvelopeVerifier;
  collect: () => Promise<ClusterSnapshot>;
  logger?: Logger;
}

export interface HealthMonitor extends Service {
  readonly cache: SnapshotCache;
}

export async function createHealthMonitor(deps: HealthMonitorDeps): Promise<HealthMonitor> {
  const { config } = deps;
  let log: Logger | undefined = deps.logger;
  const cache = new SnapshotCache(deps.collect, config.refreshIntervalSeconds * 1000, (error) =>
    log?.warn({ err: error }, 'cluster snapshot refresh failed'),
  );
  const service = await createService({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description: 'Cluster health and resource utilization for one region',
    envelope: deps.envelope,
    ...(deps.logger ? { logger: deps.logger } : {}),
    readiness: { snapshot_refresher: () => cache.running },
    onClose: () => cache.stop(),
    routes: async (app) => {
      await app.register(healthRoutes, { config, cache });
    },
  });
  log = service.app.log as unknown as Logger;
  cache.start();
  return { ...service, cache };
}

/** What a caller may supply instead of what the environment would give (tests, the local platform). */
export interface HealthMonitorOverrides {
  kubeConfig?: KubeConfig;
  keys?: KeySource;
  logger?: Logger;
}

/** health-monitor as its environment describes it: main.ts and the local platform both start it here. */
export async function createHealthMonitorFromEnv(
  env: NodeJS.ProcessEnv,
  overrides: HealthMonitorOverrides = {},
): Promise<HealthMonitor> {
  const config = loadHealthMonitorConfig(env);
  const envelope = envelopeVerifierFromEnv(env, overrides.keys);
  const collector = new SnapshotCollector(overrides.kubeConfig ?? kubeConfigFromEnv(env));
  return createHealthMonitor({
    config,
    envelope,
    collect: () => collector.collect(),
    ...(overrides.logger ? { logger: overrides.logger } : {}),
  });
}
