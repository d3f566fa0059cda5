// Server-side printing: `Accept: application/json;as=Table;v=v1;g=meta.k8s.io` (what `kubectl get`
// sends) returns a meta.k8s.io Table with the real server's columns for nodes, pods, jobs, namespaces,
// events, deployments, services and configmaps (NAME/AGE for everything else). Also serves
// `as=PartialObjectMetadata[List]`.

import type { ResourceType } from './registry.js';
import type { KubeObject, JsonRecord } from './types.js';
import { arr, labelsOf, num, rec, str } from './types.js';

export type Representation =
  { as: 'json' } | { as: 'Table'; version: string } | { as: 'PartialObjectMetadata'; version: string };

/** Picks the first media range of the Accept header the simulator can produce. */
export function negotiate(accept: string | undefined): Representation {
  if (!accept) return { as: 'json' };
  for (const range of accept.split(',')) {
    const [media, ...params] = range.split(';').map((p) => p.trim());
    const p: Record<string, string> = {};
    for (const kv of params) {
      const i = kv.indexOf('=');
      if (i > 0) p[kv.slice(0, i).trim()] = kv.slice(i + 1).trim();
    }
    const jsonish = media === 'application/json' || media === '*/*' || media === 'application/*';
    if (!jsonish) continue;
    if (p.as === undefined) return { as: 'json' };
    const version = p.v ?? 'v1';
    if (p.g !== 'meta.k8s.io' || (version !== 'v1' && version !== 'v1beta1')) continue;
    if (p.as === 'Table') return { as: 'Table', version };
    if (p.as === 'PartialObjectMetadata' || p.as === 'PartialObjectMetadataList')
      return { as: 'PartialObjectMetadata', version };
  }
  return { as: 'json' };
}

interface Column {
  name: string;
  type: 'string' | 'integer' | 'date';
  format: string;
  description: string;
  priority: number;
}

type Cell = string | number;

const NAME: Column = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority: 0,
};
const AGE: Column = {
  name: 'Age',
  type: 'string',
  format: '',
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
};

function col(name: string, description: string, priority = 0, type: Column['type'] = 'string'): Column {
  return { name, type, format: '', description, priority };
}

/** apimachinery's duration.HumanDuration, which the server uses for AGE cells. */
function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${hours / 24}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 365 * 8)
    return days % 365 === 0 ? `${days / 365}y` : `${Math.floor(days / 365)}y${days % 365}d`;
  return `${Math.floor(days / 365)}y`;
}

function age(obj: KubeObject): string {
  const ts = str(obj.metadata.creationTimestamp);
  return ts ? humanDuration(Date.now() - Date.parse(ts)) : '<unknown>';
}

function since(ts: unknown): string {
  return typeof ts === 'string' ? humanDuration(Date.now() - Date.parse(ts)) : '<unknown>';
}

function podStatus(pod: KubeObject): string {
  const status = rec(pod.status);
  let reason = str(status.reason) ?? str(status.phase) ?? 'Pending';
  const inits = arr(status.initContainerStatuses).map(rec);
  const initCount = arr(rec(pod.spec).initContainers).length;
  let initializing = false;
  inits.forEach((cs, i) => {
    const term = rec(rec(cs.state).terminated);
    const waiting = rec(rec(cs.state).waiting);
    if (num(term.exitCode) === 0 && term.exitCode !== undefined) return;
    if (term.exitCode !== undefined)
      reason = `Init:${str(term.reason) ?? `ExitCode:${num(term.exitCode) ?? ''}`}`;
    else if (str(waiting.reason) && waiting.reason !== 'PodInitializing')
      reason = `Init:${String(waiting.reason)}`;
    else reason = `Init:${i}/${initCount}`;
    initializing = true;
  });
  if (!initializing) {
    let hasRunning = false;
    for (const cs of arr(status.containerStatuses).map(rec).reverse()) {
      const state = rec(cs.state);
      const waiting = rec(state.waiting);
      const term = rec(state.terminated);
      if (str(waiting.reason)) reason = String(waiting.reason);
      else if (term.exitCode !== undefined)
        reason = str(term.reason) ?? `ExitCode:${num(term.exitCode) ?? ''}`;
      else if (cs.ready === true && state.running !== undefined) hasRunning = true;
    }
    if (reason === 'Completed' && hasRunning) reason = 'Running';
  }
  if (pod.metadata.deletionTimestamp) reason = 'Terminating';
  return reason;
}

function podRow(pod: KubeObject): Cell[] {
  const status = rec(pod.status);
  const css = arr(status.containerStatuses).map(rec);
  const total = arr(rec(pod.spec).containers).length;
  const ready = css.filter((c) => c.ready === true).length;
  const restarts = css.reduce((s, c) => s + (num(c.restartCount) ?? 0), 0);
  const lastRestart = css
    .map((c) => str(rec(rec(c.lastState).terminated).finishedAt))
    .filter((x): x is string => !!x)
    .sort()
    .pop();
  const restartCell =
    restarts > 0 && lastRestart ? `${restarts} (${since(lastRestart)} ago)` : String(restarts);
  return [
    pod.metadata.name,
    `${ready}/${total}`,
    podStatus(pod),
    restartCell,
    age(pod),
    str(status.podIP) ?? '<none>',
    str(rec(pod.spec).nodeName) ?? '<none>',
    str(status.nominatedNodeName) ?? '<none>',
    '<none>',
  ];
}

