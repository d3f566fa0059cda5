/**
 * GPU capacity of a regional cluster: an EKS Auto Mode NodePool (karpenter.sh/v1) that launches NVIDIA
 * GPU instances of the configured categories/families when pods request `nvidia.com/gpu`, applied with the
 * cluster's kubectl provider like the `cluster/k8s/` manifests (docs/regional-stack.md, "GPU capacity").
 *
 * - `nodeClassRef` is Auto Mode's `default` NodeClass (group eks.amazonaws.com), which exists while the
 *   built-in pools are enabled (lib/constructs/platform-cluster.ts):
 *   https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html
 * - Auto Mode ships the NVIDIA driver and device plugin on these nodes, so they advertise nvidia.com/gpu:
 *   https://docs.aws.amazon.com/eks/latest/userguide/auto-accelerated.html
 * - The taint `nvidia.com/gpu=true:NoSchedule` keeps every other pod off the expensive nodes. Pods that
 *   request nvidia.com/gpu tolerate it without saying so: EKS enables the ExtendedResourceToleration
 *   admission plugin, which adds {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule} to them
 *   (https://docs.aws.amazon.com/eks/latest/userguide/platform-versions.html;
 *   kubernetes plugin/pkg/admission/extendedresourcetoleration/admission.go).
 * - `limits` caps the pool's total GPUs and vCPUs in the region (https://karpenter.sh/docs/concepts/nodepools/#speclimits).
 */
import { KubernetesManifest, type ICluster } from 'aws-cdk-lib/aws-eks-v2';
import { Construct } from 'constructs';
import { GPU_NODE_POOL_NAME, GPU_NODE_TAINT, type GpuNodePoolConfig } from '../gpu-node-pool-config.js';

/**
 * Empty GPU nodes are removed after this long. Only empty ones (WhenEmpty): consolidating under-used
 * nodes would evict running training jobs and model servers to repack them.
 */
const CONSOLIDATE_AFTER = '15m';

export interface GpuNodePoolProps {
  readonly cluster: ICluster;
  readonly config: GpuNodePoolConfig;
}

export class GpuNodePool extends Construct {
  /** The applied NodePool. */
  readonly manifest: KubernetesManifest;

  constructor(scope: Construct, id: string, props: GpuNodePoolProps) {
    super(scope, id);
    this.manifest = new KubernetesManifest(this, 'NodePool', {
      cluster: props.cluster,
      manifest: [gpuNodePoolManifest(props.config)],
      // `kubectl apply`: idempotent, and adopts a pool of the same name made by hand before.
      overwrite: true,
    });
  }
}

/** The NodePool object for the configuration. */
function gpuNodePoolManifest(config: GpuNodePoolConfig): Record<string, unknown> {
  const requirements: Record<string, unknown>[] = [
    { key: 'eks.amazonaws.com/instance-category', operator: 'In', values: [...config.instanceCategories] },
    // g4ad carries AMD GPUs, which advertise no nvidia.com/gpu.
    { key: 'eks.amazonaws.com/instance-gpu-manufacturer', operator: 'In', values: ['nvidia'] },
    // The platform's images are amd64 (lib/images.ts); Graviton GPU instances (g5g) would not run them.
    { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
    // A Spot interruption would cut a training job or a model server's streams mid-way.
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
  ];
  if (config.instanceFamilies !== undefined) {
    requirements.push({
      key: 'eks.amazonaws.com/instance-family',
      operator: 'In',
      values: [...config.instanceFamilies],
    });
  }
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: GPU_NODE_POOL_NAME, labels: { 'app.kubernetes.io/part-of': 'gco-platform' } },
    spec: {
      template: {
        metadata: { labels: { 'gco.dev/node-pool': GPU_NODE_POOL_NAME } },
        spec: {
          nodeClassRef: { group: 'eks.amazonaws.com', kind: 'NodeClass', name: 'default' },
          requirements,
          taints: [{ ...GPU_NODE_TAINT }],
        },
      },
      limits: { cpu: String(config.limits.cpu), 'nvidia.com/gpu': String(config.limits.gpus) },
      disruption: { consolidationPolicy: 'WhenEmpty', consolidateAfter: CONSOLIDATE_AFTER },
    },
  };
}
