import { jobManifest } from '../../support/cluster-fixtures.js';
import { startHarness, type Harness } from './harness.js';

describe('manifest-processor: jobs', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  const submit = async (...manifests: unknown[]) => {
    const res = await h.call('POST', '/api/v1/manifests', { manifests, namespace: 'svc-jobs' });
    expect(res.status).toBe(200);
    return res.body;
  };
  const statusOf = async (name: string) =>
    (await h.call('GET', `/api/v1/jobs/svc-jobs/${name}`)).body.status as string;
  const waitStatus = (name: string, status: string) =>
    h.waitFor(async () => ((await statusOf(name)) === status ? true : undefined));

  test('list: filters, label selectors, sort, paging with total and has_more', async () => {
    await submit(
      jobManifest('a1', { labels: { team: 'a' } }),
      jobManifest('a2', { labels: { team: 'a' } }),
      jobManifest('b1', { labels: { team: 'b' }, command: ['sh', '-c', 'exit 3'] }),
    );
    await waitStatus('b1', 'failed');
    await waitStatus('a1', 'succeeded');

    const all = await h.call('GET', '/api/v1/jobs?sort=name:asc');
    expect(all.body).toMatchObject({
      total: 3,
      count: 3,
      has_more: false,
      limit: 50,
      offset: 0,
      sort: 'name:asc',
    });
    expect(all.body.jobs.map((j: { name: string }) => j.name)).toEqual(['a1', 'a2', 'b1']);

    const page = await h.call('GET', '/api/v1/jobs?sort=name:desc&limit=2&offset=0');
    expect(page.body.jobs.map((j: { name: string }) => j.name)).toEqual(['b1', 'a2']);
    expect(page.body).toMatchObject({ total: 3, has_more: true });
    const last = await h.call('GET', '/api/v1/jobs?sort=name:desc&limit=2&offset=2');
    expect([last.body.jobs.length, last.body.has_more]).toEqual([1, false]);

    const teamA = await h.call('GET', '/api/v1/jobs?label_selector=team%3Da&sort=name:asc');
    expect(teamA.body.jobs.map((j: { name: string }) => j.name)).toEqual(['a1', 'a2']);
    const failed = await h.call('GET', '/api/v1/jobs?status=failed');
    expect(failed.body.jobs.map((j: { name: string }) => j.name)).toEqual(['b1']);
    await waitStatus('a2', 'succeeded');
    const finished = await h.call('GET', '/api/v1/jobs?status=completed');
    expect(finished.body.total).toBe(3);
    expect((await h.call('GET', '/api/v1/jobs?namespace=default')).body.total).toBe(0);
    expect((await h.call('GET', '/api/v1/jobs?namespace=kube-system')).status).toBe(403);
  });

  test('every operation on one job or resource is confined to the allowed namespaces', async () => {
    const detail = 'Namespace kube-system is not allowed (allowed: svc-jobs, default)';
    for (const [method, path] of [
      ['GET', '/api/v1/jobs/kube-system/x'],
      ['DELETE', '/api/v1/jobs/kube-system/x'],
      ['GET', '/api/v1/jobs/kube-system/x/events'],
      ['GET', '/api/v1/jobs/kube-system/x/logs'],
      ['GET', '/api/v1/jobs/kube-system/x/metrics'],
      ['GET', '/api/v1/jobs/kube-system/x/pods'],
      ['GET', '/api/v1/jobs/kube-system/x/pods/p/logs'],
      ['POST', '/api/v1/jobs/kube-system/x/retry'],
      ['DELETE', '/api/v1/manifests/kube-system/x?api_version=v1&kind=ConfigMap'],
    ] as const) {
      const res = await h.call(method, path);
      expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 403, body: { detail } });
    }
    // Request validation comes first: a malformed query is a 422 whatever the namespace.
    expect((await h.call('GET', '/api/v1/jobs/kube-system/x/logs?tail=0')).status).toBe(422);
  });

  test.each([
    ['label_selector=team%20in%20(a)', ['query', 'label_selector'], 'value_error'],
    ['label_selector=team!%3Da', ['query', 'label_selector'], 'value_error'],
    ['sort=owner:asc', ['query', 'sort'], 'string_pattern_mismatch'],
    ['sort=createdAt', ['query', 'sort'], 'string_pattern_mismatch'],
    ['limit=0', ['query', 'limit'], 'greater_than_equal'],
    ['limit=1001', ['query', 'limit'], 'less_than_equal'],
    ['offset=-1', ['query', 'offset'], 'greater_than_equal'],
    ['status=done', ['query', 'status'], 'enum'],
    [`label_selector=${'a'.repeat(1025)}`, ['query', 'label_selector'], 'string_too_long'],
  ])('GET /api/v1/jobs?%s → 422', async (query, loc, type) => {
    const res = await h.call('GET', `/api/v1/jobs?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc, type });
  });

  test('details, pods with their hardware, events', async () => {
    await submit(jobManifest('d1'));
    await waitStatus('d1', 'succeeded');
    const details = (await h.call('GET', '/api/v1/jobs/svc-jobs/d1')).body;
    expect(details).toMatchObject({
      name: 'd1',
      namespace: 'svc-jobs',
      status: 'succeeded',
      succeeded: 1,
      images: [expect.any(String)],
    });
    const pods = (await h.call('GET', '/api/v1/jobs/svc-jobs/d1/pods')).body;
    expect(pods.count).toBe(1);
    expect(pods.pods[0]).toMatchObject({
      node: expect.any(String),
      instance_type: expect.any(String),
      zone: expect.any(String),
    });
    const events = (await h.call('GET', '/api/v1/jobs/svc-jobs/d1/events')).body;
    const reasons = events.events.map((e: { reason: string }) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(['SuccessfulCreate', 'Scheduled', 'Started']));
    expect((await h.call('GET', '/api/v1/jobs/svc-jobs/nope')).status).toBe(404);
    expect((await h.call('GET', '/api/v1/jobs/svc-jobs/nope')).body).toEqual({
      detail: 'Job svc-jobs/nope not found',
    });
  });

  test('logs: tail, timestamps, pod logs; 404 without pods; 409 while pending', async () => {
    await submit(jobManifest('l1'));
    await waitStatus('l1', 'succeeded');
    const tail = await h.call('GET', '/api/v1/jobs/svc-jobs/l1/logs?tail=1&timestamps=true');
    expect(tail.status).toBe(200);
    const text: string = tail.body.pods[0].logs;
    expect(text.trim().split('\n')).toHaveLength(1);
    expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const podName = tail.body.pods[0].pod;
    const podLogs = await h.call('GET', `/api/v1/jobs/svc-jobs/l1/pods/${podName}/logs?tail=100`);
    expect([podLogs.status, podLogs.body.container]).toEqual([200, 'main']);
    expect((await h.call('GET', '/api/v1/jobs/svc-jobs/l1/pods/other-pod/logs')).status).toBe(404);
    expect((await h.call('GET', '/api/v1/jobs/svc-jobs/l1/logs?container=sidecar')).status).toBe(404);

    const suspended = jobManifest('s1');
    (suspended.spec as Record<string, unknown>).suspend = true;
    await submit(suspended);
    expect((await h.call('GET', '/api/v1/jobs/svc-jobs/s1/logs')).status).toBe(404);

    const unschedulable = jobManifest('huge');
    (unschedulable.spec.template.spec as Record<string, unknown>).nodeSelector = {
      'node.kubernetes.io/instance-type': 'no-such-type',
    };
    await submit(unschedulable);
    await h.waitFor(async () =>
      (await h.call('GET', '/api/v1/jobs/svc-jobs/huge/pods')).body.count > 0 ? true : undefined,
    );
    const pending = await h.call('GET', '/api/v1/jobs/svc-jobs/huge/logs');
    expect(pending.status).toBe(409);
  });

  test.each([
    ['logs?tail=0', ['query', 'tail']],
    ['logs?tail=10001', ['query', 'tail']],
    ['logs?since_seconds=0', ['query', 'since_seconds']],
    ['logs?previous=perhaps', ['query', 'previous']],
    ['pods/p/logs?tail=abc', ['query', 'tail']],
  ])('GET …/%s → 422', async (suffix, loc) => {
    const res = await h.call('GET', `/api/v1/jobs/svc-jobs/x/${suffix}`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(loc);
  });

  test('metrics of the job’s pods; 503 when the metrics API is unavailable', async () => {
    await submit(jobManifest('m1', { command: ['sh', '-c', 'sleep 1'] }));
    const res = await h.call('GET', '/api/v1/jobs/svc-jobs/m1/metrics');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ job: 'm1', namespace: 'svc-jobs', pods: expect.any(Array) });
    h.sim.setUnavailable('metrics.k8s.io', 503);
    expect((await h.call('GET', '/api/v1/jobs/svc-jobs/m1/metrics')).status).toBe(503);
  });

  test('delete: expected_uid mismatch is 409 and leaves the job; the right uid deletes it with its pods', async () => {
    const created = await submit(jobManifest('del'));
    const uid: string = created.resources[0].uid;
    const mismatch = await h.call('DELETE', '/api/v1/jobs/svc-jobs/del?expected_uid=not-the-uid');
    expect(mismatch.status).toBe(409);
    expect(mismatch.body.detail).toMatch(/nothing was deleted/);
    expect(h.sim.get('batch/v1', 'Job', 'svc-jobs', 'del')).toBeDefined();

    const ok = await h.call('DELETE', `/api/v1/jobs/svc-jobs/del?expected_uid=${uid}`);
    expect([ok.status, ok.body.deleted, ok.body.propagation_policy]).toEqual([200, true, 'Background']);
    expect(h.sim.get('batch/v1', 'Job', 'svc-jobs', 'del')).toBeUndefined();
    await h.waitFor(() => (h.sim.list('v1', 'Pod', 'svc-jobs').length === 0 ? true : undefined));
    expect((await h.call('DELETE', '/api/v1/jobs/svc-jobs/del')).status).toBe(404);
    expect((await h.call('DELETE', `/api/v1/jobs/svc-jobs/del?expected_uid=${'x'.repeat(129)}`)).status).toBe(
      422,
    );
    expect((await h.call('DELETE', '/api/v1/jobs/svc-jobs/del?expected_uid=')).status).toBe(422);
  });

  test('bulk delete: dry run deletes nothing; filters select what is deleted', async () => {
    await submit(
      jobManifest('ok1'),
      jobManifest('bad1', { command: ['sh', '-c', 'exit 1'] }),
      jobManifest('bad2', { command: ['sh', '-c', 'exit 2'] }),
    );
    await waitStatus('bad1', 'failed');
    await waitStatus('bad2', 'failed');

    const dry = await h.call('DELETE', '/api/v1/jobs', { status: 'failed', dry_run: true });
    expect(dry.body).toMatchObject({ dry_run: true, matched: 2, deleted: 0 });
    expect(h.sim.list('batch/v1', 'Job', 'svc-jobs')).toHaveLength(3);

    const none = await h.call('DELETE', '/api/v1/jobs', { status: 'failed', older_than_days: 1 });
    expect(none.body).toMatchObject({ matched: 0, deleted: 0 });

    const real = await h.call('DELETE', '/api/v1/jobs', { status: 'failed', namespace: 'svc-jobs' });
    expect(real.body).toMatchObject({ dry_run: false, matched: 2, deleted: 2, failed: 0 });
    expect(h.sim.list('batch/v1', 'Job', 'svc-jobs').map((j) => j.metadata.name)).toEqual(['ok1']);

    const filterless = await h.call('DELETE', '/api/v1/jobs', {});
    expect(filterless.status).toBe(422);
    expect(h.sim.list('batch/v1', 'Job', 'svc-jobs')).toHaveLength(1);
  });

  test.each([
    [{ older_than_days: 0 }, ['body', 'older_than_days']],
    [{ older_than_days: 366 }, ['body', 'older_than_days']],
    [{ status: 'gone' }, ['body', 'status']],
    [{ label_selector: 'a in (b)' }, ['body', 'label_selector']],
    [{ dry_run: 'yes' }, ['body', 'dry_run']],
  ])('bulk delete %j → 422', async (body, loc) => {
    const res = await h.call('DELETE', '/api/v1/jobs', body);
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(loc);
  });

  test('retry: a failed job gets a linked new job; a job that has not failed is 409', async () => {
    await submit(jobManifest('flaky', { command: ['sh', '-c', 'exit 1'] }), jobManifest('fine'));
    await waitStatus('flaky', 'failed');
    const retry = await h.call('POST', '/api/v1/jobs/svc-jobs/flaky/retry');
    expect(retry.status).toBe(200);
    expect(retry.body.original).toMatchObject({ name: 'flaky', namespace: 'svc-jobs' });
    expect(retry.body.job.name).toMatch(/^flaky-retry-/);
    expect(retry.body.job.labels['gco.dev/retry-of']).toBe('flaky');
    expect(retry.body.job.annotations['gco.dev/retry-of-uid']).toBe(retry.body.original.uid);

    await waitStatus('fine', 'succeeded');
    expect((await h.call('POST', '/api/v1/jobs/svc-jobs/fine/retry')).status).toBe(409);
    expect((await h.call('POST', '/api/v1/jobs/svc-jobs/missing/retry')).status).toBe(404);
  });
});
