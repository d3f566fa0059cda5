// GPU scheduling in the simulator, as on a deployed stage with the GPU NodePool (issue 24 item 3):
// - a pod requesting nvidia.com/gpu goes only to a node that advertises nvidia.com/gpu; without one it
//   stays Pending with the default scheduler's FailedScheduling message
//   (`0/N nodes are available: N Insufficient nvidia.com/gpu.`, kubernetes pkg/scheduler/framework
//   FitError.Error; the Insufficient reason from plugins/noderesources/fit.go);
// - EKS's ExtendedResourceToleration admission adds the nvidia.com/gpu toleration to such a pod
//   (kubernetes plugin/pkg/admission/extendedresourcetoleration/admission.go; enabled on every EKS
//   platform version: https://docs.aws.amazon.com/eks/latest/userguide/platform-versions.html), so a GPU
//   node tainted like the NodePool's (nvidia.com/gpu=true:NoSchedule) takes it, and takes no other pod
//   (`node(s) had untolerated taint {nvidia.com/gpu: true}`, plugins/tainttoleration).
// Through @kubernetes/client-node against the simulator, like every other client of it.
import { afterEach, describe, expect, test } from '@jest/globals';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { GPU_NODE_TAINT } from '../../lib/gpu-node-pool-config.js';
import { isExtendedResourceName } from '../../local/kube-api-simulator/extended-resource-toleration.js';
import {
  CPU_NODE,
  GPU_NODE,
  startKubeApiSimulator,
  type KubeApiSimulator,
  type KubeObject,
} from '../../local/kube-api-simulator/index.js';
import { seedNodes } from '../../local/kube-api-simulator/seed.js';
import { waitUntil } from '../support/wait-for.js';

const NS = 'svc-jobs';
const GPU_TOLERATION = { key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' };

let sim: KubeApiSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

/** The simulator with exactly these nodes (and the seed namespaces). */
async function clusterWith(nodes: readonly KubeObject[]) {
  sim = await startKubeApiSimulator({ kubelet: { pendingMs: 20, runningMs: 50 } });
  for (const node of sim.list('v1', 'Node')) {
    await sim.kubeConfig().makeApiClient(CoreV1Api).deleteNode({ name: node.metadata.name });
  }
  for (const node of nodes) sim.put(node);
  return { sim, core: sim.kubeConfig().makeApiClient(CoreV1Api) };
}

const seeded = (name: string): KubeObject => {
  const node = seedNodes().find((n) => n.metadata.name === name);
  if (!node) throw new Error(`no seed node ${name}`);
  return node;
};

/** The seed CPU node under another name (a second general-purpose node). */
const cpuNode = (name: string): KubeObject => {
  const node = seeded(CPU_NODE);
  return { ...node, metadata: { ...node.metadata, name } };
};

/** The seed GPU node with the NodePool's taint. */
const taintedGpuNode = (): KubeObject => {
  const node = seeded(GPU_NODE);
  return { ...node, spec: { ...(node.spec as object), taints: [{ ...GPU_NODE_TAINT }] } };
};

function pod(name: string, resources: Record<string, string>, extra: Partial<V1Pod['spec']> = {}): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS },
    spec: {
      restartPolicy: 'Never',
      // Limits only: requests default to them (core/v1 defaulting), as most GPU manifests are written.
      containers: [
        { name: 'main', image: 'nvcr.io/nvidia/cuda:12.4.0-base', resources: { limits: resources } },
      ],
      ...extra,
    },
  };
}

async function scheduledNode(core: CoreV1Api, name: string): Promise<string> {
  const read = await waitUntil(
    () => core.readNamespacedPod({ name, namespace: NS }),
    (p) => p.spec?.nodeName !== undefined,
    `${name} scheduled`,
  );
  return read.spec?.nodeName ?? '';
}

/** The pod's FailedScheduling message once the scheduler has given up on it. */
async function failedScheduling(core: CoreV1Api, name: string): Promise<string> {
  const events = await waitUntil(
    () =>
      core.listNamespacedEvent({
        namespace: NS,
        fieldSelector: `involvedObject.name=${name},reason=FailedScheduling`,
      }),
    (list) => list.items.length > 0,
    `FailedScheduling of ${name}`,
  );
  const read = await core.readNamespacedPod({ name, namespace: NS });
  expect(read.status?.phase).toBe('Pending');
  expect(read.spec?.nodeName).toBeUndefined();
  expect(read.status?.conditions?.find((c) => c.type === 'PodScheduled')).toMatchObject({
    status: 'False',
    reason: 'Unschedulable',
  });
  return events.items[0]?.message ?? '';
}

describe('no GPU node (the regional cluster without a GPU NodePool)', () => {
  test('a GPU pod stays Pending: 0/2 nodes are available: 2 Insufficient nvidia.com/gpu.', async () => {
    const { core } = await clusterWith([seeded(CPU_NODE), cpuNode('ip-10-0-3-30.ec2.internal')]);
    await core.createNamespacedPod({ namespace: NS, body: pod('gpu-job', { 'nvidia.com/gpu': '1' }) });
    const message = await failedScheduling(core, 'gpu-job');
    expect(message).toMatch(/^0\/2 nodes are available: 2 Insufficient nvidia\.com\/gpu\. /);
    // A CPU pod beside it runs as usual.
    await core.createNamespacedPod({ namespace: NS, body: pod('cpu-job', { cpu: '1', memory: '1Gi' }) });
    expect(await scheduledNode(core, 'cpu-job')).toMatch(/^ip-10-0-[13]-/);
  });
});

