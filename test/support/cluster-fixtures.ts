/**
 * What the cluster-service tests share: the envelope key they sign with and a verifier accepting it, the
 * policy they run under, a trusted image and batch/v1 Job manifests whose command decides the simulated
 * outcome.
 */
import { EnvelopeVerifier } from '../../contracts/envelope/envelope.js';
import { staticKeySource } from '../../contracts/envelope/signing-keys.js';

export const KEY = 'cluster-services-test-signing-key-0123456789';

export function testEnvelopeVerifier(key = KEY): EnvelopeVerifier {
  return new EnvelopeVerifier({ keys: staticKeySource({ current: key }) });
}

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

export interface JobManifestOptions {
  command?: string[];
  namespace?: string;
  labels?: Record<string, string>;
  cpu?: string;
  memory?: string;
  parallelism?: number;
}

/** A batch/v1 Job manifest from a trusted registry; `command` decides the simulated outcome. */
export function jobManifest(name: string, overrides: JobManifestOptions = {}) {
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
              resources: { requests: { cpu: overrides.cpu ?? '500m', memory: overrides.memory ?? '256Mi' } },
            },
          ],
        },
      },
    },
  };
}
