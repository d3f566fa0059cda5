// The resource types the simulator serves: one table drives discovery, routing, storage keys, name
// validation and field-selector support. CustomResourceDefinitions add entries at run time.

export type NameRule = 'subdomain' | 'label' | 'dns1035' | 'path';

export interface ResourceType {
  group: string; // '' for the core group
  versions: string[]; // first = preferred
  plural: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** Subresources beyond the object itself: 'status', 'log', 'scale'. */
  subresources: string[];
  verbs: string[];
  nameRule: NameRule;
  maxNameLength: number;
  /** Extra field selectors (beyond metadata.name / metadata.namespace) → JSON path in the object. */
  fieldSelectors: Record<string, string>;
  /** Served by a handler instead of the object store (metrics.k8s.io). */
  virtual: boolean;
}

const STORED_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update'];

type Spec = Partial<ResourceType> & Pick<ResourceType, 'plural' | 'kind'>;

function rt(group: string, version: string, spec: Spec): ResourceType {
  return {
    group,
    versions: [version],
    singular: spec.kind.toLowerCase(),
    namespaced: true,
    shortNames: [],
    categories: [],
    subresources: [],
    verbs: STORED_VERBS,
    nameRule: 'subdomain',
    maxNameLength: 253,
    fieldSelectors: {},
    virtual: false,
    ...spec,
  };
}

const POD_FIELDS: Record<string, string> = {
  'spec.nodeName': 'spec.nodeName',
  'spec.restartPolicy': 'spec.restartPolicy',
  'spec.schedulerName': 'spec.schedulerName',
  'spec.serviceAccountName': 'spec.serviceAccountName',
  'spec.hostNetwork': 'spec.hostNetwork',
  'status.phase': 'status.phase',
  'status.podIP': 'status.podIP',
  'status.nominatedNodeName': 'status.nominatedNodeName',
};

const EVENT_FIELDS: Record<string, string> = {
  'involvedObject.kind': 'involvedObject.kind',
  'involvedObject.namespace': 'involvedObject.namespace',
  'involvedObject.name': 'involvedObject.name',
  'involvedObject.uid': 'involvedObject.uid',
  'involvedObject.apiVersion': 'involvedObject.apiVersion',
  'involvedObject.resourceVersion': 'involvedObject.resourceVersion',
  'involvedObject.fieldPath': 'involvedObject.fieldPath',
  reason: 'reason',
  reportingComponent: 'reportingComponent',
  source: 'source.component',
  type: 'type',
};

