// Defaulting applied on create, mirroring the API server's defaulters and registry strategies for the
// fields the platform reads back (job selector/labels/backoffLimit, pod restartPolicy/QoS, service IPs).

import type { ResourceType } from './registry.js';
import type { KubeObject, JsonRecord } from './types.js';
import { arr, isRecord, rec, str, strMap } from './types.js';
import { CONTROLLER_UID, JOB_NAME } from './names.js';

function ensureRecord(parent: JsonRecord, key: string): JsonRecord {
  const v = parent[key];
  if (isRecord(v)) return v;
  const fresh: JsonRecord = {};
  parent[key] = fresh;
  return fresh;
}

function defaultContainers(list: unknown): void {
  for (const ct of arr(list)) {
    if (!isRecord(ct)) continue;
    const image = str(ct.image) ?? '';
    const tagged = /:[^/]+$/.test(image) || image.includes('@');
    ct.imagePullPolicy ??= !tagged || image.endsWith(':latest') ? 'Always' : 'IfNotPresent';
    ct.terminationMessagePath ??= '/dev/termination-log';
    ct.terminationMessagePolicy ??= 'File';
    const res = ensureRecord(ct, 'resources');
    // Requests default to limits when only limits are given (core/v1 defaulting).
    const limits = rec(res.limits);
    if (Object.keys(limits).length > 0) {
      const requests = ensureRecord(res, 'requests');
      for (const [k, v] of Object.entries(limits)) requests[k] ??= v;
    }
  }
}

function defaultPodSpec(spec: JsonRecord): void {
  spec.restartPolicy ??= 'Always';
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.serviceAccountName ??= str(spec.serviceAccount) ?? 'default';
  spec.securityContext ??= {};
  defaultContainers(spec.containers);
  defaultContainers(spec.initContainers);
}

/** Guaranteed when every container has equal cpu+memory requests and limits; BestEffort when none. */
export function qosClass(spec: JsonRecord): string {
  const containers = [...arr(spec.containers), ...arr(spec.initContainers)].map(rec);
  let any = false;
  let guaranteed = true;
  for (const ct of containers) {
    const res = rec(ct.resources);
    const req = rec(res.requests);
    const lim = rec(res.limits);
    if (Object.keys(req).length > 0 || Object.keys(lim).length > 0) any = true;
    for (const r of ['cpu', 'memory']) {
      if (lim[r] === undefined || (req[r] !== undefined && req[r] !== lim[r])) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function defaultPod(obj: KubeObject): void {
  const spec = ensureRecord(obj, 'spec');
  defaultPodSpec(spec);
  const status = ensureRecord(obj, 'status');
  status.phase ??= 'Pending';
  status.qosClass ??= qosClass(spec);
}

function defaultJob(obj: KubeObject): void {
  const spec = ensureRecord(obj, 'spec');
  const uid = str(obj.metadata.uid) ?? '';
  if (spec.parallelism === undefined && spec.completions === undefined) spec.completions = 1;
  spec.parallelism ??= 1;
  spec.backoffLimit ??= 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.podReplacementPolicy ??= 'TerminatingOrFailed';
  if (spec.manualSelector !== true && spec.selector === undefined) {
    spec.selector = { matchLabels: { [CONTROLLER_UID]: uid } };
  }
  const template = ensureRecord(spec, 'template');
  const meta = ensureRecord(template, 'metadata');
  const labels = strMap(meta.labels);
  // Only missing labels are added: a stale controller-uid copied from another Job stays and fails validation.
  labels[CONTROLLER_UID] ??= uid;
  labels[JOB_NAME] ??= obj.metadata.name;
  labels['controller-uid'] ??= uid;
  labels['job-name'] ??= obj.metadata.name;
  meta.labels = labels;
  if (isRecord(template.spec)) defaultPodSpecForTemplate(template.spec);
}

/** Template defaults, minus restartPolicy: leaving it unset lets validation report it as the server does. */
function defaultPodSpecForTemplate(spec: JsonRecord): void {
  const restart = spec.restartPolicy;
  defaultPodSpec(spec);
  if (restart === undefined) delete spec.restartPolicy;
}

function defaultWorkload(obj: KubeObject, type: ResourceType): void {
  const spec = ensureRecord(obj, 'spec');
  if (type.plural !== 'daemonsets') spec.replicas ??= 1;
  if (type.plural === 'deployments') {
    spec.revisionHistoryLimit ??= 10;
    spec.progressDeadlineSeconds ??= 600;
    spec.strategy ??= { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } };
  }
  const template = rec(spec.template);
  if (isRecord(template.spec)) defaultPodSpec(template.spec);
}

let nextServiceIp = 10;

function defaultService(obj: KubeObject): void {
  const spec = ensureRecord(obj, 'spec');
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
  if (spec.type !== 'ExternalName' && spec.clusterIP === undefined) {
    const n = nextServiceIp++;
    spec.clusterIP = `10.100.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;
  }
  if (typeof spec.clusterIP === 'string') spec.clusterIPs ??= [spec.clusterIP];
  for (const p of arr(spec.ports)) {
    if (!isRecord(p)) continue;
    p.protocol ??= 'TCP';
    p.targetPort ??= p.port;
  }
  ensureRecord(obj, 'status').loadBalancer ??= {};
}

function defaultSecret(obj: KubeObject): void {
  obj.type ??= 'Opaque';
  // stringData is write-only: merged into data (base64) and dropped, as the server does.
  if (isRecord(obj.stringData)) {
    const data = ensureRecord(obj, 'data');
    for (const [k, v] of Object.entries(obj.stringData)) {
      if (typeof v === 'string') data[k] = Buffer.from(v, 'utf8').toString('base64');
    }
    delete obj.stringData;
  }
}

function defaultNamespace(obj: KubeObject): void {
  const labels = strMap(obj.metadata.labels);
  labels['kubernetes.io/metadata.name'] = obj.metadata.name;
  obj.metadata.labels = labels;
  ensureRecord(obj, 'spec').finalizers ??= ['kubernetes'];
  ensureRecord(obj, 'status').phase ??= 'Active';
}

/** Applies create-time defaults in place. The object already has its name and uid. */
export function applyDefaults(obj: KubeObject, type: ResourceType): void {
  switch (`${type.group}/${type.plural}`) {
    case '/pods':
      defaultPod(obj);
      break;
    case 'batch/jobs':
      defaultJob(obj);
      break;
    case 'apps/deployments':
    case 'apps/statefulsets':
    case 'apps/daemonsets':
    case 'apps/replicasets':
      defaultWorkload(obj, type);
      break;
    case '/services':
      defaultService(obj);
      break;
    case '/secrets':
      defaultSecret(obj);
      break;
    case '/namespaces':
      defaultNamespace(obj);
      break;
  }
}
