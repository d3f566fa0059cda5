import { EnvironmentError } from '../../../contracts/env/reader.js';
import {
  DEFAULT_POLICY_CONFIG,
  loadPolicyConfig,
  POLICY_ENV,
  ValidationPolicy,
} from '../../../cluster/manifest-processor/src/policy/index.js';

function configError(env: NodeJS.ProcessEnv): string {
  try {
    loadPolicyConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(EnvironmentError);
    return (err as Error).message;
  }
  throw new Error('expected loadPolicyConfig to throw');
}

describe('loadPolicyConfig defaults', () => {
  test('an empty environment gives the documented defaults', () => {
    const config = loadPolicyConfig({});
    expect(config).toEqual(DEFAULT_POLICY_CONFIG);
    expect(config.allowedNamespaces).toEqual(['svc-jobs', 'default']);
    expect(config.allowedKinds).toEqual([
      'batch/v1/Job',
      'batch/v1/CronJob',
      'v1/Pod',
      'v1/ConfigMap',
      'v1/Service',
      'apps/v1/Deployment',
      'apps/v1/StatefulSet',
    ]);
    expect(config.maxDepth).toBe(32);
    expect(config.maxCpuCores).toBe(64);
    expect(config.maxMemoryBytes).toBe(256 * 2 ** 30);
    expect(config.maxGpus).toBe(8);
    expect(config.trustedDockerHubOrgs).toEqual(['library', 'nvidia']);
    expect(config.projectRegistries).toEqual([]);
    expect(config.reservedServiceAccounts).toEqual([
      'manifest-processor',
      'health-monitor',
      'inference-proxy',
      'cost-monitor',
    ]);
    expect(config.requireRunAsNonRoot).toBe(false);
    expect(config.allowedCapabilities).toEqual([]);
  });

  test('empty variables fall back to the defaults', () => {
    const env = Object.fromEntries(Object.values(POLICY_ENV).map((name) => [name, '']));
    expect(loadPolicyConfig(env)).toEqual(DEFAULT_POLICY_CONFIG);
  });

  test('a default config builds a policy', () => {
    expect(() => new ValidationPolicy(loadPolicyConfig({}))).not.toThrow();
  });
});

describe('loadPolicyConfig parsing', () => {
  test('every variable is read', () => {
    const config = loadPolicyConfig({
      ALLOWED_NAMESPACES: ' team-a, team-b ,team-a',
      ALLOWED_KINDS: 'batch/v1/Job, Pod',
      MAX_MANIFEST_DEPTH: '10',
      MAX_CPU_PER_MANIFEST: '500m',
      MAX_MEMORY_PER_MANIFEST: '1.5Gi',
      MAX_GPU_PER_MANIFEST: '0',
      TRUSTED_REGISTRIES: 'GHCR.io/Acme/, registry.local:5000',
      TRUSTED_DOCKERHUB_ORGS: 'Bitnami',
      PROJECT_REGISTRIES: '123456789012.dkr.ecr.us-east-1.amazonaws.com',
      RESERVED_SERVICE_ACCOUNTS: 'platform-admin',
      REQUIRE_RUN_AS_NON_ROOT: 'yes',
      ALLOWED_CAPABILITIES: 'cap_net_bind_service, CHOWN',
    });
    expect(config).toEqual({
      allowedNamespaces: ['team-a', 'team-b'],
      allowedKinds: ['batch/v1/Job', 'Pod'],
      maxDepth: 10,
      maxCpuCores: 0.5,
      maxMemoryBytes: 1.5 * 2 ** 30,
      maxGpus: 0,
      trustedRegistries: ['ghcr.io/acme', 'registry.local:5000'],
      trustedDockerHubOrgs: ['bitnami'],
      projectRegistries: ['123456789012.dkr.ecr.us-east-1.amazonaws.com'],
      reservedServiceAccounts: ['platform-admin'],
      requireRunAsNonRoot: true,
      allowedCapabilities: ['NET_BIND_SERVICE', 'CHOWN'],
    });
  });

  test.each([
    ['64', 64],
    ['1e3', 1000],
    ['2k', 2000],
    ['0.5', 0.5],
  ])('MAX_CPU_PER_MANIFEST=%s is %d cores', (raw, cores) => {
    expect(loadPolicyConfig({ MAX_CPU_PER_MANIFEST: raw }).maxCpuCores).toBe(cores);
  });

  test('"none" empties the lists where an empty list is meaningful', () => {
    const config = loadPolicyConfig({
      TRUSTED_REGISTRIES: 'none',
      TRUSTED_DOCKERHUB_ORGS: 'NONE',
      RESERVED_SERVICE_ACCOUNTS: 'none',
      ALLOWED_CAPABILITIES: 'none',
    });
    expect(config.trustedRegistries).toEqual([]);
    expect(config.trustedDockerHubOrgs).toEqual([]);
    expect(config.reservedServiceAccounts).toEqual([]);
    expect(config.allowedCapabilities).toEqual([]);
  });
});

