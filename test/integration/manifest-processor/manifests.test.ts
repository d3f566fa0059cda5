import { IMAGE, jobManifest } from '../../support/cluster-fixtures.js';
import { startHarness, type Harness } from './harness.js';

const deployment = (name: string, replicas = 1, image = IMAGE) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'web', image, resources: { requests: { cpu: '1', memory: '1Gi' } } }] },
    },
  },
});

describe('manifest-processor: manifests', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  test('a submitted job is created, listed, runs to succeeded, and its pods and logs are readable', async () => {
    const submit = await h.call('POST', '/api/v1/manifests', {
      manifests: [jobManifest('hello')],
      namespace: 'svc-jobs',
    });
    expect(submit.status).toBe(200);
    expect(submit.body).toMatchObject({
      success: true,
      dry_run: false,
      resources: [
        {
          index: 0,
          kind: 'Job',
          name: 'hello',
          namespace: 'svc-jobs',
          status: 'created',
          uid: expect.any(String),
        },
      ],
    });

    const listed = await h.call('GET', '/api/v1/jobs?namespace=svc-jobs');
    expect(listed.body.jobs.map((j: { name: string }) => j.name)).toEqual(['hello']);

    const done = await h.waitFor(async () => {
      const job = await h.call('GET', '/api/v1/jobs/svc-jobs/hello');
      return job.body.status === 'succeeded' ? job.body : undefined;
    });
    expect(done.pods[0]).toMatchObject({
      phase: 'Succeeded',
      node: expect.any(String),
      instance_type: expect.any(String),
    });

    const logs = await h.call('GET', '/api/v1/jobs/svc-jobs/hello/logs');
    expect(logs.status).toBe(200);
    expect(logs.body.pods[0].logs).toContain('hello from the job');
  });

  test('re-submitting is unchanged; a changed manifest is updated', async () => {
    const manifest = deployment('web');
    expect(
      (await h.call('POST', '/api/v1/manifests', { manifests: [manifest] })).body.resources[0].status,
    ).toBe('created');
    expect(
      (await h.call('POST', '/api/v1/manifests', { manifests: [manifest] })).body.resources[0].status,
    ).toBe('unchanged');
    const changed = { ...manifest, metadata: { name: 'web', labels: { tier: 'front' } } };
    expect(
      (await h.call('POST', '/api/v1/manifests', { manifests: [changed] })).body.resources[0].status,
    ).toBe('updated');
  });

  test('dry_run validates against the cluster and creates nothing', async () => {
    const res = await h.call('POST', '/api/v1/manifests', { manifests: [jobManifest('dry')], dry_run: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, dry_run: true, resources: [{ status: 'created' }] });
    expect(res.body.resources[0].uid).toBeUndefined();
    expect(h.sim.get('batch/v1', 'Job', 'default', 'dry')).toBeUndefined();
    expect((await h.call('GET', '/api/v1/jobs')).body.total).toBe(0);
  });

  test('validate answers valid without applying', async () => {
    const ok = await h.call('POST', '/api/v1/manifests/validate', { manifests: [jobManifest('v1')] });
    expect([ok.status, ok.body.valid]).toEqual([200, true]);
    const bad = await h.call('POST', '/api/v1/manifests/validate', {
      manifests: [deployment('x', 1, 'evil.example.com/miner:1')],
    });
    expect([bad.status, bad.body.valid]).toEqual([200, false]);
    expect(bad.body.violations[0]).toMatchObject({
      index: 0,
      rule: 'trusted_registry',
      field: expect.stringContaining('image'),
    });
    expect(h.sim.list('batch/v1', 'Job')).toHaveLength(0);
  });

  const privileged = jobManifest('priv');
  (privileged.spec.template.spec.containers[0] as Record<string, unknown>).securityContext = {
    privileged: true,
  };
  const hostPath = jobManifest('hp');
  (hostPath.spec.template.spec as Record<string, unknown>).volumes = [
    { name: 'root', hostPath: { path: '/' } },
  ];
  const hostNet = jobManifest('hn');
  (hostNet.spec.template.spec as Record<string, unknown>).hostNetwork = true;
  const caps = jobManifest('caps');
  (caps.spec.template.spec.containers[0] as Record<string, unknown>).securityContext = {
    capabilities: { add: ['SYS_ADMIN'] },
  };
  const escalation = jobManifest('esc');
  (escalation.spec.template.spec.containers[0] as Record<string, unknown>).securityContext = {
    allowPrivilegeEscalation: true,
  };
  const reservedSa = jobManifest('sa');
  (reservedSa.spec.template.spec as Record<string, unknown>).serviceAccountName = 'manifest-processor';

  test.each([
    [
      'namespace not allowed',
      [jobManifest('a', { namespace: 'kube-system' })],
      undefined,
      'namespace_allowed',
    ],
    [
      'request-level namespace not allowed',
      [jobManifest('a', { namespace: 'svc-jobs' })],
      'kube-system',
      'namespace_allowed',
    ],
    [
      'kind not allowed',
      [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'x' } }],
      undefined,
      'kind_allowed',
    ],
    ['untrusted registry', [deployment('x', 1, 'evil.example.com/miner:1')], undefined, 'trusted_registry'],
    [
      'docker.io org outside the allowlist',
      [deployment('x', 1, 'docker.io/evil/miner:1')],
      undefined,
      'trusted_registry',
    ],
    ['CPU ceiling counts replicas', [deployment('big', 17)], undefined, 'cpu_limit'],
    [
      'CPU ceiling counts parallelism',
      [jobManifest('par', { cpu: '2', parallelism: 9 })],
      undefined,
      'cpu_limit',
    ],
    ['privileged container', [privileged], undefined, 'privileged'],
    ['hostPath volume', [hostPath], undefined, 'host_path'],
    ['host network', [hostNet], undefined, 'host_namespaces'],
    ['added capability', [caps], undefined, 'capabilities'],
    ['privilege escalation', [escalation], undefined, 'privilege_escalation'],
    ['reserved service account', [reservedSa], undefined, 'reserved_service_account'],
  ])('policy rejection: %s → 400, nothing applied', async (_label, manifests, namespace, rule) => {
    const res = await h.call('POST', '/api/v1/manifests', { manifests, ...(namespace ? { namespace } : {}) });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.violations.map((v: { rule: string }) => v.rule)).toContain(rule);
    const violation = res.body.violations.find((v: { rule: string }) => v.rule === rule);
    expect(violation.message).toContain(rule);
    expect(typeof violation.field).toBe('string');
    expect(h.sim.list('batch/v1', 'Job')).toHaveLength(0);
    expect(h.sim.list('apps/v1', 'Deployment')).toHaveLength(0);
  });

  test('one bad manifest in a bundle: 400, the good one is skipped, nothing is applied', async () => {
    const res = await h.call('POST', '/api/v1/manifests', {
      manifests: [jobManifest('good'), deployment('bad', 1, 'evil.example.com/x:1')],
    });
    expect(res.status).toBe(400);
    expect(res.body.resources.map((r: { status: string }) => r.status)).toEqual(['skipped', 'failed']);
    expect(res.body.resources[1].violations[0]).toMatchObject({ index: 1, rule: 'trusted_registry' });
    expect(h.sim.list('batch/v1', 'Job')).toHaveLength(0);
  });

  test('validate:false skips the front-door policy but never the cluster’s own validation', async () => {
    const untrusted = await h.call('POST', '/api/v1/manifests', {
      manifests: [deployment('untrusted', 1, 'evil.example.com/x:1')],
      validate: false,
    });
    expect(untrusted.status).toBe(200);
    expect(untrusted.body.resources[0].status).toBe('created');

    // No pod template: only the orchestrator's own validation can catch this one.
    const invalid = { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'no-template' }, spec: {} };
    const res = await h.call('POST', '/api/v1/manifests', { manifests: [invalid], validate: false });
    expect(res.status).toBe(400);
    expect(res.body.resources[0]).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('Invalid'),
    });
    expect(h.sim.list('batch/v1', 'Job')).toHaveLength(0);
  });

  test('resource status and delete (defaults apps/v1 Deployment)', async () => {
    await h.call('POST', '/api/v1/manifests', { manifests: [deployment('web')] });
    const status = await h.call('GET', '/api/v1/manifests/default/web');
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      api_version: 'apps/v1',
      kind: 'Deployment',
      name: 'web',
      namespace: 'default',
    });

    const job = await h.call('GET', '/api/v1/manifests/default/web?api_version=batch/v1&kind=Job');
    expect([job.status, job.body]).toEqual([404, { detail: 'Job default/web not found' }]);

    expect((await h.call('GET', '/api/v1/manifests/kube-system/coredns')).status).toBe(403);
    expect((await h.call('GET', '/api/v1/manifests/default/x?api_version=v1&kind=Secret')).status).toBe(403);

    expect((await h.call('DELETE', '/api/v1/manifests/default/web')).body).toMatchObject({ deleted: true });
    expect((await h.call('GET', '/api/v1/manifests/default/web')).status).toBe(404);
    expect((await h.call('DELETE', '/api/v1/manifests/default/web')).status).toBe(404);
  });

  test.each([
    [{}, ['body', 'manifests'], 'missing'],
    [{ manifests: 'x' }, ['body', 'manifests'], 'list_type'],
    [{ manifests: [1] }, ['body', 'manifests', 0], 'dict_type'],
    [{ manifests: [], dry_run: 'maybe' }, ['body', 'dry_run'], 'bool_type'],
    [{ manifests: [], namespace: 5 }, ['body', 'namespace'], 'string_type'],
  ])('bad submission %j → 422 at %j', async (body, loc, type) => {
    const res = await h.call('POST', '/api/v1/manifests', body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc, type })]);
  });
});
