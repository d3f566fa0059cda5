/** manifest-processor configuration from environment variables (the policy reads its own, see policy/). */
import { EnvReader } from '../../shared/env.js';

export interface ManifestProcessorConfig {
  clusterName: string;
  region: string;
  /** Namespace of jobs created without one (seed 000 JobFromTemplateRequest / QueuedJobRequest default). */
  defaultJobNamespace: string;
}

export function loadManifestProcessorConfig(env: NodeJS.ProcessEnv = process.env): ManifestProcessorConfig {
  const read = new EnvReader(env);
  const config = {
    clusterName: read.string('CLUSTER_NAME', 'local'),
    region: read.string('REGION', read.string('AWS_REGION', 'local')),
    defaultJobNamespace: read.string('DEFAULT_JOB_NAMESPACE', 'svc-jobs'),
  };
  read.done();
  return config;
}