describe('a GPU node tainted like the GPU NodePool’s', () => {
  test('admission gives a GPU pod the nvidia.com/gpu toleration, and it lands on the GPU node', async () => {
    const { core } = await clusterWith([seeded(CPU_NODE), taintedGpuNode()]);
    const created = await core.createNamespacedPod({
      namespace: NS,
      body: pod('train', { 'nvidia.com/gpu': '2', cpu: '4', memory: '16Gi' }),
    });
    expect(created.spec?.tolerations).toEqual([GPU_TOLERATION]);
    expect(await scheduledNode(core, 'train')).toBe(GPU_NODE);
  });

  test('the toleration is added once, beside the pod’s own tolerations', async () => {
    const { core } = await clusterWith([seeded(CPU_NODE), taintedGpuNode()]);
    const own = { key: 'team', operator: 'Equal', value: 'a', effect: 'NoSchedule' };
    const created = await core.createNamespacedPod({
      namespace: NS,
      body: pod('mine', { 'nvidia.com/gpu': '1' }, { tolerations: [own, GPU_TOLERATION] }),
    });
    expect(created.spec?.tolerations).toEqual([own, GPU_TOLERATION]);
  });

  test('a CPU pod that does not fit the CPU node is not let onto the GPU node', async () => {
    const { core } = await clusterWith([seeded(CPU_NODE), taintedGpuNode()]);
    const created = await core.createNamespacedPod({ namespace: NS, body: pod('big-cpu', { cpu: '16' }) });
    expect(created.spec?.tolerations ?? []).toEqual([]);
    expect(await failedScheduling(core, 'big-cpu')).toMatch(
      /^0\/2 nodes are available: 1 Insufficient cpu, 1 node\(s\) had untolerated taint \{nvidia\.com\/gpu: true\}\. /,
    );
    // Without the taint (the local default seed) the same pod would have gone to the GPU node.
  });

  test('a GPU pod that skipped admission (no toleration) is kept off the tainted node', async () => {
    const { sim, core } = await clusterWith([seeded(CPU_NODE), taintedGpuNode()]);
    sim.put(pod('raw', { 'nvidia.com/gpu': '1' }) as KubeObject);
    expect(await failedScheduling(core, 'raw')).toMatch(
      /^0\/2 nodes are available: 1 Insufficient nvidia\.com\/gpu, 1 node\(s\) had untolerated taint \{nvidia\.com\/gpu: true\}\. /,
    );
  });

  test('more GPUs than the node has: Insufficient nvidia.com/gpu on it too', async () => {
    const { core } = await clusterWith([seeded(CPU_NODE), taintedGpuNode()]);
    await core.createNamespacedPod({ namespace: NS, body: pod('huge', { 'nvidia.com/gpu': '8' }) });
    expect(await failedScheduling(core, 'huge')).toMatch(
      /^0\/2 nodes are available: 2 Insufficient nvidia\.com\/gpu\. /,
    );
  });
});

test('the seed GPU node: GPU capacity and the GPU NodePool’s labels, no taint', async () => {
  sim = await startKubeApiSimulator();
  const node = await sim.kubeConfig().makeApiClient(CoreV1Api).readNode({ name: GPU_NODE });
  expect(node.status?.allocatable?.['nvidia.com/gpu']).toBe('4');
  expect(node.metadata?.labels).toMatchObject({
    'karpenter.sh/nodepool': 'gpu',
    'eks.amazonaws.com/instance-category': 'g',
    'eks.amazonaws.com/instance-family': 'g5',
    'eks.amazonaws.com/instance-gpu-manufacturer': 'nvidia',
  });
  expect(node.spec?.taints).toBeUndefined();
});

test.each([
  ['nvidia.com/gpu', true],
  ['example.com/fpga', true],
  ['aws.amazon.com/neuron', true],
  ['cpu', false],
  ['hugepages-2Mi', false],
  ['kubernetes.io/batch-cpu', false],
  ['node.kubernetes.io/x', false],
  ['requests.nvidia.com/gpu', false],
  ['Bad_Domain/x', false],
])('IsExtendedResourceName(%s) = %s', (name, expected) => {
  expect(isExtendedResourceName(name)).toBe(expected);
});

// Unschedulable pods go back to the scheduler when resources are freed (kube-scheduler moves them to its
// active queue on such cluster events:
// https://github.com/kubernetes/kubernetes/blob/v1.30.0/pkg/scheduler/internal/queue/scheduling_queue.go (MoveAllToActiveOrBackoffQueue)), and
// the node's requested resources never exceed its allocatable while they do.
test('pods that did not fit are scheduled as others finish, never more than the node holds', async () => {
  const { core } = await clusterWith([seeded(CPU_NODE)]);
  const names = Array.from({ length: 7 }, (_, i) => `wave-${i}`);
  for (const name of names) {
    const body = pod(name, { cpu: '3' });
    body.metadata = { ...body.metadata, annotations: { 'sim.gco.dev/running-ms': '150' } };
    await core.createNamespacedPod({ namespace: NS, body });
  }
  let mostBound = 0;
  const pods = await waitUntil(
    () => core.listNamespacedPod({ namespace: NS }),
    (list) => {
      const bound = list.items.filter(
        (p) =>
          p.spec?.nodeName !== undefined && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed',
      );
      mostBound = Math.max(mostBound, bound.length);
      return list.items.every((p) => p.status?.phase === 'Succeeded');
    },
    'every pod Succeeded',
  );
  expect(pods.items.map((p) => p.metadata?.name).sort()).toEqual(names);
  // 8 allocatable cpu hold two pods of 3 cpu at a time.
  expect(mostBound).toBeGreaterThan(0);
  expect(mostBound).toBeLessThanOrEqual(2);
  expect(pods.items.every((p) => p.spec?.nodeName === CPU_NODE)).toBe(true);
});
