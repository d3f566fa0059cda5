/** GET /api/v1/policy: the three layers a manifest must clear (docs/validation-policy.md). */
import type { KubeConfig } from '@kubernetes/client-node';

import {
  readClusterEnforcement,
  type ClusterEnforcement,
  type ClusterEnforcementOptions,
} from './cluster-enforcement.js';
import type { ValidationPolicy } from './policy.js';

export interface PolicyReport {
  policy: Record<string, unknown>;
  cluster_enforcement: ClusterEnforcement;
}

/** Always resolves: a cluster layer the API cannot supply is reported as unavailable. */
export async function buildPolicyReport(
  policy: ValidationPolicy,
  kubeConfig: KubeConfig,
  options: ClusterEnforcementOptions = {},
): Promise<PolicyReport> {
  return {
    policy: policy.describe(),
    cluster_enforcement: await readClusterEnforcement(kubeConfig, policy.config.allowedNamespaces, options),
  };
}
