// A small default-scheduler: filters nodes by readiness, unschedulable, nodeSelector, required node
// affinity, NoSchedule taints and free allocatable (cpu, memory, pods, extended resources such as
// nvidia.com/gpu); prefers nodes without extended resources the pod does not ask for (keeps GPU nodes free).

import { isTerminal, podRequests } from './pod-resources.js';
import type { ResourceAmounts } from './pod-resources.js';
import { parseQuantity } from './quantity.js';
import { matchesLabelSelectorObject } from './selectors.js';
import type { KubeObject } from './types.js';
import { arr, isRecord, labelsOf, rec, str, strMap } from './types.js';

export type ScheduleResult = { node: string } | { reason: string };

function allocatable(node: KubeObject): ResourceAmounts {
  const out: ResourceAmounts = {};
  const status = rec(node.status);
  const source = isRecord(status.allocatable) ? status.allocatable : rec(status.capacity);
  for (const [k, v] of Object.entries(source)) {
    const q = parseQuantity(v);
    if (q !== undefined) out[k] = q;
  }
  return out;
}

function isReady(node: KubeObject): boolean {
  const conds = arr(rec(node.status).conditions).map(rec);
  const ready = conds.find((c) => c.type === 'Ready');
  // Nodes put() without conditions count as ready: tests often write minimal nodes.
  return ready === undefined || ready.status === 'True';
}

function tolerates(pod: KubeObject, taint: Record<string, unknown>): boolean {
  return arr(rec(pod.spec).tolerations)
    .map(rec)
    .some((t) => {
      if (t.effect !== undefined && t.effect !== '' && t.effect !== taint.effect) return false;
      if (t.operator === 'Exists') return t.key === undefined || t.key === '' || t.key === taint.key;
      return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
    });
}

function matchesAffinity(pod: KubeObject, nodeLabels: Record<string, string>): boolean {
  const required = rec(
    rec(rec(rec(pod.spec).affinity).nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution,
  );
  const terms = arr(required.nodeSelectorTerms).map(rec);
  if (terms.length === 0) return true;
  // Terms are ORed; expressions inside a term are ANDed (same operators as label selectors).
  return terms.some((term) =>
    matchesLabelSelectorObject({ matchExpressions: arr(term.matchExpressions) }, nodeLabels),
  );
}

const NODE_RESOURCES = new Set(['cpu', 'memory', 'pods', 'ephemeral-storage']);

/** Requests of stored (frozen, never changing) pods, parsed once per snapshot. */
const frozenRequests = new WeakMap<KubeObject, ResourceAmounts>();

function requestsOf(pod: KubeObject): ResourceAmounts {
  if (!Object.isFrozen(pod)) return podRequests(pod);
  let amounts = frozenRequests.get(pod);
  if (!amounts) {
    amounts = podRequests(pod);
    frozenRequests.set(pod, amounts);
  }
  return amounts;
}

/**
 * Requests of the live (bound, not terminal) pods summed per node: what kube-scheduler's cache keeps per
 * node (NodeInfo.Requested) so that scheduling one pod costs O(nodes), not O(pods).
 * https://github.com/kubernetes/kubernetes/blob/v1.30.0/pkg/scheduler/framework/types.go (NodeInfo)
 */
export function requestedByNode(pods: readonly KubeObject[]): Map<string, ResourceAmounts> {
  const used = new Map<string, ResourceAmounts>();
  for (const p of pods) {
    const nodeName = str(rec(p.spec).nodeName);
    if (nodeName === undefined || isTerminal(p)) continue;
    let sum = used.get(nodeName);
    if (!sum) {
      sum = {};
      used.set(nodeName, sum);
    }
    for (const [k, v] of Object.entries(requestsOf(p))) sum[k] = (sum[k] ?? 0) + v;
    sum.pods = (sum.pods ?? 0) + 1;
  }
  return used;
}

/** Picks a node for `pod`; `requested` is requestedByNode() of the pods as they are now. */
export function schedule(
  pod: KubeObject,
  nodes: KubeObject[],
  requested: ReadonlyMap<string, ResourceAmounts>,
): ScheduleResult {
  const want: ResourceAmounts = { ...podRequests(pod), pods: 1 };
  const selector = strMap(rec(pod.spec).nodeSelector);
  const reasons = new Map<string, number>();
  const fail = (r: string): void => {
    reasons.set(r, (reasons.get(r) ?? 0) + 1);
  };
  const fits: KubeObject[] = [];
  for (const node of nodes) {
    const labels = labelsOf(node);
    if (rec(node.spec).unschedulable === true) {
      fail('node(s) were unschedulable');
      continue;
    }
    if (!isReady(node)) {
      fail('node(s) had untolerated taint {node.kubernetes.io/not-ready: }');
      continue;
    }
    if (!Object.entries(selector).every(([k, v]) => labels[k] === v) || !matchesAffinity(pod, labels)) {
      fail("node(s) didn't match Pod's node affinity/selector");
      continue;
    }
    const taint = arr(rec(node.spec).taints)
      .map(rec)
      .find((t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerates(pod, t));
    if (taint) {
      fail(`node(s) had untolerated taint {${str(taint.key) ?? ''}: ${str(taint.value) ?? ''}}`);
      continue;
    }
    const alloc = allocatable(node);
    const used = requested.get(node.metadata.name) ?? {};
    const short = Object.entries(want).filter(([k, v]) => {
      if (v <= 0) return false;
      const cap = alloc[k];
      if (cap === undefined) return k !== 'pods'; // an unknown extended resource never fits
      return (used[k] ?? 0) + v > cap + 1e-9;
    });
    if (short.length > 0) {
      for (const [k] of short) fail(k === 'pods' ? 'Too many pods' : `Insufficient ${k}`);
      continue;
    }
    fits.push(node);
  }
  if (fits.length > 0) {
    const extended = (n: KubeObject): number =>
      Object.entries(allocatable(n)).filter(([k, v]) => !NODE_RESOURCES.has(k) && v > 0 && !(want[k] ?? 0))
        .length;
    fits.sort((a, b) => extended(a) - extended(b) || (a.metadata.name < b.metadata.name ? -1 : 1));
    return { node: fits[0]?.metadata.name ?? '' };
  }
  const detail = [...reasons.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([r, n]) => `${n} ${r}`)
    .join(', ');
  const preemption = `preemption: 0/${nodes.length} nodes are available: ${nodes.length} No preemption victims found for incoming pod.`;
  return {
    reason: `0/${nodes.length} nodes are available: ${detail || 'no nodes available to schedule pods'}. ${preemption}`,
  };
}
