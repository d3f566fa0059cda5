/**
 * The local platform: everything on 127.0.0.1 with no AWS account. Today: the Kubernetes API simulator,
 * health-monitor and manifest-processor; later issues add the other services, the ALB router and the API Gateway emulator.
 * `bin/local.ts` is the CLI around this; tests start it in-process.
 */
import { randomBytes } from 'node:crypto';
import { createHealthMonitor } from '../../cluster/health-monitor/src/app.js';
import { createManifestProcessor } from '../../cluster/manifest-processor/src/app.js';
import { loadManifestProcessorConfig } from '../../cluster/manifest-processor/src/config.js';
import { loadPolicyConfig, ValidationPolicy } from '../../cluster/manifest-processor/src/policy/index.js';
import { loadHealthMonitorConfig } from '../../cluster/health-monitor/src/config.js';
import { SnapshotCollector } from '../../cluster/health-monitor/src/snapshot.js';
import { createLogger, silentLogger } from '../../cluster/shared/logger.js';
import type { Service } from '../../cluster/shared/service.js';
import { EnvelopeVerifier } from '../../lambda/shared/envelope.js';
import { staticKeySource } from '../../lambda/shared/signing-keys.js';
import { kubeConfigFor, startKubeApiSimulator, type KubeletTiming } from './kube-api-simulator/index.js';

export const LOCAL_HOST = '127.0.0.1';
export const DEFAULT_REGION = 'us-east-1';
/** The account id the local platform plays (no real account is involved). */
export const LOCAL_ACCOUNT_ID = '000000000000';

/** `.local/endpoints.json` (ARCHITECTURE.md, "Local platform"); entries appear as services land. */
export interface LocalEndpoints {
  services: Record<string, string>;
  kubernetes: string;
  signingKey: string;
  region: string;
  pid: number;
  startedAt: string;
}

export interface LocalPlatformOptions {
  /** Envelope signing key; a random one per run by default. */
  signingKey?: string;
  region?: string;
  /** Service logs: JSON lines to stdout, or nothing (tests). */
  logs?: 'json' | 'silent';
  kubelet?: Partial<KubeletTiming>;
  /** Called as each component comes up, for progress output. */
  onProgress?: (message: string) => void;
}

export interface LocalPlatform {
  readonly endpoints: LocalEndpoints;
  /** A kubeconfig for kubectl pointing at the simulator. */
  readonly kubeConfigYaml: string;
  close(): Promise<void>;
}

export async function startLocalPlatform(opts: LocalPlatformOptions = {}): Promise<LocalPlatform> {
  const progress = opts.onProgress ?? (() => undefined);
  const signingKey = opts.signingKey ?? randomBytes(32).toString('hex');
  const region = opts.region ?? DEFAULT_REGION;
  const envelope = () => new EnvelopeVerifier({ keys: staticKeySource({ current: signingKey }) });
  const logger = (service: string, version: string) =>
    opts.logs === 'json' ? createLogger(service, version) : silentLogger();
  const closers: (() => Promise<void>)[] = [];
  const services: Record<string, string> = {};

  const close = async () => {
    // Reverse start order: services first, then what they depend on.
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };

  try {
    const simulator = await startKubeApiSimulator({
      host: LOCAL_HOST,
      ...(opts.kubelet ? { kubelet: opts.kubelet } : {}),
    });
    closers.push(() => simulator.close());
    progress(`kubernetes API simulator  ${simulator.url}`);

    const kubeConfig = kubeConfigFor(simulator.url);
    const start = async (name: string, service: Service) => {
      closers.push(async () => {
        service.startDraining();
        await service.app.close();
      });
      services[name] = await service.app.listen({ host: LOCAL_HOST, port: 0 });
      progress(`${name.padEnd(26)}${services[name]}`);
    };

    const collector = new SnapshotCollector(kubeConfig);
    await start(
      'health-monitor',
      await createHealthMonitor({
        config: { ...loadHealthMonitorConfig({ CLUSTER_NAME: 'local', REGION: region }) },
        envelope: envelope(),
        collect: () => collector.collect(),
        logger: logger('health-monitor', '1.0.0'),
      }),
    );

    await start(
      'manifest-processor',
      await createManifestProcessor({
        config: loadManifestProcessorConfig({ CLUSTER_NAME: 'local', REGION: region }),
        // The policy reads the same variables as in a deployment. Like a deployment, the local platform adds
        // its own registry (the local account's ECR host), so the effective allowlist is the larger one.
        policy: new ValidationPolicy(
          loadPolicyConfig({
            PROJECT_REGISTRIES: `${LOCAL_ACCOUNT_ID}.dkr.ecr.${region}.amazonaws.com`,
            ...process.env,
          }),
        ),
        kubeConfig,
        envelope: envelope(),
        logger: logger('manifest-processor', '2.0.0'),
      }),
    );

    return {
      endpoints: {
        services,
        kubernetes: simulator.url,
        signingKey,
        region,
        pid: process.pid,
        startedAt: new Date().toISOString(),
      },
      kubeConfigYaml: simulator.kubeConfigYaml(),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
