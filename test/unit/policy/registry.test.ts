import {
  loadPolicyConfig,
  parseImageReference,
  parseRegistryEntry,
  ValidationPolicy,
  type PolicyViolation,
} from '../../../cluster/manifest-processor/src/policy/index.js';

const SHA = 'a'.repeat(64);

function podWith(image: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'svc-jobs' },
    spec: { containers: [{ name: 'c', image }] },
  };
}

function registryViolations(env: NodeJS.ProcessEnv, image: string): PolicyViolation[] {
  const policy = new ValidationPolicy(loadPolicyConfig(env));
  return policy.checkManifest(podWith(image), 0).filter((v) => v.rule === 'trusted_registry');
}

describe('parseImageReference', () => {
  test.each([
    ['nginx', { host: 'docker.io', port: undefined, path: 'library/nginx', tag: undefined, dockerHub: true }],
    ['nginx:1.27', { host: 'docker.io', path: 'library/nginx', tag: '1.27', dockerHub: true }],
    ['evil/x', { host: 'docker.io', path: 'evil/x', dockerHub: true }],
    ['docker.io/nginx', { host: 'docker.io', path: 'library/nginx', dockerHub: true }],
    ['index.docker.io/evil/x', { host: 'docker.io', path: 'evil/x', dockerHub: true }],
    ['registry-1.docker.io/evil/x', { host: 'docker.io', path: 'evil/x', dockerHub: true }],
    ['DOCKER.IO/evil/x', { host: 'docker.io', path: 'evil/x', dockerHub: true }],
    ['docker.io:443/evil/x', { host: 'docker.io', port: '443', path: 'evil/x', dockerHub: true }],
    ['ghcr.io/acme/team/x:v1', { host: 'ghcr.io', path: 'acme/team/x', tag: 'v1', dockerHub: false }],
    ['GHCR.IO/acme/x', { host: 'ghcr.io', path: 'acme/x', dockerHub: false }],
    ['registry.local:5000/x', { host: 'registry.local', port: '5000', path: 'x', tag: undefined }],
    ['registry.local:5000/x:5000', { host: 'registry.local', port: '5000', path: 'x', tag: '5000' }],
    ['localhost/x', { host: 'localhost', port: undefined, path: 'x', dockerHub: false }],
    ['localhost:5000/a/b', { host: 'localhost', port: '5000', path: 'a/b' }],
    // Without a slash "localhost:5000" is Docker Hub's library/localhost at tag 5000, as in Docker.
    ['localhost:5000', { host: 'docker.io', path: 'library/localhost', tag: '5000', dockerHub: true }],
    ['[::1]:5000/a/b:t', { host: '[::1]', port: '5000', path: 'a/b', tag: 't' }],
    ['10.0.0.1:8080/x', { host: '10.0.0.1', port: '8080', path: 'x' }],
    [`ghcr.io/acme/x@sha256:${SHA}`, { path: 'acme/x', tag: undefined, digest: `sha256:${SHA}` }],
    [`ghcr.io/acme/x:1.0@sha256:${SHA}`, { path: 'acme/x', tag: '1.0', digest: `sha256:${SHA}` }],
    [`nginx@sha512:${'b'.repeat(128)}`, { path: 'library/nginx', digest: `sha512:${'b'.repeat(128)}` }],
    ['a.b-c--d.io/x', { host: 'a.b-c--d.io', path: 'x' }],
    ['my_org/my.repo-name__x', { host: 'docker.io', path: 'my_org/my.repo-name__x' }],
  ])('%s', (image, expected) => {
    const parsed = parseImageReference(image);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.value).toMatchObject(expected);
  });

  test.each([
    ['', 'empty'],
    [' nginx', 'whitespace'],
    ['nginx ', 'whitespace'],
    ['nginx:', 'not a valid tag'],
    ['nginx:-bad', 'not a valid tag'],
    [`nginx:${'t'.repeat(129)}`, 'not a valid tag'],
    ['ghcr.io/', 'not a valid repository path component'],
    ['ghcr.io/acme/X', 'not a valid repository path component'],
    ['a//b', 'not a valid repository path component'],
    ['-a/b', 'not a valid repository path component'],
    ['a/b/', 'not a valid repository path component'],
    ['ghcr.io:/x', 'not a valid registry host'],
    ['docker.io./evil/x', 'not a valid registry host'],
    ['-bad.io/x', 'not a valid registry host'],
    ['host:99999/x', 'out of range'],
    ['nginx@sha256:abc', 'not a sha256'],
    [`nginx@sha256:${'A'.repeat(64)}`, 'not a sha256'],
    [`nginx@md5:${'a'.repeat(32)}`, 'not a sha256'],
    [`nginx@${SHA}`, 'not a sha256'],
    [`nginx@sha256:${SHA}@sha256:${SHA}`, 'not a sha256'],
    [`ghcr.io/${'a'.repeat(250)}`, 'longer than 255'],
  ])('%j is malformed (%s)', (image, reason) => {
    const parsed = parseImageReference(image);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(reason);
  });
});

