// metrics.k8s.io/v1beta1 (what metrics-server serves): NodeMetrics and PodMetrics for running pods.
// Default usage: a container uses its requests (or a small baseline); a node uses a system baseline
// plus its running pods. setNodeUsage / setPodUsage override with the strings given (returned verbatim).

import type { SimContext, Usage } from './context.js';
import { containerRequests } from './pod-resources.js';
import { formatKi, formatNanoCpu, parseQuantity } from './quantity.js';
import type { ResourceType } from './registry.js';
import { matches, parseSelectors } from './selectors.js';
import { KubeError } from './status.js';
import type { KubeObject } from './types.js';
import { arr, labelsOf, nowIso, rec, str } from './types.js';

const API_VERSION = 'metrics.k8s.io/v1beta1';
const WINDOW = '30s';
const CONTAINER_BASELINE = { cpu: 0.002, memory: 8 * 2 ** 20 };
const NODE_BASELINE = { cpu: 0.15, memory: 768 * 2 ** 20 };

interface Amount {
  cpu: number;
  memory: number;
}

function amountOf(u: Usage): Amount {
  return { cpu: parseQuantity(u.cpu) ?? 0, memory: parseQuantity(u.memory) ?? 0 };
}

function format(a: Amount): Usage {
  return { cpu: formatNanoCpu(a.cpu), memory: formatKi(a.memory) };
}

function metricsNotFound(resource: string, name: string): KubeError {
  return new KubeError(404, 'NotFound', `${resource}.metrics.k8s.io "${name}" not found`, {
    name,
    group: 'metrics.k8s.io',
    kind: resource,
  });
}

function running(pod: KubeObject): boolean {
  return rec(pod.status).phase === 'Running';
}

/** Per-container usage of a pod: overrides, else requests, else the baseline. */
function containerUsage(ctx: SimContext, pod: KubeObject): { name: string; usage: Usage; amount: Amount }[] {
  const override = ctx.metrics.pods.get(`${pod.metadata.namespace ?? ''}/${pod.metadata.name}`);
  return arr(rec(pod.spec).containers).map((c) => {
    const name = str(rec(c).name) ?? '';
    const given = override?.[name];
    if (given) return { name, usage: given, amount: amountOf(given) };
    const req = containerRequests(c);
    const amount = {
      cpu: req.cpu ?? CONTAINER_BASELINE.cpu,
      memory: req.memory ?? CONTAINER_BASELINE.memory,
    };
    return { name, usage: format(amount), amount };
  });
}

function podMetricsOf(ctx: SimContext, pod: KubeObject): unknown {
  const now = nowIso();
  return {
    kind: 'PodMetrics',
    apiVersion: API_VERSION,
    metadata: {
      name: pod.metadata.name,
      namespace: pod.metadata.namespace,
      creationTimestamp: now,
      labels: labelsOf(pod),
    },
    timestamp: now,
    window: WINDOW,
    containers: containerUsage(ctx, pod).map(({ name, usage }) => ({ name, usage })),
  };
}

function nodeMetricsOf(ctx: SimContext, node: KubeObject, pods: KubeObject[]): unknown {
  const now = nowIso();
  const given = ctx.metrics.nodes.get(node.metadata.name);
  let usage: Usage;
  if (given) usage = given;
  else {
    const total = { ...NODE_BASELINE };
    for (const p of pods) {
      if (str(rec(p.spec).nodeName) !== node.metadata.name || !running(p)) continue;
      for (const c of containerUsage(ctx, p)) {
        total.cpu += c.amount.cpu;
        total.memory += c.amount.memory;
      }
    }
    usage = format(total);
  }
  return {
    kind: 'NodeMetrics',
    apiVersion: API_VERSION,
    metadata: { name: node.metadata.name, creationTimestamp: now, labels: labelsOf(node) },
    timestamp: now,
    window: WINDOW,
    usage,
  };
}

/** GET on metrics.k8s.io nodes/pods (list or one object). */
export function metricsGet(
  ctx: SimContext,
  type: ResourceType,
  namespace: string | undefined,
  name: string | undefined,
  query: URLSearchParams,
): unknown {
  const pods = ctx.store.scan(ctx.registry.core('pods'));
  if (type.plural === 'nodes') {
    const nodes = ctx.store.scan(ctx.registry.core('nodes'));
    if (name !== undefined) {
      const node = nodes.find((n) => n.metadata.name === name);
      if (!node) throw metricsNotFound('nodes', name);
      return nodeMetricsOf(ctx, node, pods);
    }
    const sel = parseSelectors(query, type);
    return {
      kind: 'NodeMetricsList',
      apiVersion: API_VERSION,
      metadata: {},
      items: nodes.filter((n) => matches(sel, n)).map((n) => nodeMetricsOf(ctx, n, pods)),
    };
  }
  const inScope = pods.filter(
    (p) => running(p) && (namespace === undefined || p.metadata.namespace === namespace),
  );
  if (name !== undefined) {
    const pod = inScope.find((p) => p.metadata.name === name);
    if (!pod) throw metricsNotFound('pods', name);
    return podMetricsOf(ctx, pod);
  }
  const sel = parseSelectors(query, type);
  return {
    kind: 'PodMetricsList',
    apiVersion: API_VERSION,
    metadata: {},
    items: inScope.filter((p) => matches(sel, p)).map((p) => podMetricsOf(ctx, p)),
  };
}
