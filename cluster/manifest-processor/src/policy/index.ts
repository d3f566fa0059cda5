/** The manifest-processor's validation policy: one module shared by every entry point and the queue worker. */
export {
  DEFAULT_POLICY_CONFIG,
  EMPTY_LIST,
  loadPolicyConfig,
  POLICY_ENV,
  policyEnvironment,
  type PolicyConfig,
} from './config.js';
export {
  describeKubeError,
  readClusterEnforcement,
  type ClusterEnforcement,
  type ClusterEnforcementOptions,
  type LayerReport,
} from './cluster-enforcement.js';
export { DEFAULT_NAMESPACE } from './checks.js';
export { findTooDeep } from './depth.js';
export { ValidationPolicy } from './policy.js';
export {
  parseImageReference,
  parseRegistryEntry,
  DOCKER_HUB_HOSTS,
  type ImageReference,
} from './registry.js';
export { buildPolicyReport, type PolicyReport } from './report.js';
export { podRequest, GPU_RESOURCE, type ResourceTotals } from './resources.js';
export { locationOf, RULES, type PolicyViolation, type RuleId } from './rules.js';