function nodeRow(node: KubeObject): Cell[] {
  const status = rec(node.status);
  const conds = arr(status.conditions).map(rec);
  const ready = conds.find((c) => c.type === 'Ready');
  let st = ready?.status === 'True' ? 'Ready' : ready ? 'NotReady' : 'Unknown';
  if (rec(node.spec).unschedulable === true) st += ',SchedulingDisabled';
  const roles = Object.keys(labelsOf(node))
    .filter((k) => k.startsWith('node-role.kubernetes.io/'))
    .map((k) => k.slice('node-role.kubernetes.io/'.length));
  const info = rec(status.nodeInfo);
  const addr = (t: string): string =>
    str(
      arr(status.addresses)
        .map(rec)
        .find((a) => a.type === t)?.address,
    ) ?? '<none>';
  return [
    node.metadata.name,
    st,
    roles.length > 0 ? roles.join(',') : '<none>',
    age(node),
    str(info.kubeletVersion) ?? '',
    addr('InternalIP'),
    addr('ExternalIP'),
    str(info.osImage) ?? '<unknown>',
    str(info.kernelVersion) ?? '<unknown>',
    str(info.containerRuntimeVersion) ?? '<unknown>',
  ];
}

function jobRow(job: KubeObject): Cell[] {
  const spec = rec(job.spec);
  const status = rec(job.status);
  const conds = arr(status.conditions).map(rec);
  const has = (t: string): boolean => conds.some((c) => c.type === t && c.status === 'True');
  const state = has('Complete')
    ? 'Complete'
    : has('Failed')
      ? 'Failed'
      : has('Suspended')
        ? 'Suspended'
        : 'Running';
  const completions = num(spec.completions);
  const succeeded = num(status.succeeded) ?? 0;
  const completionsCell =
    completions !== undefined
      ? `${succeeded}/${completions}`
      : `${succeeded}/1 of ${num(spec.parallelism) ?? 1}`;
  const start = str(status.startTime);
  const end = str(status.completionTime);
  const duration = start ? humanDuration((end ? Date.parse(end) : Date.now()) - Date.parse(start)) : '';
  const containers = arr(rec(rec(spec.template).spec).containers).map(rec);
  const selector = Object.entries(rec(rec(spec.selector).matchLabels))
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',');
  return [
    job.metadata.name,
    state,
    completionsCell,
    duration,
    age(job),
    containers.map((c) => str(c.name) ?? '').join(','),
    containers.map((c) => str(c.image) ?? '').join(','),
    selector,
  ];
}

function deploymentRow(d: KubeObject): Cell[] {
  const spec = rec(d.spec);
  const status = rec(d.status);
  const containers = arr(rec(rec(spec.template).spec).containers).map(rec);
  return [
    d.metadata.name,
    `${num(status.readyReplicas) ?? 0}/${num(spec.replicas) ?? 1}`,
    num(status.updatedReplicas) ?? 0,
    num(status.availableReplicas) ?? 0,
    age(d),
    containers.map((c) => str(c.name) ?? '').join(','),
    containers.map((c) => str(c.image) ?? '').join(','),
    Object.entries(rec(rec(spec.selector).matchLabels))
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(','),
  ];
}

function serviceRow(s: KubeObject): Cell[] {
  const spec = rec(s.spec);
  const ports = arr(spec.ports)
    .map(rec)
    .map(
      (p) =>
        `${num(p.port) ?? ''}${p.nodePort ? `:${num(p.nodePort) ?? ''}` : ''}/${str(p.protocol) ?? 'TCP'}`,
    )
    .join(',');
  const selector = Object.entries(rec(spec.selector))
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(',');
  return [
    s.metadata.name,
    str(spec.type) ?? 'ClusterIP',
    str(spec.clusterIP) ?? '<none>',
    '<none>',
    ports || '<none>',
    age(s),
    selector || '<none>',
  ];
}

function eventRow(e: KubeObject): Cell[] {
  const io = rec(e.involvedObject);
  return [
    since(e.lastTimestamp ?? e.firstTimestamp ?? e.metadata.creationTimestamp),
    str(e.type) ?? '',
    str(e.reason) ?? '',
    `${(str(io.kind) ?? '').toLowerCase()}/${str(io.name) ?? ''}`,
    str(e.message) ?? '',
    `${str(rec(e.source).component) ?? ''}${rec(e.source).host ? `, ${String(rec(e.source).host)}` : ''}`,
    String(e.metadata.name),
  ];
}

