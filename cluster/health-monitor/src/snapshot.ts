/**
 * Collects one snapshot of the cluster's capacity and load through the Kubernetes API: nodes and their
 * allocatable resources, live usage from metrics.k8s.io, and pods (requests, phases).
 */
import { errorMessage } from '../../../contracts/runtime/errors.js';
import { CoreV1Api, Metrics, type KubeConfig, type V1Node, type V1Pod } from '@kubernetes/client-node';
import { tryParseQuantity } from '../../shared/quantity.js';
import { listAllPages, pooledKubeConfig } from '../../shared/kube.js';

const GPU_RESOURCE = 'nvidia.com/gpu';
const PAGE_SIZE = 500;

export interface Resources {
  cpu: number; // cores
  memory: number; // bytes
  gpu: number; // devices
}

export interface NodeSnapshot {
  name: string;
  ready: boolean;
  instanceType: string | null;
  zone: string | null;
  allocatable: Resources;
  requested: Resources;
  /** Live usage from metrics.k8s.io; null when that API could not be read. */
  usage: { cpu: number; memory: number } | null;
  pods: number;
}

interface PodCounts {
  total: number;
  pending: number;
  running: number;
  succeeded: number;
  failed: number;
  unknown: number;
}

export interface ClusterSnapshot {
  collectedAt: Date;
  nodes: NodeSnapshot[];
  pods: PodCounts;
  /** Why live usage is missing, when it is. */
  metricsError: string | null;
}

function quantity(map: Record<string, string> | undefined, key: string): number {
  return tryParseQuantity(map?.[key]) ?? 0;
}

function resourcesOf(map: Record<string, string> | undefined): Resources {
  return { cpu: quantity(map, 'cpu'), memory: quantity(map, 'memory'), gpu: quantity(map, GPU_RESOURCE) };
}

/**
 * A pod's effective request, as the scheduler computes it: the larger of the sum over app containers and
 * the largest init container. Extended resources (GPUs) default their request to the limit.
 */
export function podRequests(pod: V1Pod): Resources {
  const containerRequests = (c: {
    resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  }) => {
    const requests = resourcesOf(c.resources?.requests);
    if (requests.gpu === 0) requests.gpu = quantity(c.resources?.limits, GPU_RESOURCE);
    return requests;
  };
  const sum: Resources = { cpu: 0, memory: 0, gpu: 0 };
  for (const c of pod.spec?.containers ?? []) {
    const r = containerRequests(c);
    sum.cpu += r.cpu;
    sum.memory += r.memory;
    sum.gpu += r.gpu;
  }
  for (const c of pod.spec?.initContainers ?? []) {
    const r = containerRequests(c);
    sum.cpu = Math.max(sum.cpu, r.cpu);
    sum.memory = Math.max(sum.memory, r.memory);
    sum.gpu = Math.max(sum.gpu, r.gpu);
  }
  return sum;
}

function isReady(node: V1Node): boolean {
  return (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

export class SnapshotCollector {
  private readonly core: CoreV1Api;
  private readonly metrics: Metrics;

  constructor(config: KubeConfig) {
    const kubeConfig = pooledKubeConfig(config);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.metrics = new Metrics(kubeConfig);
  }

  async collect(): Promise<ClusterSnapshot> {
    const [nodes, pods, usage] = await Promise.all([
      listAllPages((cont) => this.core.listNode({ limit: PAGE_SIZE, _continue: cont })),
      listAllPages((cont) => this.core.listPodForAllNamespaces({ limit: PAGE_SIZE, _continue: cont })),
      this.metrics.getNodeMetrics().then(
        (list) => ({ ok: true as const, items: list.items }),
        (error: unknown) => ({
          ok: false as const,
          error: errorMessage(error),
        }),
      ),
    ]);

    const usageByNode = new Map<string, { cpu: number; memory: number }>();
    if (usage.ok) {
      for (const m of usage.items) {
        usageByNode.set(m.metadata.name, {
          cpu: tryParseQuantity(m.usage.cpu) ?? 0,
          memory: tryParseQuantity(m.usage.memory) ?? 0,
        });
      }
    }

    const counts: PodCounts = {
      total: pods.length,
      pending: 0,
      running: 0,
      succeeded: 0,
      failed: 0,
      unknown: 0,
    };
    const requestedByNode = new Map<string, Resources & { pods: number }>();
    for (const pod of pods) {
      const phase = pod.status?.phase ?? 'Unknown';
      if (phase === 'Pending') counts.pending++;
      else if (phase === 'Running') counts.running++;
      else if (phase === 'Succeeded') counts.succeeded++;
      else if (phase === 'Failed') counts.failed++;
      else counts.unknown++;
      // Finished pods hold no resources.
      const nodeName = pod.spec?.nodeName;
      if (!nodeName || phase === 'Succeeded' || phase === 'Failed') continue;
      const r = podRequests(pod);
      const acc = requestedByNode.get(nodeName) ?? { cpu: 0, memory: 0, gpu: 0, pods: 0 };
      acc.cpu += r.cpu;
      acc.memory += r.memory;
      acc.gpu += r.gpu;
      acc.pods++;
      requestedByNode.set(nodeName, acc);
    }

    return {
      collectedAt: new Date(),
      nodes: nodes.map((node) => {
        const name = node.metadata?.name ?? '';
        const labels = node.metadata?.labels ?? {};
        const requested = requestedByNode.get(name) ?? { cpu: 0, memory: 0, gpu: 0, pods: 0 };
        return {
          name,
          ready: isReady(node),
          instanceType: labels['node.kubernetes.io/instance-type'] ?? null,
          zone: labels['topology.kubernetes.io/zone'] ?? null,
          allocatable: resourcesOf(node.status?.allocatable),
          requested: { cpu: requested.cpu, memory: requested.memory, gpu: requested.gpu },
          usage: usage.ok ? (usageByNode.get(name) ?? null) : null,
          pods: requested.pods,
        };
      }),
      pods: counts,
      metricsError: usage.ok ? null : usage.error,
    };
  }
}
