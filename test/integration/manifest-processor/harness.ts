/** Starts manifest-processor against a fresh Kubernetes API simulator and calls it with signed requests. */
import { createManifestProcessor } from '../../../cluster/manifest-processor/src/app.js';
import { loadPolicyConfig, ValidationPolicy } from '../../../cluster/manifest-processor/src/policy/index.js';
import { signedCall } from '../../support/signed-call.js';
import { silentServiceLogger } from '../../../cluster/shared/logger.js';
import type { Service } from '../../../cluster/shared/service.js';
import { EnvelopeVerifier } from '../../../lambda/shared/envelope.js';
import { staticKeySource } from '../../../lambda/shared/signing-keys.js';
import {
  kubeConfigFor,
  startKubeApiSimulator,
  type KubeApiSimulator,
} from '../../../local/kube-api-simulator/index.js';

export const KEY = 'manifest-processor-test-key-0123456789';
export const IMAGE = 'public.ecr.aws/docker/library/busybox:1.36';

export const POLICY_ENV = {
  ALLOWED_NAMESPACES: 'svc-jobs,default',
  TRUSTED_REGISTRIES: 'public.ecr.aws',
  TRUSTED_DOCKERHUB_ORGS: 'library',
  PROJECT_REGISTRIES: '123456789012.dkr.ecr.us-east-1.amazonaws.com',
  MAX_CPU_PER_MANIFEST: '16',
  MAX_MEMORY_PER_MANIFEST: '64Gi',
  MAX_GPU_PER_MANIFEST: '4',
};

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test-only JSON bodies
}

export interface Harness {
  sim: KubeApiSimulator;
  service: Service;
  base: string;
  call(method: string, path: string, body?: unknown): Promise<Reply>;
  waitFor<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

export async function startHarness(env: Record<string, string> = {}): Promise<Harness> {
  const sim = await startKubeApiSimulator({ kubelet: { pendingMs: 30, runningMs: 60 } });
  const service = await createManifestProcessor({
    config: { clusterName: 'sim', region: 'us-east-1', defaultJobNamespace: 'svc-jobs' },
    policy: new ValidationPolicy(loadPolicyConfig({ ...POLICY_ENV, ...env })),
    kubeConfig: kubeConfigFor(sim.url),
    envelope: new EnvelopeVerifier({ keys: staticKeySource({ current: KEY }) }),
    logger: silentServiceLogger(),
  });
  const base = await service.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    sim,
    service,
    base,
    call: (method, path, body) => signedCall(base, KEY, method, path, body),
    async waitFor(probe, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await probe();
        if (value !== undefined && value !== false) return value;
        if (Date.now() > deadline) throw new Error('condition not met in time');
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      await service.app.close();
      await sim.close();
    },
  };
}

/** A batch/v1 Job manifest from a trusted registry; `command` decides the simulated outcome. */
export function jobManifest(
  name: string,
  overrides: {
    command?: string[];
    namespace?: string;
    labels?: Record<string, string>;
    cpu?: string;
    parallelism?: number;
  } = {},
) {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      ...(overrides.namespace ? { namespace: overrides.namespace } : {}),
      labels: { app: 'demo', ...(overrides.labels ?? {}) },
    },
    spec: {
      backoffLimit: 0,
      ...(overrides.parallelism ? { parallelism: overrides.parallelism } : {}),
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'main',
              image: IMAGE,
              command: overrides.command ?? ['sh', '-c', 'echo hello from the job'],
              resources: { requests: { cpu: overrides.cpu ?? '500m', memory: '256Mi' } },
            },
          ],
        },
      },
    },
  };
}
