// The default cluster: namespaces default, kube-system and svc-jobs (the platform's job namespace),
// a general-purpose CPU node (m5.2xlarge-like: 8 cpu / 32Gi) and a GPU node (g5.12xlarge-like:
// 48 cpu / 192Gi / 4 nvidia.com/gpu) in two zones of us-east-1, both Ready.
//
// The GPU node carries the labels of a node of the deployed GPU NodePool (lib/constructs/gpu-node-pool.ts)
// but not its taint GPU_NODE_TAINT (lib/gpu-node-pool-config.ts): on a deployed stage CPU pods never
// need the GPU nodes because Auto Mode's general-purpose pool grows, while here the two nodes are all
// there is, and pods written with put() skip the admission that would add the toleration. A test that
// wants the deployed stage's exact scheduling puts the node again with `taints: [GPU_NODE_TAINT]`
// (test/integration/kube-api-simulator-gpu.test.ts).

import { GPU_NODE_POOL_NAME } from '../../lib/gpu-node-pool-config.js';
import type { KubeObject } from './types.js';

const SEED_NAMESPACES = ['default', 'kube-system', 'svc-jobs'];

export const CPU_NODE = 'ip-10-0-1-10.ec2.internal';
export const GPU_NODE = 'ip-10-0-2-20.ec2.internal';

interface NodeSpec {
  name: string;
  ip: string;
  instanceType: string;
  zone: string;
  cpu: string;
  memory: string;
  gpus?: number;
}

function node(s: NodeSpec): KubeObject {
  const resources: Record<string, string> = {
    cpu: s.cpu,
    memory: s.memory,
    pods: '110',
    'ephemeral-storage': '95Gi',
  };
  if (s.gpus) resources['nvidia.com/gpu'] = String(s.gpus);
  const labels: Record<string, string> = {
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/os': 'linux',
    'kubernetes.io/hostname': s.name,
    'node.kubernetes.io/instance-type': s.instanceType,
    'topology.kubernetes.io/region': 'us-east-1',
    'topology.kubernetes.io/zone': s.zone,
    'eks.amazonaws.com/capacityType': 'ON_DEMAND',
    'eks.amazonaws.com/nodegroup': s.gpus ? 'gpu' : 'general',
  };
  if (s.gpus) {
    labels['nvidia.com/gpu.present'] = 'true';
    labels['eks.amazonaws.com/instance-gpu-count'] = String(s.gpus);
    // Auto Mode's well-known labels of a node the GPU NodePool launched
    // (https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html#auto-supported-labels).
    labels['karpenter.sh/nodepool'] = GPU_NODE_POOL_NAME;
    labels['eks.amazonaws.com/instance-category'] = s.instanceType.replace(/\d.*$/, '');
    labels['eks.amazonaws.com/instance-family'] = s.instanceType.split('.')[0] ?? '';
    labels['eks.amazonaws.com/instance-gpu-manufacturer'] = 'nvidia';
  }
  const condition = (
    type: string,
    status: string,
    reason: string,
    message: string,
  ): Record<string, string> => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    lastTransitionTime: '2024-01-01T00:00:00Z',
  });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: s.name, labels },
    spec: { providerID: `aws:///${s.zone}/i-0${s.ip.replace(/\D/g, '').padEnd(16, '0').slice(0, 16)}` },
    status: {
      capacity: { ...resources },
      allocatable: { ...resources },
      conditions: [
        condition(
          'MemoryPressure',
          'False',
          'KubeletHasSufficientMemory',
          'kubelet has sufficient memory available',
        ),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: s.ip },
        { type: 'InternalDNS', address: s.name },
        { type: 'Hostname', address: s.name },
      ],
      nodeInfo: {
        architecture: 'amd64',
        operatingSystem: 'linux',
        osImage: 'Amazon Linux 2023.5.20240819',
        kernelVersion: '6.1.102-111.182.amzn2023.x86_64',
        containerRuntimeVersion: 'containerd://1.7.20',
        kubeletVersion: 'v1.31.0-eks-a737599',
        kubeProxyVersion: 'v1.31.0-eks-a737599',
        machineID: 'ec2' + '0'.repeat(29),
        systemUUID: 'ec2' + '0'.repeat(33),
        bootID: '00000000-0000-0000-0000-000000000000',
      },
    },
  };
}

export function seedNodes(): KubeObject[] {
  return [
    node({
      name: CPU_NODE,
      ip: '10.0.1.10',
      instanceType: 'm5.2xlarge',
      zone: 'us-east-1a',
      cpu: '8',
      memory: '32Gi',
    }),
    node({
      name: GPU_NODE,
      ip: '10.0.2.20',
      instanceType: 'g5.12xlarge',
      zone: 'us-east-1b',
      cpu: '48',
      memory: '192Gi',
      gpus: 4,
    }),
  ];
}

export function seedNamespaces(): KubeObject[] {
  return SEED_NAMESPACES.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
}
