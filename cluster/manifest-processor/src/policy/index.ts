/** The manifest-processor's validation policy: one module shared by every entry point and the queue worker. */
export { DEFAULT_POLICY_CONFIG, loadPolicyConfig, POLICY_ENV, policyEnvironment } from './config.js';
export { readClusterEnforcement } from './cluster-enforcement.js';
export { findTooDeep } from './depth.js';
export { ValidationPolicy } from './policy.js';
export { parseImageReference, parseRegistryEntry } from './registry.js';
export { buildPolicyReport } from './report.js';
export { locationOf, RULES, type PolicyViolation } from './rules.js';