describe('parseRegistryEntry', () => {
  test('normalises case and a trailing slash, splits the path prefix on segments', () => {
    const parsed = parseRegistryEntry(' GHCR.io/Acme/Team/ ');
    expect(parsed).toEqual({
      ok: true,
      value: {
        host: 'ghcr.io',
        port: undefined,
        pathPrefix: ['acme', 'team'],
        text: 'ghcr.io/acme/team',
        dockerHub: false,
      },
    });
  });

  test.each(['https://ghcr.io', 'ghcr.io/Bad Path', '', 'host:0', 'under_score.io'])(
    '%j is rejected',
    (entry) => {
      expect(parseRegistryEntry(entry).ok).toBe(false);
    },
  );
});

describe('Docker Hub is judged by organisation, never by host', () => {
  // docker.io and friends configured as "trusted hosts" must not open all of Docker Hub.
  const env = {
    TRUSTED_REGISTRIES: 'docker.io,index.docker.io,registry-1.docker.io,ghcr.io/acme',
    TRUSTED_DOCKERHUB_ORGS: 'library,nvidia',
  };

  test.each([
    'docker.io/evil/x',
    'index.docker.io/evil/x',
    'evil/x',
    'registry-1.docker.io/evil/x',
    'DOCKER.IO/evil/x',
    'registry.hub.docker.com/evil/x',
    'docker.io:443/evil/x',
    'evil/x:latest',
    `evil/x@sha256:${SHA}`,
    'libraryevil/x',
  ])('%s is rejected', (image) => {
    const [violation, ...rest] = registryViolations(env, image);
    expect(rest).toEqual([]);
    expect(violation?.message).toContain('is from Docker Hub organisation');
    expect(violation?.field).toBe('spec.containers[0].image');
  });

  test.each([
    'nginx',
    'nginx:1.27',
    'library/nginx',
    'docker.io/nginx',
    'docker.io/library/nginx:1.27',
    'index.docker.io/nvidia/cuda:12.4.1-runtime-ubuntu22.04',
    'registry-1.docker.io/library/busybox',
    'DOCKER.IO/library/nginx',
    `nvidia/cuda@sha256:${SHA}`,
  ])('%s is allowed', (image) => {
    expect(registryViolations(env, image)).toEqual([]);
  });

  test('with no trusted organisation Docker Hub is closed entirely', () => {
    expect(registryViolations({ TRUSTED_DOCKERHUB_ORGS: 'none' }, 'nginx')).toHaveLength(1);
  });

  test('the ignored Docker Hub host entries are reported', () => {
    const policy = new ValidationPolicy(loadPolicyConfig(env));
    const registries = policy.describe().registries as Record<string, unknown>;
    expect(registries.configured).toEqual(['ghcr.io/acme']);
    expect(registries.ignored_entries).toEqual([
      expect.objectContaining({ entry: 'docker.io' }),
      expect.objectContaining({ entry: 'index.docker.io' }),
      expect.objectContaining({ entry: 'registry-1.docker.io' }),
    ]);
  });
});