function builtins(): ResourceType[] {
  const core = (s: Spec): ResourceType => rt('', 'v1', s);
  const rbacPath: Partial<ResourceType> = { nameRule: 'path' };
  return [
    core({
      plural: 'namespaces',
      kind: 'Namespace',
      namespaced: false,
      shortNames: ['ns'],
      nameRule: 'label',
      maxNameLength: 63,
      subresources: ['status'],
      fieldSelectors: { 'status.phase': 'status.phase' },
    }),
    core({
      plural: 'nodes',
      kind: 'Node',
      namespaced: false,
      shortNames: ['no'],
      subresources: ['status'],
      fieldSelectors: { 'spec.unschedulable': 'spec.unschedulable' },
    }),
    core({
      plural: 'pods',
      kind: 'Pod',
      shortNames: ['po'],
      categories: ['all'],
      subresources: ['status', 'log'],
      fieldSelectors: POD_FIELDS,
    }),
    core({
      plural: 'services',
      kind: 'Service',
      shortNames: ['svc'],
      categories: ['all'],
      nameRule: 'dns1035',
      maxNameLength: 63,
      subresources: ['status'],
    }),
    core({ plural: 'configmaps', kind: 'ConfigMap', shortNames: ['cm'] }),
    core({ plural: 'secrets', kind: 'Secret', fieldSelectors: { type: 'type' } }),
    core({ plural: 'serviceaccounts', kind: 'ServiceAccount', shortNames: ['sa'] }),
    core({ plural: 'events', kind: 'Event', shortNames: ['ev'], fieldSelectors: EVENT_FIELDS }),
    core({ plural: 'limitranges', kind: 'LimitRange', shortNames: ['limits'] }),
    core({
      plural: 'resourcequotas',
      kind: 'ResourceQuota',
      shortNames: ['quota'],
      subresources: ['status'],
    }),
    core({
      plural: 'persistentvolumeclaims',
      kind: 'PersistentVolumeClaim',
      shortNames: ['pvc'],
      subresources: ['status'],
    }),
    core({
      plural: 'persistentvolumes',
      kind: 'PersistentVolume',
      namespaced: false,
      shortNames: ['pv'],
      subresources: ['status'],
    }),
    core({ plural: 'endpoints', kind: 'Endpoints', shortNames: ['ep'] }),
    core({ plural: 'podtemplates', kind: 'PodTemplate' }),
    core({
      plural: 'replicationcontrollers',
      kind: 'ReplicationController',
      shortNames: ['rc'],
      categories: ['all'],
      subresources: ['status'],
    }),
    rt('batch', 'v1', {
      plural: 'jobs',
      kind: 'Job',
      categories: ['all'],
      maxNameLength: 63,
      subresources: ['status'],
      fieldSelectors: { 'status.successful': 'status.succeeded' },
    }),
    rt('batch', 'v1', {
      plural: 'cronjobs',
      kind: 'CronJob',
      shortNames: ['cj'],
      categories: ['all'],
      maxNameLength: 52,
      subresources: ['status'],
    }),
    rt('apps', 'v1', {
      plural: 'deployments',
      kind: 'Deployment',
      shortNames: ['deploy'],
      categories: ['all'],
      subresources: ['status'],
    }),
    rt('apps', 'v1', {
      plural: 'statefulsets',
      kind: 'StatefulSet',
      shortNames: ['sts'],
      categories: ['all'],
      subresources: ['status'],
    }),
    rt('apps', 'v1', {
      plural: 'daemonsets',
      kind: 'DaemonSet',
      shortNames: ['ds'],
      categories: ['all'],
      subresources: ['status'],
    }),
    rt('apps', 'v1', {
      plural: 'replicasets',
      kind: 'ReplicaSet',
      shortNames: ['rs'],
      categories: ['all'],
      subresources: ['status'],
    }),
    rt('apps', 'v1', { plural: 'controllerrevisions', kind: 'ControllerRevision' }),
    rt('networking.k8s.io', 'v1', {
      plural: 'networkpolicies',
      kind: 'NetworkPolicy',
      shortNames: ['netpol'],
    }),
    rt('networking.k8s.io', 'v1', {
      plural: 'ingresses',
      kind: 'Ingress',
      shortNames: ['ing'],
      subresources: ['status'],
    }),
    rt('networking.k8s.io', 'v1', { plural: 'ingressclasses', kind: 'IngressClass', namespaced: false }),
    rt('rbac.authorization.k8s.io', 'v1', { plural: 'roles', kind: 'Role', ...rbacPath }),
    rt('rbac.authorization.k8s.io', 'v1', { plural: 'rolebindings', kind: 'RoleBinding', ...rbacPath }),
    rt('rbac.authorization.k8s.io', 'v1', {
      plural: 'clusterroles',
      kind: 'ClusterRole',
      namespaced: false,
      ...rbacPath,
    }),
    rt('rbac.authorization.k8s.io', 'v1', {
      plural: 'clusterrolebindings',
      kind: 'ClusterRoleBinding',
      namespaced: false,
      ...rbacPath,
    }),
    rt('policy', 'v1', {
      plural: 'poddisruptionbudgets',
      kind: 'PodDisruptionBudget',
      shortNames: ['pdb'],
      subresources: ['status'],
    }),
    rt('autoscaling', 'v2', {
      plural: 'horizontalpodautoscalers',
      kind: 'HorizontalPodAutoscaler',
      shortNames: ['hpa'],
      categories: ['all'],
      subresources: ['status'],
    }),
    rt('coordination.k8s.io', 'v1', { plural: 'leases', kind: 'Lease' }),
    rt('storage.k8s.io', 'v1', {
      plural: 'storageclasses',
      kind: 'StorageClass',
      namespaced: false,
      shortNames: ['sc'],
    }),
    rt('scheduling.k8s.io', 'v1', {
      plural: 'priorityclasses',
      kind: 'PriorityClass',
      namespaced: false,
      shortNames: ['pc'],
    }),
    rt('apiextensions.k8s.io', 'v1', {
      plural: 'customresourcedefinitions',
      kind: 'CustomResourceDefinition',
      namespaced: false,
      shortNames: ['crd', 'crds'],
      subresources: ['status'],
    }),
    // The AWS Load Balancer Controller's CRD: the platform's manifests bind Services to ALB target groups.
    rt('elbv2.k8s.aws', 'v1beta1', {
      plural: 'targetgroupbindings',
      kind: 'TargetGroupBinding',
      subresources: ['status'],
    }),
    rt('metrics.k8s.io', 'v1beta1', {
      plural: 'nodes',
      kind: 'NodeMetrics',
      namespaced: false,
      verbs: ['get', 'list'],
      virtual: true,
    }),
    rt('metrics.k8s.io', 'v1beta1', {
      plural: 'pods',
      kind: 'PodMetrics',
      verbs: ['get', 'list'],
      virtual: true,
    }),
  ];
}

