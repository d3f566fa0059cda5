import type { PolicyViolation } from '../../../cluster/manifest-processor/src/policy/index.js';
import { policyFrom, type Json } from './support.js';

const policy = policyFrom();
const ALL_KINDS = { ALLOWED_KINDS: 'Pod,Job,CronJob,Deployment,StatefulSet,ReplicaSet,DaemonSet' };
const loose = policyFrom(ALL_KINDS);

function container(requests: Json = {}, limits?: Json, extra: Json = {}): Json {
  return { name: 'c', image: 'nginx', resources: limits ? { requests, limits } : { requests }, ...extra };
}

function pod(spec: Json): Json {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'svc-jobs' }, spec };
}

function job(spec: Json, jobSpec: Json = {}): Json {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'j', namespace: 'svc-jobs' },
    spec: { ...jobSpec, template: { spec: { restartPolicy: 'Never', ...spec } } },
  };
}

function workload(apiVersion: string, kind: string, replicas: unknown, spec: Json): Json {
  return {
    apiVersion,
    kind,
    metadata: { name: 'w', namespace: 'svc-jobs' },
    spec: { ...(replicas === undefined ? {} : { replicas }), template: { spec } },
  };
}

function cronJob(spec: Json, parallelism?: number): Json {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'cj', namespace: 'svc-jobs' },
    spec: {
      schedule: '*/5 * * * *',
      jobTemplate: { spec: { ...(parallelism === undefined ? {} : { parallelism }), template: { spec } } },
    },
  };
}

const rules = (vs: PolicyViolation[]) => vs.map((v) => v.rule);
const cpuPod = (cpu: unknown) => pod({ containers: [container({ cpu })] });
const memPod = (memory: unknown) => pod({ containers: [container({ memory })] });

describe('quantities through the shared parser (ceilings: 64 CPU, 256Gi, 8 GPUs)', () => {
  test.each([
    ['64', true],
    [64, true],
    ['64000m', true],
    ['0.064k', true],
    ['6.4e1', true],
    ['500m', true],
    ['0.5', true],
    ['.5', true],
    ['2', true],
    ['1e3', false],
    ['65', false],
    ['64001m', false],
    ['64.001', false],
    ['1k', false],
  ])('cpu %j → within ceiling: %s', (cpu, ok) => {
    expect(rules(policy.check([cpuPod(cpu)]))).toEqual(ok ? [] : ['cpu_limit']);
  });

  test.each([
    ['256Gi', true],
    ['274877906944', true],
    ['0.25Ti', true],
    ['262144Mi', true],
    ['100Mi', true],
    ['1.5Gi', true],
    ['257Gi', false],
    ['274877906945', false],
    ['275G', false],
    ['1Pi', false],
  ])('memory %j → within ceiling: %s', (memory, ok) => {
    expect(rules(policy.check([memPod(memory)]))).toEqual(ok ? [] : ['memory_limit']);
  });

  test.each(['lots', '1.5.5', '', '1GB', '1 Gi', 'Gi', ' 1', '1e', 'NaN', 'Infinity', true, {}, []])(
    'cpu %j is an invalid quantity naming the field',
    (cpu) => {
      const violations = policy.check([cpuPod(cpu)]);
      expect(rules(violations)).toEqual(['invalid_quantity']);
      expect(violations[0]?.field).toBe('spec.containers[0].resources.requests.cpu');
      expect(violations[0]?.message).toContain('manifests[0].spec.containers[0].resources.requests.cpu: ');
    },
  );

  test.each(['-1', -1, '-500m'])('negative %j is an invalid quantity', (cpu) => {
    expect(rules(policy.check([cpuPod(cpu)]))).toEqual(['invalid_quantity']);
  });

  test('invalid limits and other resources are reported too, with a bracketed key for dotted names', () => {
    const violations = policy.check([
      pod({ containers: [container({ 'ephemeral-storage': 'x' }, { 'nvidia.com/gpu': 'one' })] }),
    ]);
    expect(violations.map((v) => v.field)).toEqual([
      'spec.containers[0].resources.requests.ephemeral-storage',
      'spec.containers[0].resources.limits["nvidia.com/gpu"]',
    ]);
  });

  test('a fractional GPU is an invalid quantity', () => {
    expect(rules(policy.check([pod({ containers: [container({ 'nvidia.com/gpu': '0.5' })] })]))).toEqual([
      'invalid_quantity',
    ]);
    expect(policy.check([pod({ containers: [container({ 'nvidia.com/gpu': '1' })] })])).toEqual([]);
  });

  test('resources of the wrong type are shape violations', () => {
    expect(
      rules(policy.check([pod({ containers: [{ name: 'c', image: 'nginx', resources: 'big' }] })])),
    ).toEqual(['manifest_shape']);
    expect(
      rules(
        policy.check([pod({ containers: [{ name: 'c', image: 'nginx', resources: { requests: ['1'] } }] })]),
      ),
    ).toEqual(['manifest_shape']);
  });
});

