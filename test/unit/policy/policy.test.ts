import {
  DEFAULT_POLICY_CONFIG,
  loadPolicyConfig,
  locationOf,
  POLICY_ENV,
  RULES,
  ValidationPolicy,
} from '../../../cluster/manifest-processor/src/policy/index.js';

const policy = new ValidationPolicy(loadPolicyConfig({}));
const metadata = { name: 'x', namespace: 'svc-jobs' };
const podSpec = {
  containers: [
    { name: 'c', image: 'public.ecr.aws/docker/library/python:3.12', resources: { requests: { cpu: '1' } } },
  ],
};

describe('clean manifests of every default kind pass', () => {
  test.each([
    { apiVersion: 'batch/v1', kind: 'Job', metadata, spec: { template: { spec: podSpec } } },
    {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata,
      spec: { schedule: '@hourly', jobTemplate: { spec: { template: { spec: podSpec } } } },
    },
    { apiVersion: 'v1', kind: 'Pod', metadata, spec: podSpec },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { a: 'b' } },
    { apiVersion: 'v1', kind: 'Service', metadata, spec: { ports: [{ port: 80 }] } },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata,
      spec: { replicas: 3, template: { spec: podSpec } },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata,
      spec: { replicas: 2, template: { spec: podSpec } },
    },
  ])('$kind', (manifest) => {
    expect(policy.check([manifest])).toEqual([]);
  });
});

describe('violation messages', () => {
  test('name the manifest index, the field and the rule', () => {
    const manifest = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata,
      spec: { template: { spec: { containers: [{ name: 'c', image: 'evil.io/x:1' }] } } },
    };
    expect(policy.check([{ apiVersion: 'v1', kind: 'ConfigMap', metadata }, manifest])).toEqual([
      {
        index: 1,
        field: 'spec.template.spec.containers[0].image',
        rule: 'trusted_registry',
        message:
          'manifests[1].spec.template.spec.containers[0].image: image "evil.io/x:1" is not from a trusted registry (rule trusted_registry)',
      },
    ]);
  });

  test('every violation of a thoroughly bad manifest follows the format', () => {
    const bad = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'x', namespace: 'kube-system' },
      spec: {
        parallelism: 100,
        template: {
          spec: {
            hostNetwork: true,
            serviceAccountName: 'manifest-processor',
            volumes: [{ name: 'h', hostPath: { path: '/' } }],
            containers: [
              {
                name: 'c',
                image: 'evil/x',
                resources: { limits: { cpu: '8', memory: 'huge', 'nvidia.com/gpu': 1 } },
                securityContext: {
                  privileged: true,
                  allowPrivilegeEscalation: true,
                  capabilities: { add: ['ALL'] },
                },
              },
            ],
          },
        },
      },
    };
    const violations = policy.check([bad], 'kube-system');
    expect(new Set(violations.map((v) => v.rule))).toEqual(
      new Set([
        'namespace_allowed',
        'invalid_quantity',
        'cpu_limit',
        'gpu_limit',
        'host_namespaces',
        'host_path',
        'privileged',
        'privilege_escalation',
        'capabilities',
        'reserved_service_account',
        'trusted_registry',
      ]),
    );
    for (const v of violations) {
      expect(v.message.startsWith(`${locationOf(v.index, v.field)}: `)).toBe(true);
      expect(v.message.endsWith(` (rule ${v.rule})`)).toBe(true);
      expect(Object.keys(RULES)).toContain(v.rule);
    }
  });

  test('locationOf addresses the request body', () => {
    expect(locationOf(-1, 'namespace')).toBe('namespace');
    expect(locationOf(0, '')).toBe('manifests[0]');
    expect(locationOf(2, 'spec.replicas')).toBe('manifests[2].spec.replicas');
    expect(locationOf(2, '["a.b"]')).toBe('manifests[2]["a.b"]');
  });
});

