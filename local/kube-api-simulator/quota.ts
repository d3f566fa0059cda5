// ResourceQuota usage: computed from the live objects of the namespace whenever a quota is read
// (status.hard mirrors spec.hard, status.used is always current) and reused by quota admission.

import { podLimits, podRequests, isTerminal } from './pod-resources.js';
import { formatResource, parseQuantity } from './quantity.js';
import type { ResourceRegistry, ResourceType } from './registry.js';
import type { ObjectStore } from './store.js';
import type { KubeObject } from './types.js';
import { clone, rec, str } from './types.js';

const LEGACY_COUNTS: Record<string, string> = {
  pods: 'pods',
  services: 'services',
  configmaps: 'configmaps',
  secrets: 'secrets',
  replicationcontrollers: 'replicationcontrollers',
  resourcequotas: 'resourcequotas',
  persistentvolumeclaims: 'persistentvolumeclaims',
};

/** The resource type a `count/<plural>[.<group>]` (or legacy count name) refers to. */
export function countedType(registry: ResourceRegistry, key: string): ResourceType | undefined {
  const legacy = LEGACY_COUNTS[key];
  if (legacy) return registry.all().find((t) => t.group === '' && t.plural === legacy);
  if (!key.startsWith('count/')) return undefined;
  const rest = key.slice('count/'.length);
  const dot = rest.indexOf('.');
  const plural = dot < 0 ? rest : rest.slice(0, dot);
  const group = dot < 0 ? '' : rest.slice(dot + 1);
  return registry.all().find((t) => t.group === group && t.plural === plural && !t.virtual);
}

/** Compute resource key → [section, resource name], e.g. `cpu` → requests/cpu, `limits.memory` → limits/memory. */
export function computeKey(key: string): { section: 'requests' | 'limits'; name: string } | undefined {
  if (key.startsWith('requests.')) return { section: 'requests', name: key.slice('requests.'.length) };
  if (key.startsWith('limits.')) return { section: 'limits', name: key.slice('limits.'.length) };
  if (key === 'cpu' || key === 'memory' || key === 'ephemeral-storage')
    return { section: 'requests', name: key };
  return undefined;
}

function livePods(store: ObjectStore, registry: ResourceRegistry, namespace: string): KubeObject[] {
  return store.scan(registry.core('pods'), namespace).filter((p) => !isTerminal(p));
}

/** Current usage of one quota key in a namespace. */
export function usageOf(
  store: ObjectStore,
  registry: ResourceRegistry,
  namespace: string,
  key: string,
): number {
  const counted = countedType(registry, key);
  if (counted) {
    if (counted.group === '' && counted.plural === 'pods') return livePods(store, registry, namespace).length;
    return store.count(counted, namespace);
  }
  const compute = computeKey(key);
  if (compute) {
    let total = 0;
    for (const pod of livePods(store, registry, namespace)) {
      const amounts = compute.section === 'requests' ? podRequests(pod) : podLimits(pod);
      total += amounts[compute.name] ?? 0;
    }
    return total;
  }
  if (key === 'requests.storage') {
    let total = 0;
    for (const pvc of store.scan(registry.core('persistentvolumeclaims'), namespace)) {
      total += parseQuantity(rec(rec(rec(pvc.spec).resources).requests).storage) ?? 0;
    }
    return total;
  }
  if (key === 'services.loadbalancers' || key === 'services.nodeports') {
    const want = key === 'services.loadbalancers' ? 'LoadBalancer' : 'NodePort';
    return store.scan(registry.core('services'), namespace).filter((s) => str(rec(s.spec).type) === want)
      .length;
  }
  return 0;
}

export function formatQuota(key: string, value: number): string {
  const compute = computeKey(key);
  if (compute) return formatResource(compute.name, value);
  if (key === 'requests.storage') return formatResource('storage', value);
  return formatResource(key, value);
}

/** A ResourceQuota with status.hard / status.used filled from live state. */
export function withQuotaStatus(
  store: ObjectStore,
  registry: ResourceRegistry,
  quota: KubeObject,
): KubeObject {
  const out = clone(quota);
  const hard: Record<string, unknown> = { ...rec(rec(quota.spec).hard) };
  const used: Record<string, string> = {};
  const namespace = quota.metadata.namespace ?? 'default';
  for (const key of Object.keys(hard)) used[key] = formatQuota(key, usageOf(store, registry, namespace, key));
  out.status = { ...rec(quota.status), hard, used };
  return out;
}