describe('other registries: host, port and path prefix on whole segments', () => {
  const env = { TRUSTED_REGISTRIES: 'ghcr.io/acme,registry.local:5000,quay.io' };

  test.each([
    'ghcr.io/acme/x',
    'ghcr.io/acme/x:1.0',
    'ghcr.io/acme/team/x',
    'GHCR.IO/acme/x',
    'Ghcr.Io/acme/x',
    `ghcr.io/acme/x@sha256:${SHA}`,
    'ghcr.io/acme',
    'registry.local:5000/x',
    'registry.local:5000/team/x:5000',
    'quay.io/anyone/x',
  ])('%s is allowed', (image) => {
    expect(registryViolations(env, image)).toEqual([]);
  });

  test.each([
    'ghcr.io/acmeevil/x',
    'ghcr.io/acme-evil/x',
    'ghcr.io/evil/acme/x',
    'ghcr.io/x',
    'ghcr.io:443/acme/x',
    'registry.local/x',
    'registry.local:5001/x',
    'quay.io.evil.com/x',
    'evil.io/x:1',
    'localhost/x',
    'localhost:5000/x',
    'ghcr.io/acme/X',
  ])('%s is rejected', (image) => {
    expect(registryViolations(env, image)).toHaveLength(1);
  });

  test('a malformed reference is rejected with the reason', () => {
    const [violation] = registryViolations(env, 'ghcr.io/acme/x:');
    expect(violation?.message).toContain('is not a valid image reference');
  });
});

describe('project registries extend the configured list', () => {
  const ecr = '123456789012.dkr.ecr.us-east-1.amazonaws.com';

  test('an image from a project registry is allowed only when it is configured', () => {
    const image = `${ecr}/gco/trainer:1`;
    expect(registryViolations({ TRUSTED_REGISTRIES: 'quay.io' }, image)).toHaveLength(1);
    expect(registryViolations({ TRUSTED_REGISTRIES: 'quay.io', PROJECT_REGISTRIES: ecr }, image)).toEqual([]);
  });

  test('describe() shows the effective list strictly larger than the configured one', () => {
    const policy = new ValidationPolicy(
      loadPolicyConfig({ TRUSTED_REGISTRIES: 'quay.io', PROJECT_REGISTRIES: ecr }),
    );
    const registries = policy.describe().registries as Record<string, unknown>;
    expect(registries).toMatchObject({
      configured: ['quay.io'],
      project: [ecr],
      effective: ['quay.io', ecr],
      effective_strictly_larger: true,
    });
  });

  test('without project registries the effective list equals the configured one', () => {
    const policy = new ValidationPolicy(loadPolicyConfig({ TRUSTED_REGISTRIES: 'quay.io' }));
    expect(policy.describe().registries).toMatchObject({
      configured: ['quay.io'],
      project: [],
      effective: ['quay.io'],
      effective_strictly_larger: false,
    });
  });
});

describe('every container list is checked', () => {
  test('init and ephemeral containers need trusted images too', () => {
    const policy = new ValidationPolicy(loadPolicyConfig({}));
    const pod = podWith('nginx');
    const spec = pod.spec as Record<string, unknown>;
    spec.initContainers = [{ name: 'i', image: 'evil.io/init' }];
    spec.ephemeralContainers = [{ name: 'e', image: 'evil.io/debug' }];
    const fields = policy
      .checkManifest(pod, 0)
      .filter((v) => v.rule === 'trusted_registry')
      .map((v) => v.field);
    expect(fields).toEqual(['spec.initContainers[0].image', 'spec.ephemeralContainers[0].image']);
  });

  test('a container without an image is a shape violation', () => {
    const policy = new ValidationPolicy(loadPolicyConfig({}));
    const pod = { ...podWith('nginx'), spec: { containers: [{ name: 'c' }, { name: 'd', image: 7 }] } };
    expect(policy.checkManifest(pod, 0).map((v) => [v.rule, v.field])).toEqual([
      ['manifest_shape', 'spec.containers[0].image'],
      ['manifest_shape', 'spec.containers[1].image'],
    ]);
  });
});