describe('the policy object', () => {
  test('its config is a frozen copy', () => {
    const config = loadPolicyConfig({});
    const p = new ValidationPolicy(config);
    config.allowedNamespaces.push('kube-system');
    expect(p.config.allowedNamespaces).toEqual(['svc-jobs', 'default']);
    expect(Object.isFrozen(p.config)).toBe(true);
    expect(() => p.config.allowedNamespaces.push('x')).toThrow();
  });

  test('check of no manifests still checks the request namespace', () => {
    expect(policy.check([])).toEqual([]);
    expect(policy.check([], 'kube-system').map((v) => v.index)).toEqual([-1]);
  });
});

describe('describe()', () => {
  const project = '123456789012.dkr.ecr.us-east-1.amazonaws.com';
  const live = new ValidationPolicy(
    loadPolicyConfig({
      PROJECT_REGISTRIES: project,
      REQUIRE_RUN_AS_NON_ROOT: 'true',
      ALLOWED_CAPABILITIES: 'NET_BIND_SERVICE',
      MAX_MEMORY_PER_MANIFEST: '128Gi',
    }),
  );
  const report = live.describe();

  test('reports the effective allowlists and ceilings with their variables', () => {
    expect(report).toMatchObject({
      namespaces: {
        allowed: ['svc-jobs', 'default'],
        request_namespace_checked: true,
        env: 'ALLOWED_NAMESPACES',
      },
      kinds: { allowed: DEFAULT_POLICY_CONFIG.allowedKinds, env: 'ALLOWED_KINDS' },
      max_depth: { value: 32, env: 'MAX_MANIFEST_DEPTH' },
      resources: {
        max_cpu: { cores: 64, quantity: '64', env: 'MAX_CPU_PER_MANIFEST' },
        max_memory: { bytes: 128 * 2 ** 30, quantity: '128Gi', env: 'MAX_MEMORY_PER_MANIFEST' },
        max_gpu: { resource: 'nvidia.com/gpu', count: 8, env: 'MAX_GPU_PER_MANIFEST' },
      },
      security: {
        allowed_capabilities: ['NET_BIND_SERVICE'],
        require_run_as_non_root: true,
        env: {
          allowed_capabilities: 'ALLOWED_CAPABILITIES',
          require_run_as_non_root: 'REQUIRE_RUN_AS_NON_ROOT',
        },
      },
      service_accounts: {
        reserved: DEFAULT_POLICY_CONFIG.reservedServiceAccounts,
        env: 'RESERVED_SERVICE_ACCOUNTS',
      },
    });
  });

  test('the effective registry list is strictly larger than the configured one', () => {
    const registries = report.registries as { configured: string[]; project: string[]; effective: string[] };
    expect(registries.configured).toEqual(DEFAULT_POLICY_CONFIG.trustedRegistries);
    expect(registries.project).toEqual([project]);
    expect(registries.effective).toEqual([...DEFAULT_POLICY_CONFIG.trustedRegistries, project]);
    expect(registries.effective.length).toBeGreaterThan(registries.configured.length);
    expect(report.registries).toMatchObject({
      effective_strictly_larger: true,
      docker_hub: { trusted_organisations: ['library', 'nvidia'] },
      env: {
        configured: 'TRUSTED_REGISTRIES',
        project: 'PROJECT_REGISTRIES',
        docker_hub_orgs: 'TRUSTED_DOCKERHUB_ORGS',
      },
    });
  });

  test('lists every rule id with what it checks', () => {
    const rules = report.rules as { id: string; checks: string }[];
    expect(rules.map((r) => r.id).sort()).toEqual(Object.keys(RULES).sort());
    expect(rules.map((r) => r.id)).toEqual(
      expect.arrayContaining([
        'trusted_registry',
        'namespace_allowed',
        'kind_allowed',
        'max_depth',
        'cpu_limit',
        'memory_limit',
        'gpu_limit',
        'host_namespaces',
        'host_path',
        'privileged',
        'privilege_escalation',
        'capabilities',
        'run_as_non_root',
        'reserved_service_account',
        'manifest_shape',
        'invalid_quantity',
      ]),
    );
    expect(rules.every((r) => r.checks.length > 10)).toBe(true);
  });

  test('names every configuring variable and is JSON-serialisable', () => {
    const text = JSON.stringify(report);
    for (const name of Object.values(POLICY_ENV)) expect(text).toContain(`"${name}"`);
    expect(JSON.parse(text)).toEqual(report);
  });
});
