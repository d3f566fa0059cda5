/** Rule ids, their one-line descriptions (reported by GET /api/v1/policy) and the violation record. */
import { formatPath, type JsonPath } from './json.js';

export const RULES = {
  manifest_shape:
    'the manifest is an object with string apiVersion and kind, a metadata object with a name (or generateName), and the fields the policy reads have the right types',
  kind_allowed: 'apiVersion/kind is on the allowed-kinds list',
  namespace_allowed:
    'metadata.namespace, or the request-level namespace it inherits, and the request-level namespace itself are on the allowed-namespaces list',
  max_depth: 'objects and arrays are nested no deeper than the configured maximum',
  invalid_quantity: 'every resource request and limit is a valid, non-negative Kubernetes quantity',
  cpu_limit:
    'total CPU requested by the manifest (per-pod request × replicas) is within the per-manifest ceiling',
  memory_limit:
    'total memory requested by the manifest (per-pod request × replicas) is within the per-manifest ceiling',
  gpu_limit:
    'total nvidia.com/gpu requested by the manifest (per-pod × replicas) is within the per-manifest ceiling',
  trusted_registry:
    'every container image is a well-formed reference from a trusted registry (or a trusted Docker Hub organisation)',
  host_namespaces: 'the pod does not share the node network, PID or IPC namespace',
  host_path: 'the pod mounts no hostPath volume',
  privileged: 'no container is privileged (or a Windows host process)',
  privilege_escalation: 'no container sets allowPrivilegeEscalation: true',
  capabilities: 'containers add only allowed Linux capabilities',
  run_as_non_root:
    'when required: every container runs with runAsNonRoot: true (pod or container level) and never runAsUser: 0',
  reserved_service_account: "the pod does not run as one of the platform's reserved service accounts",
} as const;

export type RuleId = keyof typeof RULES;

export interface PolicyViolation {
  /** Index of the manifest in the request; -1 for the request-level `namespace` field. */
  index: number;
  /** JSON path inside the manifest (`spec.template.spec.containers[0].image`), or `namespace` for index -1. */
  field: string;
  rule: RuleId;
  /** Human readable; names the manifest, the field and the rule. */
  message: string;
}

/** Where a violation sits in the request body: `manifests[2].spec.replicas`, or `namespace`. */
export function locationOf(index: number, field: string): string {
  if (index < 0) return field;
  if (field === '' || field.startsWith('[')) return `manifests[${index}]${field}`;
  return `manifests[${index}].${field}`;
}

export function violation(index: number, path: JsonPath, rule: RuleId, detail: string): PolicyViolation {
  const field = formatPath(path);
  return { index, field, rule, message: `${locationOf(index, field)}: ${detail} (rule ${rule})` };
}