describe('requests fall back to limits', () => {
  test('a limit counts when no request is given', () => {
    expect(rules(policy.check([pod({ containers: [container({}, { cpu: '65' })] })]))).toEqual(['cpu_limit']);
    expect(rules(policy.check([pod({ containers: [container({}, { memory: '300Gi' })] })]))).toEqual([
      'memory_limit',
    ]);
  });

  test('a request wins over a larger limit', () => {
    expect(policy.check([pod({ containers: [container({ cpu: '1' }, { cpu: '100' })] })])).toEqual([]);
  });

  test('GPU requests default to the limit', () => {
    const violations = policy.check([pod({ containers: [container({}, { 'nvidia.com/gpu': 9 })] })]);
    expect(rules(violations)).toEqual(['gpu_limit']);
    expect(violations[0]?.message).toBe(
      'manifests[0].spec: requests 9 nvidia.com/gpu in total (one pod), above the per-manifest ceiling of 8 (rule gpu_limit)',
    );
  });

  test('containers are summed', () => {
    const two = pod({ containers: [container({ cpu: '32' }), container({ cpu: '32' })] });
    expect(policy.check([two])).toEqual([]);
    const three = pod({
      containers: [container({ cpu: '32' }), container({ cpu: '32' }), container({ cpu: '1m' })],
    });
    expect(rules(policy.check([three]))).toEqual(['cpu_limit']);
  });

  test('sums are exact for decimal millicores', () => {
    const many = pod({ containers: Array.from({ length: 640 }, () => container({ cpu: '100m' })) });
    expect(policy.check([many])).toEqual([]);
  });
});

describe('replicas × parallelism', () => {
  const spec = (cpu: string) => ({ containers: [container({ cpu })] });

  test.each([
    ['apps/v1', 'Deployment', 2, '32', true],
    ['apps/v1', 'Deployment', 3, '22', false],
    ['apps/v1', 'Deployment', undefined, '64', true],
    ['apps/v1', 'StatefulSet', 4, '16', true],
    ['apps/v1', 'StatefulSet', 5, '16', false],
    ['apps/v1', 'ReplicaSet', 8, '8', true],
    ['apps/v1', 'ReplicaSet', 9, '8', false],
  ])('%s %s replicas=%j × %s CPU → ok: %s', (apiVersion, kind, replicas, cpu, ok) => {
    expect(rules(loose.check([workload(apiVersion, kind, replicas, spec(cpu))]))).toEqual(
      ok ? [] : ['cpu_limit'],
    );
  });

  test('the message shows the breakdown', () => {
    const [violation] = policy.check([workload('apps/v1', 'Deployment', 3, spec('32'))]);
    expect(violation?.message).toBe(
      'manifests[0].spec.template.spec: requests 96 CPU cores in total (3 pods × 32), above the per-manifest ceiling of 64 (rule cpu_limit)',
    );
    const [memory] = policy.check([
      workload('apps/v1', 'Deployment', 3, { containers: [container({ memory: '100Gi' })] }),
    ]);
    expect(memory?.message).toContain(
      'requests 300Gi of memory in total (3 pods × 100Gi), above the per-manifest ceiling of 256Gi',
    );
  });

  test('a workload scaled to zero still counts one pod', () => {
    expect(rules(policy.check([workload('apps/v1', 'Deployment', 0, spec('65'))]))).toEqual(['cpu_limit']);
    expect(policy.check([workload('apps/v1', 'Deployment', 0, spec('64'))])).toEqual([]);
  });

  test.each([-1, 1.5, '3', true])('replicas %j is a shape violation', (replicas) => {
    const violations = policy.check([workload('apps/v1', 'Deployment', replicas, spec('1'))]);
    expect(violations.map((v) => [v.rule, v.field])).toEqual([['manifest_shape', 'spec.replicas']]);
  });

  test('Job parallelism multiplies; completions do not', () => {
    expect(policy.check([job(spec('16'), { parallelism: 4 })])).toEqual([]);
    expect(rules(policy.check([job(spec('16'), { parallelism: 5 })]))).toEqual(['cpu_limit']);
    expect(policy.check([job(spec('64'), { completions: 100 })])).toEqual([]);
    expect(rules(policy.check([job(spec('1'), { parallelism: 'many' })]))).toEqual(['manifest_shape']);
  });

  test('GPU totals multiply too', () => {
    const gpu = (n: number) => ({ containers: [container({}, { 'nvidia.com/gpu': n })] });
    expect(policy.check([job(gpu(2), { parallelism: 4 })])).toEqual([]);
    expect(rules(policy.check([job(gpu(2), { parallelism: 5 })]))).toEqual(['gpu_limit']);
  });

  test('CronJob uses jobTemplate.spec.parallelism (default 1)', () => {
    expect(policy.check([cronJob(spec('64'))])).toEqual([]);
    expect(policy.check([cronJob(spec('32'), 2)])).toEqual([]);
    const violations = policy.check([cronJob(spec('32'), 3)]);
    expect(violations.map((v) => [v.rule, v.field])).toEqual([
      ['cpu_limit', 'spec.jobTemplate.spec.template.spec'],
    ]);
  });

  test('a bare Pod counts once, whatever it claims', () => {
    const bare = pod(spec('64'));
    (bare.spec as Json).replicas = 10;
    expect(policy.check([bare])).toEqual([]);
    expect(rules(policy.check([pod(spec('65'))]))).toEqual(['cpu_limit']);
  });

  test('a DaemonSet counts one pod', () => {
    expect(loose.check([workload('apps/v1', 'DaemonSet', undefined, spec('64'))])).toEqual([]);
  });
});

