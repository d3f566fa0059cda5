import { jobManifest, REGION, startQueueHarness, type QueueHarness } from './harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('central job queue: operations', () => {
  let h: QueueHarness;
  beforeEach(async () => {
    h = await startQueueHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  /** Submits and moves the clock on, so creation times (and the newest-first order) are distinct. */
  const queue = async (body: Record<string, unknown>) => {
    const res = await h.submit(body);
    expect(res.status).toBe(200);
    h.clock.offsetMs += 1000;
    return res.body;
  };

  test('the six operations are published with the seed operation ids', async () => {
    const doc = (await h.call('GET', '/openapi.json')).body;
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>)
      .flatMap((ops) => Object.values(ops).map((op) => op.operationId))
      .filter((id) => id.includes('queue'));
    expect(ids.sort()).toEqual(
      [
        'cancel_queued_job_api_v1_queue_jobs__job_id__delete',
        'get_queue_stats_api_v1_queue_stats_get',
        'get_queued_job_api_v1_queue_jobs__job_id__get',
        'list_queued_jobs_api_v1_queue_jobs_get',
        'poll_and_process_jobs_api_v1_queue_poll_post',
        'submit_job_to_queue_api_v1_queue_jobs_post',
      ].sort(),
    );
  });

  test('submit answers the queued record with defaults; GET returns it', async () => {
    const res = await h.submit({ manifest: jobManifest('hello'), target_region: REGION });
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(res.body).toMatchObject({
      status: 'queued',
      target_region: REGION,
      namespace: 'svc-jobs',
      priority: 0,
      labels: null,
      max_spot_price: null,
      spot_instance_type: null,
      attempts: 0,
      claimed_by: null,
      lease_expires_at: null,
      waiting_reason: null,
      k8s: null,
      cancel_reason: null,
      error: null,
      idempotency_key: null,
      idempotent_replay: false,
      manifest: jobManifest('hello'),
    });
    expect(res.body.job_id).toMatch(UUID);
    expect(res.body.created_at).toBe(res.body.updated_at);

    const got = await h.call('GET', `/api/v1/queue/jobs/${res.body.job_id}`);
    expect(got.status).toBe(200);
    const { idempotent_replay: _replay, ...record } = res.body;
    expect(got.body).toEqual(record);
  });

  test('the manifest namespace wins over the request namespace; labels and spot fields are stored', async () => {
    const body = await queue({
      manifest: jobManifest('ns', { namespace: 'default' }),
      target_region: 'eu-west-1',
      namespace: 'svc-jobs',
      priority: 70,
      labels: { team: 'ml', run: '7' },
      max_spot_price: 0.4,
      spot_instance_type: 'g5.xlarge',
    });
    expect(body).toMatchObject({
      namespace: 'default',
      priority: 70,
      labels: { team: 'ml', run: '7' },
      max_spot_price: 0.4,
      spot_instance_type: 'g5.xlarge',
    });
  });

  test.each([
    ['missing fields', {}, [['body', 'manifest'], 'missing'], [['body', 'target_region'], 'missing']],
    ['priority above 100', { priority: 101 }, [['body', 'priority'], 'less_than_equal']],
    ['priority below 0', { priority: -1 }, [['body', 'priority'], 'greater_than_equal']],
    ['priority not an integer', { priority: 1.5 }, [['body', 'priority'], 'int_type']],
    ['priority as text', { priority: '5' }, [['body', 'priority'], 'int_type']],
    [
      'max_spot_price 0',
      { max_spot_price: 0, spot_instance_type: 'g5.xlarge' },
      [['body', 'max_spot_price'], 'greater_than'],
    ],
    ['label value not a string', { labels: { a: 1 } }, [['body', 'labels', 'a'], 'string_type']],
    ['manifest not an object', { manifest: [] }, [['body', 'manifest'], 'dict_type']],
    ['unknown field', { max_spot_prise: 0.3 }, [['body', 'max_spot_prise'], 'extra_forbidden']],
    ['price without type', { max_spot_price: 0.3 }, [['body', 'spot_instance_type'], 'value_error']],
    [
      'type without price',
      { spot_instance_type: 'g5.xlarge', max_spot_price: null },
      [['body', 'max_spot_price'], 'value_error'],
    ],
    [
      'not a batch/v1 Job',
      { manifest: { ...jobManifest('x'), apiVersion: 'apps/v1', kind: 'Deployment' } },
      [['body', 'manifest', 'apiVersion'], 'literal_error'],
      [['body', 'manifest', 'kind'], 'literal_error'],
    ],
  ])('422 for %s', async (_name, overrides, ...expected) => {
    const base: Record<string, unknown> = { manifest: jobManifest('x'), target_region: REGION };
    const body = Object.keys(overrides).length === 0 ? {} : { ...base, ...overrides };
    const res = await h.submit(body);
    expect(res.status).toBe(422);
    const got = (res.body.detail as { loc: unknown[]; type: string }[]).map((d) => [d.loc, d.type]);
    expect(got).toEqual(expect.arrayContaining(expected));
    expect(got).toHaveLength(expected.length);
  });

  test('422 for a bad Idempotency-Key header', async () => {
    const res = await h.submit(
      { manifest: jobManifest('x'), target_region: REGION },
      { 'idempotency-key': 'k'.repeat(256) },
    );
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['header', 'idempotency-key'], type: 'string_too_long' });
  });

  test('a manifest the validation policy rejects is 400 with the violations, and nothing is queued', async () => {
    const manifest = jobManifest('bad');
    manifest.spec.template.spec.containers[0]!.image = 'evil.example.com/miner:latest';
    const res = await h.submit({ manifest, target_region: REGION, namespace: 'kube-system' });
    expect(res.status).toBe(400);
    expect(res.body.detail.message).toMatch(/violates the validation policy/);
    const rules = (res.body.detail.violations as { rule: string }[]).map((v) => v.rule).sort();
    expect(rules).toEqual(['namespace_allowed', 'trusted_registry']);
    expect((await h.call('GET', '/api/v1/queue/stats')).body.total).toBe(0);
  });

  test('GET and DELETE of unknown jobs are 404, idempotency records included', async () => {
    await h.submit({ manifest: jobManifest('x'), target_region: REGION }, { 'idempotency-key': 'abc' });
    for (const id of ['nope', encodeURIComponent('idempotency#abc')]) {
      expect((await h.call('GET', `/api/v1/queue/jobs/${id}`)).status).toBe(404);
      const del = await h.call('DELETE', `/api/v1/queue/jobs/${id}`);
      expect(del.status).toBe(404);
      expect(del.body.detail).toMatch(/not found/);
    }
  });

  test('DELETE cancels a queued job (with a reason); repeating it is harmless; the worker never runs it', async () => {
    const job = await queue({ manifest: jobManifest('c'), target_region: REGION });
    const del = await h.call('DELETE', `/api/v1/queue/jobs/${job.job_id}?reason=not%20needed`);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ status: 'cancelled', cancel_reason: 'not needed' });
    expect(del.body.finished_at).toEqual(expect.any(String));
    const again = await h.call('DELETE', `/api/v1/queue/jobs/${job.job_id}`);
    expect([again.status, again.body.status, again.body.cancel_reason]).toEqual([
      200,
      'cancelled',
      'not needed',
    ]);

    const poll = await h.call('POST', '/api/v1/queue/poll?limit=20');
    expect(poll.status).toBe(200);
    expect(poll.body.dispatched).toEqual([]);
    expect(h.queueJobs()).toHaveLength(0);
    expect(
      (await h.call('DELETE', `/api/v1/queue/jobs/${job.job_id}?reason=${'r'.repeat(1025)}`)).status,
    ).toBe(422);
  });

  test('DELETE of a finished job is 409', async () => {
    const job = await queue({ manifest: jobManifest('done'), target_region: REGION });
    await h.call('POST', '/api/v1/queue/poll');
    await h.waitFor(async () => {
      await h.call('POST', '/api/v1/queue/poll');
      return (await h.call('GET', `/api/v1/queue/jobs/${job.job_id}`)).body.status === 'succeeded';
    });
    const del = await h.call('DELETE', `/api/v1/queue/jobs/${job.job_id}`);
    expect(del.status).toBe(409);
    expect(del.body.detail).toMatch(/is succeeded; only unclaimed queued jobs can be cancelled/);
  });

  test('list: newest first, by region or overall, status and namespace filters, cursor pages', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const job = await queue({
        manifest: jobManifest(`j${i}`, i === 4 ? { namespace: 'default' } : {}),
        target_region: i % 2 === 0 ? REGION : 'eu-west-1',
      });
      ids.push(job.job_id);
    }
    await h.call('DELETE', `/api/v1/queue/jobs/${ids[2]}`);

    const all = await h.call('GET', '/api/v1/queue/jobs');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ count: 5, limit: 100, next_cursor: null });
    expect(all.body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([...ids].reverse());
    expect(all.body.jobs[0].manifest).toBeUndefined(); // lists leave manifests out

    const east = await h.call('GET', `/api/v1/queue/jobs?target_region=${REGION}`);
    expect(east.body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([ids[4], ids[2], ids[0]]);
    const queued = await h.call('GET', `/api/v1/queue/jobs?target_region=${REGION}&status=queued`);
    expect(queued.body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([ids[4], ids[0]]);
    const ns = await h.call('GET', '/api/v1/queue/jobs?namespace=default');
    expect(ns.body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([ids[4]]);
    const cancelled = await h.call('GET', '/api/v1/queue/jobs?status=cancelled');
    expect(cancelled.body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([ids[2]]);

    // Pages of 2 overall, and pages of 1 with a filter: every job once, in order, then next_cursor null.
    for (const [query, expected] of [
      ['limit=2', [...ids].reverse()],
      [`limit=1&status=queued&target_region=${REGION}`, [ids[4], ids[0]]],
      ['limit=2&status=queued', [ids[4], ids[3], ids[1], ids[0]]],
    ] as const) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await h.call(
          'GET',
          `/api/v1/queue/jobs?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        expect(page.status).toBe(200);
        seen.push(...page.body.jobs.map((j: { job_id: string }) => j.job_id));
        cursor = page.body.next_cursor;
        pages++;
      } while (cursor && pages < 10);
      expect(seen).toEqual(expected);
      expect(pages).toBeGreaterThan(1);
    }
  });

  test.each([
    ['cursor=%%%', 'value_error'],
    ['cursor=bm90LWpzb24', 'value_error'],
    [
      `cursor=${Buffer.from('{"v":1,"pk":"idempotency#k","ca":"2024-01-01T00:00:00.000Z"}').toString('base64url')}`,
      'value_error',
    ],
    [`cursor=${'a'.repeat(2049)}`, 'string_too_long'],
  ])('list: a bad cursor is a 422 naming cursor (%#)', async (query, type) => {
    const res = await h.call('GET', `/api/v1/queue/jobs?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['query', 'cursor'], type });
  });

  test('list: a cursor only continues its own listing', async () => {
    for (let i = 0; i < 3; i++) await queue({ manifest: jobManifest(`p${i}`), target_region: REGION });
    const first = await h.call('GET', `/api/v1/queue/jobs?target_region=${REGION}&limit=1`);
    const cursor = encodeURIComponent(first.body.next_cursor as string);
    expect((await h.call('GET', `/api/v1/queue/jobs?target_region=${REGION}&cursor=${cursor}`)).status).toBe(
      200,
    );
    for (const query of [`cursor=${cursor}`, `target_region=eu-west-1&cursor=${cursor}`]) {
      const res = await h.call('GET', `/api/v1/queue/jobs?${query}`);
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', 'cursor']);
    }
  });

  test.each([
    ['limit=0', ['query', 'limit'], 'greater_than_equal'],
    ['limit=1001', ['query', 'limit'], 'less_than_equal'],
    ['status=pending', ['query', 'status'], 'enum'],
    ['regoin=us-east-1', ['query', 'regoin'], 'extra_forbidden'],
  ])('list: 422 for %s', async (query, loc, type) => {
    const res = await h.call('GET', `/api/v1/queue/jobs?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc, type });
  });

  test.each([
    ['limit=0', 'greater_than_equal'],
    ['limit=21', 'less_than_equal'],
    ['limit=x', 'int_parsing'],
  ])('poll: 422 for %s', async (query, type) => {
    const res = await h.call('POST', `/api/v1/queue/poll?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ loc: ['query', 'limit'], type });
  });

  test("poll runs one pass for this processor's region only", async () => {
    const east = await queue({ manifest: jobManifest('east'), target_region: REGION });
    const west = await queue({ manifest: jobManifest('west'), target_region: 'eu-west-1' });
    const poll = await h.call('POST', '/api/v1/queue/poll');
    expect(poll.status).toBe(200);
    expect(poll.body).toMatchObject({ region: REGION, worker_id: 'worker-main', requeued: [], failed: [] });
    expect(poll.body.dispatched.map((d: { job_id: string }) => d.job_id)).toEqual([east.job_id]);
    expect((await h.call('GET', `/api/v1/queue/jobs/${west.job_id}`)).body.status).toBe('queued');
  });

  test('job_name: the Kubernetes Job name, known at submission, shown in list and get, used by the dispatch', async () => {
    const submitted = await queue({ manifest: jobManifest('named'), target_region: REGION });
    // <manifest name>-q<the first 10 hex digits of the id>
    const expected = `named-q${String(submitted.job_id).replace(/-/g, '').slice(0, 10)}`;
    expect(submitted.job_name).toBe(expected);
    const listed = await h.call('GET', '/api/v1/queue/jobs');
    expect(listed.body.jobs.find((j: { job_id: string }) => j.job_id === submitted.job_id)?.job_name).toBe(
      expected,
    );
    const poll = await h.call('POST', '/api/v1/queue/poll');
    expect(poll.body.dispatched).toEqual([
      { job_id: submitted.job_id, k8s: expect.objectContaining({ name: expected, namespace: 'svc-jobs' }) },
    ]);
    const got = await h.call('GET', `/api/v1/queue/jobs/${submitted.job_id}`);
    expect([got.body.job_name, got.body.k8s.name]).toEqual([expected, expected]);
  });

  test('job_name of a manifest with generateName is fixed at submission and is the created Job', async () => {
    const generated = jobManifest('x') as { metadata: Record<string, unknown> };
    const { name: _name, ...metadata } = generated.metadata;
    const byPrefix = await queue({
      manifest: { ...generated, metadata: { ...metadata, generateName: 'sweep-' } },
      target_region: REGION,
    });
    expect(byPrefix.job_name).toMatch(/^sweep-q[0-9a-f]{10}$/);
    await h.call('POST', '/api/v1/queue/poll');
    expect(h.queueJobs(String(byPrefix.job_id)).map((j) => j.metadata?.name)).toEqual([byPrefix.job_name]);
  });

  test('stats count jobs by region and status, never idempotency records', async () => {
    const a = await queue({ manifest: jobManifest('a'), target_region: REGION });
    await queue({ manifest: jobManifest('b'), target_region: REGION });
    await h.submit({ manifest: jobManifest('c'), target_region: 'eu-west-1' }, { 'idempotency-key': 'k-1' });
    await h.call('DELETE', `/api/v1/queue/jobs/${a.job_id}`);

    const stats = await h.call('GET', '/api/v1/queue/stats');
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({
      total: 3,
      by_status: { queued: 2, cancelled: 1, claimed: 0, dispatched: 0, running: 0, succeeded: 0, failed: 0 },
      by_region: {
        [REGION]: { total: 2, queued: 1, cancelled: 1 },
        'eu-west-1': { total: 1, queued: 1 },
      },
    });
    expect(Object.keys(stats.body.by_region).sort()).toEqual(['eu-west-1', REGION].sort());
    expect((await h.call('GET', '/api/v1/queue/jobs')).body.count).toBe(3);
  });

  test('every queue operation requires the signed envelope', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/queue/stats'],
      ['POST', '/api/v1/queue/poll'],
      ['GET', '/api/v1/queue/jobs'],
    ] as const) {
      expect((await fetch(`${h.base}${path}`, { method })).status).toBe(403);
    }
  });
});
