// Effective resource requests/limits of a pod, as the scheduler and quota admission compute them:
// max(sum of app containers, largest init container) per resource.

import { parseQuantity } from './quantity.js';
import type { KubeObject } from './types.js';
import { arr, rec } from './types.js';

export type ResourceAmounts = Record<string, number>;

function containerAmounts(list: unknown, section: 'requests' | 'limits'): ResourceAmounts[] {
  return arr(list).map((c) => {
    const res = rec(rec(c).resources);
    const out: ResourceAmounts = {};
    // A missing request defaults to the limit (already applied on create; repeated for put() objects).
    const values = section === 'requests' ? { ...rec(res.limits), ...rec(res.requests) } : rec(res.limits);
    for (const [k, v] of Object.entries(values)) {
      const q = parseQuantity(v);
      if (q !== undefined) out[k] = q;
    }
    return out;
  });
}

function effective(pod: KubeObject, section: 'requests' | 'limits'): ResourceAmounts {
  const spec = rec(pod.spec);
  const total: ResourceAmounts = {};
  for (const c of containerAmounts(spec.containers, section)) {
    for (const [k, v] of Object.entries(c)) total[k] = (total[k] ?? 0) + v;
  }
  for (const c of containerAmounts(spec.initContainers, section)) {
    for (const [k, v] of Object.entries(c)) total[k] = Math.max(total[k] ?? 0, v);
  }
  return total;
}

export function podRequests(pod: KubeObject): ResourceAmounts {
  return effective(pod, 'requests');
}

export function podLimits(pod: KubeObject): ResourceAmounts {
  return effective(pod, 'limits');
}

export function containerRequests(container: unknown): ResourceAmounts {
  return containerAmounts([container], 'requests')[0] ?? {};
}

export function isTerminal(pod: KubeObject): boolean {
  const phase = rec(pod.status).phase;
  return phase === 'Succeeded' || phase === 'Failed';
}