interface Printer {
  columns: Column[];
  row: (o: KubeObject) => Cell[];
}

const PRINTERS: Record<string, Printer> = {
  '/pods': {
    columns: [
      NAME,
      col('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
      col('Status', 'The aggregate status of the containers in this pod.'),
      col(
        'Restarts',
        'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
      ),
      AGE,
      col(
        'IP',
        'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.',
        1,
      ),
      col(
        'Node',
        'NodeName is a request to schedule this pod onto a specific node. If it is non-empty, the scheduler simply schedules this pod onto that node, assuming that it fits resource requirements.',
        1,
      ),
      col(
        'Nominated Node',
        'nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods.',
        1,
      ),
      col('Readiness Gates', 'If specified, all readiness gates will be evaluated for pod readiness.', 1),
    ],
    row: podRow,
  },
  '/nodes': {
    columns: [
      NAME,
      col('Status', 'The status of the node'),
      col('Roles', 'The roles of the node'),
      AGE,
      col('Version', 'Kubelet Version reported by the node.'),
      col(
        'Internal-IP',
        'List of addresses reachable to the node. Queried from cloud provider, if available.',
        1,
      ),
      col(
        'External-IP',
        'List of addresses reachable to the node. Queried from cloud provider, if available.',
        1,
      ),
      col(
        'OS-Image',
        'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).',
        1,
      ),
      col(
        'Kernel-Version',
        "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
        1,
      ),
      col(
        'Container-Runtime',
        'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).',
        1,
      ),
    ],
    row: nodeRow,
  },
  'batch/jobs': {
    columns: [
      NAME,
      col('Status', 'Status of the job.'),
      col('Completions', 'The desired number of successfully finished pods the job should be run with.'),
      col('Duration', 'Time required to complete the job.'),
      AGE,
      col('Containers', 'Names of each container in the template.', 1),
      col('Images', 'Images referenced by each container in the template.', 1),
      col('Selector', 'A label query over pods that should match the pod count.', 1),
    ],
    row: jobRow,
  },
  '/namespaces': {
    columns: [NAME, col('Status', 'The status of the namespace'), AGE],
    row: (n) => [n.metadata.name, str(rec(n.status).phase) ?? 'Active', age(n)],
  },
  '/events': {
    columns: [
      col('Last Seen', 'The last time the event was seen'),
      col('Type', 'The type of the event'),
      col('Reason', 'The reason of the event'),
      col('Object', 'The object the event is about'),
      col('Message', 'The human readable message of the event'),
      col('Source', 'The source of the event', 1),
      { ...NAME, priority: 1 },
    ],
    row: eventRow,
  },
  'apps/deployments': {
    columns: [
      NAME,
      col('Ready', 'Number of the pod with ready state'),
      col(
        'Up-to-date',
        'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
        0,
        'integer',
      ),
      col(
        'Available',
        'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
        0,
        'integer',
      ),
      AGE,
      col('Containers', 'Names of each container in the template.', 1),
      col('Images', 'Images referenced by each container in the template.', 1),
      col(
        'Selector',
        'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.',
        1,
      ),
    ],
    row: deploymentRow,
  },
  '/services': {
    columns: [
      NAME,
      col('Type', 'type determines how the Service is exposed.'),
      col('Cluster-IP', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
      col(
        'External-IP',
        'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
      ),
      col('Port(s)', 'The list of ports that are exposed by this service.'),
      AGE,
      col('Selector', 'Route service traffic to pods with label keys and values matching this selector.', 1),
    ],
    row: serviceRow,
  },
  '/configmaps': {
    columns: [NAME, col('Data', 'Data contains the configuration data.', 0, 'integer'), AGE],
    row: (c) => [
      c.metadata.name,
      Object.keys(rec(c.data)).length + Object.keys(rec(c.binaryData)).length,
      age(c),
    ],
  },
};

const GENERIC: Printer = { columns: [NAME, AGE], row: (o) => [o.metadata.name, age(o)] };

function partial(obj: KubeObject, version: string): JsonRecord {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: obj.metadata };
}

export function toTable(
  type: ResourceType,
  objects: KubeObject[],
  listMeta: JsonRecord,
  version: string,
  includeObject: string | null,
): JsonRecord {
  const printer = PRINTERS[`${type.group}/${type.plural}`] ?? GENERIC;
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: listMeta,
    columnDefinitions: printer.columns,
    rows: objects.map((o) => {
      const row: JsonRecord = { cells: printer.row(o) };
      // kubectl needs at least metadata (namespace for -A, name for `kind/name` output).
      if (includeObject === 'Object') row.object = o;
      else if (includeObject !== 'None') row.object = partial(o, version);
      return row;
    }),
  };
}

export function toPartial(
  objects: KubeObject[],
  listMeta: JsonRecord,
  version: string,
  single: boolean,
): JsonRecord {
  if (single && objects[0]) return partial(objects[0], version);
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: listMeta,
    items: objects.map((o) => partial(o, version)),
  };
}