export interface GroupInfo {
  name: string;
  versions: string[];
}

export class ResourceRegistry {
  private readonly types: ResourceType[] = builtins();

  all(): readonly ResourceType[] {
    return this.types;
  }

  /** Stored (non-virtual) types, for scans such as garbage collection and namespace deletion. */
  stored(): ResourceType[] {
    return this.types.filter((t) => !t.virtual);
  }

  lookup(group: string, version: string, plural: string): ResourceType | undefined {
    return this.types.find((t) => t.group === group && t.plural === plural && t.versions.includes(version));
  }

  /** By `apiVersion` ("v1", "batch/v1") and kind. */
  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    const { group, version } = splitApiVersion(apiVersion);
    return this.types.find(
      (t) => t.group === group && t.kind === kind && t.versions.includes(version) && !t.virtual,
    );
  }

  core(plural: string): ResourceType {
    const found = this.types.find((t) => t.group === '' && t.plural === plural);
    if (!found) throw new Error(`core resource ${plural} is not registered`);
    return found;
  }

  batch(plural: string): ResourceType {
    const found = this.types.find((t) => t.group === 'batch' && t.plural === plural);
    if (!found) throw new Error(`batch resource ${plural} is not registered`);
    return found;
  }

  forGroupVersion(group: string, version: string): ResourceType[] {
    return this.types.filter((t) => t.group === group && t.versions.includes(version));
  }

  /** Groups in registration order (core excluded), versions in preference order. */
  groups(): GroupInfo[] {
    const out: GroupInfo[] = [];
    for (const t of this.types) {
      if (!t.group) continue;
      let g = out.find((x) => x.name === t.group);
      if (!g) {
        g = { name: t.group, versions: [] };
        out.push(g);
      }
      for (const v of t.versions) if (!g.versions.includes(v)) g.versions.push(v);
    }
    return out;
  }

  register(type: ResourceType): void {
    this.unregister(type.group, type.plural);
    this.types.push(type);
  }

  unregister(group: string, plural: string): void {
    const i = this.types.findIndex((t) => t.group === group && t.plural === plural);
    if (i >= 0) this.types.splice(i, 1);
  }

  /** Builds a custom (CRD-backed) type with the defaults of a stored resource. */
  static custom(
    spec: Omit<ResourceType, 'verbs' | 'nameRule' | 'maxNameLength' | 'fieldSelectors' | 'virtual'>,
  ): ResourceType {
    return { ...rt(spec.group, spec.versions[0] ?? 'v1', { plural: spec.plural, kind: spec.kind }), ...spec };
  }
}

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

export function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/** Storage key for a type: versions share storage, like etcd does. */
export function typeKey(t: ResourceType): string {
  return `${t.group}/${t.plural}`;
}
