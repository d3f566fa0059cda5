/** Shared by the validation-policy unit tests: a policy from an environment, as the service loads it. */
import { loadPolicyConfig, ValidationPolicy } from '../../../cluster/manifest-processor/src/policy/index.js';

export type Json = Record<string, unknown>;

/** The policy the manifest-processor would build from these variables (defaults for the rest). */
export const policyFrom = (env: Record<string, string> = {}): ValidationPolicy =>
  new ValidationPolicy(loadPolicyConfig(env));