describe('init, sidecar and ephemeral containers (scheduler arithmetic)', () => {
  const strict = policyFrom({ MAX_CPU_PER_MANIFEST: '25' });
  const c = (cpu: string, extra: Json = {}) => container({ cpu }, undefined, extra);

  test('a pod requests the larger of the container sum and the largest init container', () => {
    // containers 10 + 10 = 20; init 20 → 20
    expect(strict.check([pod({ initContainers: [c('20')], containers: [c('10'), c('10')] })])).toEqual([]);
    // init 30 > 20 → 30
    expect(rules(strict.check([pod({ initContainers: [c('30')], containers: [c('10'), c('10')] })]))).toEqual(
      ['cpu_limit'],
    );
    // init containers run one at a time: 20 and 20 are not summed
    expect(strict.check([pod({ initContainers: [c('20'), c('20')], containers: [c('1')] })])).toEqual([]);
  });

  test('sidecars (restartPolicy: Always) add to the running containers', () => {
    const sidecar = c('10', { restartPolicy: 'Always' });
    expect(rules(strict.check([pod({ initContainers: [sidecar], containers: [c('20')] })]))).toEqual([
      'cpu_limit',
    ]);
    expect(strict.check([pod({ initContainers: [sidecar], containers: [c('15')] })])).toEqual([]);
  });

  test('an init container after a sidecar runs next to it', () => {
    const sidecar = c('5', { restartPolicy: 'Always' });
    // 5 (sidecar) + 21 (init) = 26 > 25, although 5 + 1 running afterwards is small.
    expect(rules(strict.check([pod({ initContainers: [sidecar, c('21')], containers: [c('1')] })]))).toEqual([
      'cpu_limit',
    ]);
    expect(strict.check([pod({ initContainers: [sidecar, c('20')], containers: [c('1')] })])).toEqual([]);
  });

  test('ephemeral containers are counted', () => {
    expect(
      rules(
        strict.check([pod({ containers: [c('20')], ephemeralContainers: [{ ...c('6'), name: 'debug' }] })]),
      ),
    ).toEqual(['cpu_limit']);
  });

  test('memory follows the same arithmetic', () => {
    const m = (memory: string) => container({ memory });
    expect(
      rules(
        policy.check([job({ initContainers: [m('200Gi')], containers: [m('100Gi')] }, { parallelism: 2 })]),
      ),
    ).toEqual(['memory_limit']);
    expect(
      policy.check([job({ initContainers: [m('128Gi')], containers: [m('100Gi')] }, { parallelism: 2 })]),
    ).toEqual([]);
  });
});

describe('pod spec location per kind', () => {
  test.each([
    [pod({}), 'spec.containers'],
    [job({}), 'spec.template.spec.containers'],
    [cronJob({}), 'spec.jobTemplate.spec.template.spec.containers'],
    [workload('apps/v1', 'Deployment', 1, {}), 'spec.template.spec.containers'],
  ])('a pod spec without containers is a shape violation at %#', (manifest, field) => {
    expect(policy.check([manifest]).map((v) => [v.rule, v.field])).toEqual([['manifest_shape', field]]);
  });

  test('a missing pod template is a shape violation', () => {
    const broken = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j', namespace: 'svc-jobs' },
      spec: {},
    };
    expect(policy.check([broken]).map((v) => [v.rule, v.field])).toEqual([
      ['manifest_shape', 'spec.template.spec'],
    ]);
  });

  test('containers that are not objects are shape violations', () => {
    expect(policy.check([pod({ containers: ['nginx'] })]).map((v) => [v.rule, v.field])).toEqual([
      ['manifest_shape', 'spec.containers[0]'],
    ]);
    expect(policy.check([pod({ containers: { a: 1 } })]).map((v) => [v.rule, v.field])).toEqual([
      ['manifest_shape', 'spec.containers'],
    ]);
  });
});