describe('loadPolicyConfig errors', () => {
  test('every problem is reported at once, naming its variable', () => {
    const message = configError({
      ALLOWED_NAMESPACES: 'Bad_NS',
      ALLOWED_KINDS: 'job',
      MAX_MANIFEST_DEPTH: 'deep',
      MAX_CPU_PER_MANIFEST: 'lots',
      MAX_MEMORY_PER_MANIFEST: '-1Gi',
      MAX_GPU_PER_MANIFEST: '1.5',
      TRUSTED_REGISTRIES: 'https://registry.example.com',
      TRUSTED_DOCKERHUB_ORGS: 'bad org',
      PROJECT_REGISTRIES: 'ghcr.io/Bad Path',
      RESERVED_SERVICE_ACCOUNTS: 'Bad_SA',
      REQUIRE_RUN_AS_NON_ROOT: 'maybe',
      ALLOWED_CAPABILITIES: 'net bind',
    });
    for (const name of Object.values(POLICY_ENV)) expect(message).toContain(`${name}:`);
    expect(message).toContain('"Bad_NS" is not a namespace name');
    expect(message).toContain('the kind must start with an upper-case letter');
    expect(message).toContain('give host[/path], not a URL');
  });

  test.each([
    ['ALLOWED_NAMESPACES', 'none', 'must name at least one entry'],
    ['ALLOWED_KINDS', 'none', 'must name at least one entry'],
    ['ALLOWED_KINDS', 'batch/Job', 'expected apiVersion/Kind'],
    ['MAX_MANIFEST_DEPTH', '1', 'expected a value in 2..1000'],
    ['MAX_MANIFEST_DEPTH', '2.5', 'expected an integer'],
    ['MAX_CPU_PER_MANIFEST', '0', 'expected a positive Kubernetes quantity'],
    ['MAX_MEMORY_PER_MANIFEST', '256GB', 'expected a positive Kubernetes quantity'],
    ['MAX_GPU_PER_MANIFEST', '-1', 'expected a value in 0..100000'],
    ['TRUSTED_REGISTRIES', 'ghcr.io:99999', 'port 99999 is out of range'],
    ['TRUSTED_REGISTRIES', 'bad_host/x', 'is not a valid registry host'],
    ['REQUIRE_RUN_AS_NON_ROOT', 'sometimes', 'expected true or false'],
  ])('%s=%s is rejected (%s)', (name, value, expected) => {
    const message = configError({ [name]: value });
    expect(message).toContain(`${name}: `);
    expect(message).toContain(expected);
  });

  test('valid variables produce no error', () => {
    expect(() => loadPolicyConfig({ MAX_MANIFEST_DEPTH: '1000', MAX_GPU_PER_MANIFEST: '16' })).not.toThrow();
  });

  test('a hand-built config with a malformed entry is refused by the policy', () => {
    expect(() => new ValidationPolicy({ ...DEFAULT_POLICY_CONFIG, allowedKinds: ['job'] })).toThrow(
      /allowed kinds/,
    );
    expect(
      () => new ValidationPolicy({ ...DEFAULT_POLICY_CONFIG, trustedRegistries: ['https://x.io'] }),
    ).toThrow(/trusted registries/);
  });
});
