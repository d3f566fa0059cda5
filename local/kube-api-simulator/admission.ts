// Built-in admission the platform's policy report depends on: LimitRanger (container defaults and
// min/max) and ResourceQuota (compute and object-count quotas). Rejections are 403 Forbidden with the
// real plugins' wording, for API creates and job-controller pod creates alike. Pods also pass EKS's
// ExtendedResourceToleration (extended-resource-toleration.ts), which lets GPU pods onto tainted GPU nodes.

import { addExtendedResourceTolerations } from './extended-resource-toleration.js';
import { podLimits, podRequests } from './pod-resources.js';
import { parseQuantity } from './quantity.js';
import { computeKey, countedType, formatQuota, usageOf } from './quota.js';
import type { ResourceRegistry, ResourceType } from './registry.js';
import type { ObjectStore } from './store.js';
import { forbidden } from './status.js';
import type { KubeObject, JsonRecord } from './types.js';
import { arr, isRecord, rec, str } from './types.js';

function containerList(pod: KubeObject): JsonRecord[] {
  const spec = rec(pod.spec);
  return [...arr(spec.containers), ...arr(spec.initContainers)].filter(isRecord);
}

function ensure(parent: JsonRecord, key: string): JsonRecord {
  if (!isRecord(parent[key])) parent[key] = {};
  return rec(parent[key]);
}

/** LimitRanger: fills container defaults, then enforces per-container and per-pod min/max. */
function limitRanges(
  store: ObjectStore,
  registry: ResourceRegistry,
  pod: KubeObject,
  type: ResourceType,
): void {
  const ns = pod.metadata.namespace ?? 'default';
  const ranges = store.scan(registry.core('limitranges'), ns);
  const deny = (why: string): never => {
    throw forbidden({ group: type.group, resource: type.plural }, pod.metadata.name, why);
  };
  for (const lr of ranges) {
    for (const item of arr(rec(lr.spec).limits).map(rec)) {
      const kind = str(item.type);
      if (kind === 'Container') {
        for (const ct of containerList(pod)) {
          const res = ensure(ct, 'resources');
          const limits = ensure(res, 'limits');
          const requests = ensure(res, 'requests');
          for (const [k, v] of Object.entries(rec(item.default))) limits[k] ??= v;
          for (const [k, v] of Object.entries(rec(item.defaultRequest))) requests[k] ??= v;
          // A default limit with no explicit defaultRequest also becomes the request.
          for (const [k, v] of Object.entries(limits)) requests[k] ??= v;
          for (const [k, v] of Object.entries(rec(item.max))) {
            const max = parseQuantity(v) ?? Infinity;
            const lim = parseQuantity(limits[k]);
            if (lim === undefined)
              deny(`maximum ${k} usage per Container is ${String(v)}.  No limit is specified`);
            else if (lim > max)
              deny(`maximum ${k} usage per Container is ${String(v)}, but limit is ${String(limits[k])}`);
          }
          for (const [k, v] of Object.entries(rec(item.min))) {
            const min = parseQuantity(v) ?? 0;
            const req = parseQuantity(requests[k]);
            if (req === undefined)
              deny(`minimum ${k} usage per Container is ${String(v)}.  No request is specified`);
            else if (req < min)
              deny(`minimum ${k} usage per Container is ${String(v)}, but request is ${String(requests[k])}`);
          }
        }
      } else if (kind === 'Pod') {
        const lims = podLimits(pod);
        const reqs = podRequests(pod);
        for (const [k, v] of Object.entries(rec(item.max))) {
          if ((lims[k] ?? 0) > (parseQuantity(v) ?? Infinity))
            deny(`maximum ${k} usage per Pod is ${String(v)}`);
        }
        for (const [k, v] of Object.entries(rec(item.min))) {
          if ((reqs[k] ?? 0) < (parseQuantity(v) ?? 0)) deny(`minimum ${k} usage per Pod is ${String(v)}`);
        }
      }
    }
  }
}

/** ResourceQuota: the new object's contribution must fit every quota of the namespace. */
function quotas(store: ObjectStore, registry: ResourceRegistry, obj: KubeObject, type: ResourceType): void {
  const ns = obj.metadata.namespace;
  if (!ns) return;
  const isPod = type.group === '' && type.plural === 'pods';
  for (const q of store.scan(registry.core('resourcequotas'), ns)) {
    const hard = rec(rec(q.spec).hard);
    const requested: string[] = [];
    const used: string[] = [];
    const limited: string[] = [];
    const missing: string[] = [];
    for (const [key, rawLimit] of Object.entries(hard)) {
      const limit = parseQuantity(rawLimit);
      if (limit === undefined) continue;
      let delta = 0;
      const counted = countedType(registry, key);
      const compute = computeKey(key);
      if (counted) {
        if (counted.group !== type.group || counted.plural !== type.plural) continue;
        delta = 1;
      } else if (compute && isPod) {
        const amounts = compute.section === 'requests' ? podRequests(obj) : podLimits(obj);
        delta = amounts[compute.name] ?? 0;
        if ((compute.name === 'cpu' || compute.name === 'memory') && amounts[compute.name] === undefined) {
          missing.push(key);
          continue;
        }
      } else {
        continue;
      }
      const current = usageOf(store, registry, ns, key);
      if (current + delta > limit) {
        requested.push(`${key}=${formatQuota(key, delta)}`);
        used.push(`${key}=${formatQuota(key, current)}`);
        limited.push(`${key}=${String(rawLimit)}`);
      }
    }
    const ref = { group: type.group, resource: type.plural };
    if (missing.length > 0) {
      const names = containerList(obj)
        .map((c) => str(c.name) ?? '')
        .join(',');
      throw forbidden(
        ref,
        obj.metadata.name,
        `failed quota: ${q.metadata.name}: must specify ${missing.map((m) => `${m} for: ${names}`).join('; ')}`,
      );
    }
    if (requested.length > 0) {
      throw forbidden(
        ref,
        obj.metadata.name,
        `exceeded quota: ${q.metadata.name}, requested: ${requested.join(',')}, used: ${used.join(',')}, limited: ${limited.join(',')}`,
      );
    }
  }
}

/** Runs admission for a create; mutates `obj` (LimitRange defaults) or throws 403. */
export function admitCreate(
  store: ObjectStore,
  registry: ResourceRegistry,
  obj: KubeObject,
  type: ResourceType,
): void {
  if (type.group === '' && type.plural === 'pods') {
    limitRanges(store, registry, obj, type);
    addExtendedResourceTolerations(obj);
  }
  quotas(store, registry, obj, type);
}
