/**
 * manifest-processor's own configuration: its environment contract, read and written here. The policy,
 * queue, templates, webhooks and cost client read their own contracts (docs/manifest-processor.md).
 */
import { readContract, variablesOf, type EnvSource } from '../../shared/env-source.js';

export interface ManifestProcessorConfig {
  clusterName: string;
  region: string;
  /** Namespace of jobs created without one (JobFromTemplateRequest / QueuedJobRequest default). */
  defaultJobNamespace: string;
}

const VARIABLES = {
  clusterName: 'CLUSTER_NAME',
  region: 'REGION',
  defaultJobNamespace: 'DEFAULT_JOB_NAMESPACE',
} as const satisfies Record<keyof ManifestProcessorConfig, string>;

export function loadManifestProcessorConfig(env: EnvSource = process.env): ManifestProcessorConfig {
  return readContract(env, (read) => ({
    clusterName: read.string(VARIABLES.clusterName, 'local'),
    region: read.string(VARIABLES.region, read.string('AWS_REGION', 'local')),
    defaultJobNamespace: read.string(VARIABLES.defaultJobNamespace, 'svc-jobs'),
  }));
}

export function manifestProcessorEnvironment(
  config: Partial<ManifestProcessorConfig>,
): Record<string, string> {
  return variablesOf(VARIABLES, config);
}
