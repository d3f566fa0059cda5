/**
 * Which API version a kind is served at, so `gco manifests get|delete NS NAME --kind Job` needs no
 * `--api-version`. Kinds are matched as kubectl matches resource arguments: the kind in any case, its
 * plural resource name, or its short name (`job`, `jobs`, `deploy`, `svc`, `cm`). The table holds the
 * stable version of each built-in namespaced kind (https://kubernetes.io/docs/reference/kubernetes-api/);
 * a kind not in it (a custom resource) is looked up in the platform's allowed-kinds list
 * (`GET /api/v1/policy`, `policy.kinds.allowed`: `apiVersion/Kind` entries, docs/validation-policy.md).
 */

export interface KindVersion {
  apiVersion: string;
  kind: string;
}

/** [apiVersion, kind, plural, short names]: the upstream resource names (`kubectl api-resources`). */
const BUILT_IN: readonly (readonly [string, string, string, ...string[]])[] = [
  ['v1', 'Pod', 'pods', 'po'],
  ['v1', 'Service', 'services', 'svc'],
  ['v1', 'ConfigMap', 'configmaps', 'cm'],
  ['v1', 'Secret', 'secrets'],
  ['v1', 'ServiceAccount', 'serviceaccounts', 'sa'],
  ['v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', 'pvc'],
  ['v1', 'Endpoints', 'endpoints', 'ep'],
  ['v1', 'Event', 'events', 'ev'],
  ['v1', 'LimitRange', 'limitranges', 'limits'],
  ['v1', 'ResourceQuota', 'resourcequotas', 'quota'],
  ['v1', 'PodTemplate', 'podtemplates'],
  ['v1', 'ReplicationController', 'replicationcontrollers', 'rc'],
  ['apps/v1', 'Deployment', 'deployments', 'deploy'],
  ['apps/v1', 'StatefulSet', 'statefulsets', 'sts'],
  ['apps/v1', 'DaemonSet', 'daemonsets', 'ds'],
  ['apps/v1', 'ReplicaSet', 'replicasets', 'rs'],
  ['apps/v1', 'ControllerRevision', 'controllerrevisions'],
  ['batch/v1', 'Job', 'jobs'],
  ['batch/v1', 'CronJob', 'cronjobs', 'cj'],
  ['autoscaling/v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', 'hpa'],
  ['policy/v1', 'PodDisruptionBudget', 'poddisruptionbudgets', 'pdb'],
  ['networking.k8s.io/v1', 'Ingress', 'ingresses', 'ing'],
  ['networking.k8s.io/v1', 'NetworkPolicy', 'networkpolicies', 'netpol'],
  ['rbac.authorization.k8s.io/v1', 'Role', 'roles'],
  ['rbac.authorization.k8s.io/v1', 'RoleBinding', 'rolebindings'],
  ['coordination.k8s.io/v1', 'Lease', 'leases'],
];

const BY_NAME = new Map<string, KindVersion>(
  BUILT_IN.flatMap(([apiVersion, kind, ...names]) =>
    [kind, ...names].map((name) => [name.toLowerCase(), { apiVersion, kind }] as const),
  ),
);

/** The built-in kind a name stands for (`Job`, `job`, `jobs`; `deploy`), or undefined. */
export function builtInKind(name: string): KindVersion | undefined {
  return BY_NAME.get(name.toLowerCase());
}

/**
 * The kind in an allowed-kinds list (`batch/v1/Job`, `kubeflow.org/v1/PyTorchJob`; a bare `Kind` names
 * no version and is skipped): matched by kind in any case, or by its plural with an `s`.
 */
export function allowedKind(name: string, allowed: readonly unknown[]): KindVersion | undefined {
  const wanted = name.toLowerCase();
  for (const entry of allowed) {
    if (typeof entry !== 'string') continue;
    const slash = entry.lastIndexOf('/');
    if (slash <= 0) continue;
    const kind = entry.slice(slash + 1);
    const lower = kind.toLowerCase();
    if (lower === wanted || `${lower}s` === wanted) return { apiVersion: entry.slice(0, slash), kind };
  }
  return undefined;
}
