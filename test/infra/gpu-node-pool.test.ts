// GPU capacity per region (issue 24 item 3): the Auto Mode NodePool the regional stack applies with the
// cluster's kubectl provider — its requirements, taint, limits and NodeClass — under the default and a
// configured `gpu_node_pool`, none when disabled, cdk-nag clean, and the config's refusals.
import { describe, expect, test } from '@jest/globals';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../lib/app-builder.js';
import { ConfigError, loadConfig } from '../../lib/config.js';
import { addNagPacks, cdkJsonContext, nagErrors } from '../support/stack-templates.js';
import { assemblyOutdir } from '../support/suite-temp-dir.js';

interface Requirement {
  key: string;
  operator: string;
  values: string[];
}

interface NodePool {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    template: {
      spec: {
        nodeClassRef: Record<string, string>;
        requirements: Requirement[];
        taints: Record<string, string>[];
      };
    };
    limits: Record<string, string>;
    disruption: Record<string, string>;
  };
}

function regional(context: Record<string, unknown>, nag = false) {
  const built = buildApp(context, {
    analyticsReporting: false,
    outdir: assemblyOutdir(),
    context: { 'aws:cdk:bundling-stacks': [] },
  });
  if (nag) addNagPacks(built.app);
  const stack = built.regionalStacks.get('us-east-1');
  if (!stack) throw new Error('no us-east-1 stack');
  return { stack, template: Template.fromStack(stack) };
}

/** Every NodePool object the template's Kubernetes manifests apply. */
function nodePools(template: Template): NodePool[] {
  const resources = template.findResources('Custom::AWSCDK-EKS-KubernetesResource');
  return Object.values(resources)
    .map((r) => (r as { Properties: { Manifest: unknown } }).Properties.Manifest)
    .filter((m): m is string => typeof m === 'string')
    .flatMap((m) => JSON.parse(m) as NodePool[])
    .filter((o) => o.kind === 'NodePool');
}

const requirement = (pool: NodePool, key: string) =>
  pool.spec.template.spec.requirements.find((r) => r.key === key);

describe('default (cdk.json): a GPU NodePool in every regional cluster', () => {
  const { stack, template } = regional(cdkJsonContext(), true);
  const pools = nodePools(template);

  test('one NodePool "gpu" on Auto Mode’s default NodeClass', () => {
    expect(pools).toHaveLength(1);
    const [pool] = pools;
    expect(pool?.apiVersion).toBe('karpenter.sh/v1');
    expect(pool?.metadata.name).toBe('gpu');
    expect(pool?.spec.template.spec.nodeClassRef).toEqual({
      group: 'eks.amazonaws.com',
      kind: 'NodeClass',
      name: 'default',
    });
  });

  test('NVIDIA instances of categories g and p, amd64, on demand; every family', () => {
    const pool = pools[0]!;
    expect(requirement(pool, 'eks.amazonaws.com/instance-category')).toEqual({
      key: 'eks.amazonaws.com/instance-category',
      operator: 'In',
      values: ['g', 'p'],
    });
    expect(requirement(pool, 'eks.amazonaws.com/instance-gpu-manufacturer')?.values).toEqual(['nvidia']);
    expect(requirement(pool, 'kubernetes.io/arch')?.values).toEqual(['amd64']);
    expect(requirement(pool, 'karpenter.sh/capacity-type')?.values).toEqual(['on-demand']);
    expect(requirement(pool, 'eks.amazonaws.com/instance-family')).toBeUndefined();
  });

  test('tainted nvidia.com/gpu=true:NoSchedule, capped at 8 GPUs and 256 vCPUs, only empty nodes removed', () => {
    const pool = pools[0]!;
    expect(pool.spec.template.spec.taints).toEqual([
      { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' },
    ]);
    expect(pool.spec.limits).toEqual({ cpu: '256', 'nvidia.com/gpu': '8' });
    expect(pool.spec.disruption.consolidationPolicy).toBe('WhenEmpty');
  });

  test('applied after the cluster’s kubectl provider is ready', () => {
    const [id] = Object.entries(template.findResources('Custom::AWSCDK-EKS-KubernetesResource')).find(
      ([, r]) =>
        String((r as { Properties: { Manifest: unknown } }).Properties.Manifest).includes('NodePool'),
    ) ?? [''];
    const resource = template.toJSON().Resources[id] as { DependsOn?: string[] };
    expect(resource.DependsOn?.some((d) => d.startsWith('EksClusterKubectlReadyBarrier'))).toBe(true);
  });

  test('cdk-nag AwsSolutions and Serverless: no unsuppressed error', () => {
    expect(nagErrors(stack)).toEqual([]);
  });
});

test('configured families and limits reach the NodePool', () => {
  const { template } = regional({
    gpu_node_pool: {
      instance_categories: ['g'],
      instance_families: ['g6e', 'g6'],
      limits: { gpus: 2, cpu: 64 },
    },
  });
  const [pool] = nodePools(template);
  expect(requirement(pool!, 'eks.amazonaws.com/instance-category')?.values).toEqual(['g']);
  expect(requirement(pool!, 'eks.amazonaws.com/instance-family')?.values).toEqual(['g6e', 'g6']);
  expect(pool?.spec.limits).toEqual({ cpu: '64', 'nvidia.com/gpu': '2' });
});

test('disabled (`-c gpu_node_pool.enabled=false`): no NodePool', () => {
  expect(nodePools(regional({ 'gpu_node_pool.enabled': 'false' }).template)).toEqual([]);
});

describe('config', () => {
  test('-c values as strings: a comma list of families, JSON limits', () => {
    const config = loadConfig({
      'gpu_node_pool.instance_families': 'g6e,p5',
      'gpu_node_pool.limits': '{"gpus": 16}',
    });
    expect(config.gpuNodePool).toEqual({
      enabled: true,
      instanceCategories: ['g', 'p'],
      instanceFamilies: ['g6e', 'p5'],
      limits: { gpus: 16, cpu: 256 },
    });
  });

  test.each([
    [{ enabled: 'yes' }, 'gpu_node_pool.enabled'],
    [{ instance_categories: ['c'] }, 'gpu_node_pool.instance_categories'],
    [{ instance_categories: [] }, 'gpu_node_pool.instance_categories'],
    [{ instance_categories: ['g', 'g'] }, 'gpu_node_pool.instance_categories'],
    [{ instance_categories: ['g'], instance_families: ['p5'] }, 'gpu_node_pool.instance_families'],
    [{ instance_families: ['m5'] }, 'gpu_node_pool.instance_families'],
    [{ instance_families: [] }, 'gpu_node_pool.instance_families'],
    [{ limits: { gpus: 0 } }, 'gpu_node_pool.limits.gpus'],
    [{ limits: { cpu: 1.5 } }, 'gpu_node_pool.limits.cpu'],
    [{ limits: { memory: '1Ti' } }, 'gpu_node_pool.limits.memory'],
    [{ limits: 8 }, 'gpu_node_pool.limits'],
    [{ taints: [] }, 'gpu_node_pool.taints'],
  ])('%j is refused at %s', (section, path) => {
    let error: unknown;
    try {
      loadConfig({ gpu_node_pool: section });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((p) => p.path)).toEqual([path]);
  });
});
