import { loadPolicyConfig, ValidationPolicy } from '../../../cluster/manifest-processor/src/policy/index.js';

const policy = new ValidationPolicy(loadPolicyConfig({}));

function configMap(metadata: Record<string, unknown> = { name: 'cm' }) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { a: 'b' } };
}

const summary = (vs: { index: number; field: string; rule: string }[]) =>
  vs.map((v) => [v.index, v.field, v.rule]);

describe('namespaces', () => {
  test.each(['svc-jobs', 'default'])('metadata.namespace %s is allowed', (namespace) => {
    expect(policy.check([configMap({ name: 'cm', namespace })])).toEqual([]);
  });

  test.each(['kube-system', 'svc-jobs-evil', 'SVC-JOBS', ' svc-jobs'])(
    'metadata.namespace %j is rejected',
    (namespace) => {
      expect(summary(policy.check([configMap({ name: 'cm', namespace })]))).toEqual([
        [0, 'metadata.namespace', 'namespace_allowed'],
      ]);
    },
  );

  test('a request-level namespace outside the allowlist is a violation even when every manifest names its own', () => {
    const violations = policy.check(
      [configMap({ name: 'a', namespace: 'svc-jobs' }), configMap({ name: 'b', namespace: 'default' })],
      'kube-system',
    );
    expect(summary(violations)).toEqual([[-1, 'namespace', 'namespace_allowed']]);
    expect(violations[0]?.message).toBe(
      'namespace: namespace "kube-system" is not allowed (allowed: svc-jobs, default) (rule namespace_allowed)',
    );
  });

  test('an allowed request-level namespace is inherited by manifests without one', () => {
    expect(policy.check([configMap()], 'svc-jobs')).toEqual([]);
    expect(policy.namespaceOf(configMap(), 'svc-jobs')).toBe('svc-jobs');
  });

  test('a disallowed inherited namespace is reported once, at the request level', () => {
    expect(summary(policy.check([configMap(), configMap({ name: 'b' })], 'kube-system'))).toEqual([
      [-1, 'namespace', 'namespace_allowed'],
    ]);
  });

  test('checkManifest checks the request-level namespace too', () => {
    expect(
      summary(policy.checkManifest(configMap({ name: 'a', namespace: 'svc-jobs' }), 3, 'kube-system')),
    ).toEqual([[-1, 'namespace', 'namespace_allowed']]);
    expect(policy.checkManifest(configMap({ name: 'a', namespace: 'svc-jobs' }), 3, 'svc-jobs')).toEqual([]);
  });

  test("a manifest's own namespace wins over the request-level one", () => {
    expect(summary(policy.check([configMap({ name: 'a', namespace: 'kube-system' })], 'svc-jobs'))).toEqual([
      [0, 'metadata.namespace', 'namespace_allowed'],
    ]);
    expect(policy.namespaceOf(configMap({ name: 'a', namespace: 'team' }), 'svc-jobs')).toBe('team');
  });

  test('without any namespace the manifest goes to "default", which must be allowed', () => {
    expect(policy.namespaceOf(configMap())).toBe('default');
    expect(policy.namespaceOf(configMap(), null)).toBe('default');
    expect(policy.check([configMap()], null)).toEqual([]);
    const strict = new ValidationPolicy(loadPolicyConfig({ ALLOWED_NAMESPACES: 'svc-jobs' }));
    const violations = strict.check([configMap()]);
    expect(summary(violations)).toEqual([[0, 'metadata.namespace', 'namespace_allowed']]);
    expect(violations[0]?.message).toContain('"default" is not allowed');
    expect(strict.check([configMap()], 'svc-jobs')).toEqual([]);
  });

  test('an empty request-level namespace counts as none', () => {
    expect(policy.check([configMap()], '')).toEqual([]);
    expect(policy.namespaceOf(configMap(), '')).toBe('default');
  });
});

describe('kinds', () => {
  const manifest = (apiVersion: string, kind: string) => ({
    apiVersion,
    kind,
    metadata: { name: 'x', namespace: 'svc-jobs' },
  });

  test.each([
    ['v1', 'ConfigMap'],
    ['v1', 'Service'],
  ])('%s %s is allowed', (apiVersion, kind) => {
    expect(policy.check([manifest(apiVersion, kind)])).toEqual([]);
  });

  test.each([
    ['v1', 'Namespace'],
    ['rbac.authorization.k8s.io/v1', 'ClusterRole'],
    ['rbac.authorization.k8s.io/v1', 'RoleBinding'],
    ['v1', 'Secret'],
    ['apps/v1', 'DaemonSet'],
    ['apps/v1beta1', 'Deployment'],
    ['batch/v2', 'Job'],
    ['batch/v1', 'job'],
    ['v1', 'Job'],
  ])('%s %s is rejected', (apiVersion, kind) => {
    const violations = policy.check([manifest(apiVersion, kind)]);
    expect(violations.map((v) => v.rule)).toContain('kind_allowed');
    expect(violations.find((v) => v.rule === 'kind_allowed')?.field).toBe('kind');
  });

  test('a bare Kind entry allows that kind under any apiVersion', () => {
    const loose = new ValidationPolicy(loadPolicyConfig({ ALLOWED_KINDS: 'ConfigMap' }));
    expect(loose.check([manifest('v1', 'ConfigMap'), manifest('example.com/v1alpha1', 'ConfigMap')])).toEqual(
      [],
    );
    expect(loose.check([manifest('v1', 'Service')]).map((v) => v.rule)).toEqual(['kind_allowed']);
  });
});

describe('manifest shape', () => {
  test.each([null, 'a string', 42, [], [{ kind: 'Pod' }]])('%j is not a manifest', (value) => {
    expect(summary(policy.check([value]))).toEqual([[0, '', 'manifest_shape']]);
  });

  test.each([
    [{ kind: 'ConfigMap', metadata: { name: 'x' } }, 'apiVersion'],
    [{ apiVersion: 'v1', metadata: { name: 'x' } }, 'kind'],
    [{ apiVersion: 'v1', kind: 'ConfigMap' }, 'metadata'],
    [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: 'x' }, 'metadata'],
    [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, 'metadata.name'],
    [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: '' } }, 'metadata.name'],
    [{ apiVersion: 7, kind: 'ConfigMap', metadata: { name: 'x' } }, 'apiVersion'],
    [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 5 } }, 'metadata.namespace'],
  ])('%j → manifest_shape at %s', (manifest, field) => {
    expect(summary(policy.check([manifest]))).toContainEqual([0, field, 'manifest_shape']);
  });

  test('generateName stands in for name', () => {
    expect(policy.check([configMap({ generateName: 'cm-' })])).toEqual([]);
  });

  test('violations carry the index of their manifest', () => {
    const violations = policy.check([configMap(), { apiVersion: 'v1' }, configMap(), 'x']);
    expect([...new Set(violations.map((v) => v.index))]).toEqual([1, 3]);
    expect(violations.every((v) => v.message.startsWith(`manifests[${v.index}]`))).toBe(true);
  });
});
