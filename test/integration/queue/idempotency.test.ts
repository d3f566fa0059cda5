import { requestHash } from '../../../cluster/manifest-processor/src/queue/index.js';
import { createExactlyOnce } from '../../../cluster/manifest-processor/src/queue/idempotency.js';
import { enqueuedJob, normalise } from '../../../cluster/manifest-processor/src/queue/submission.js';
import { jobManifest, REGION, startQueueHarness, type QueueHarness } from './harness.js';

describe('central job queue: exactly once with Idempotency-Key', () => {
  let h: QueueHarness;
  beforeEach(async () => {
    h = await startQueueHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  const body = (name = 'once', extra: Record<string, unknown> = {}) => ({
    manifest: jobManifest(name),
    target_region: REGION,
    ...extra,
  });

  test('20 concurrent POSTs with one key create one job, and one Kubernetes Job after polls', async () => {
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => h.submit(body(), { 'idempotency-key': 'batch-42' })),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
    const ids = new Set(replies.map((r) => r.body.job_id as string));
    expect(ids.size).toBe(1);
    const [jobId] = ids;
    // Exactly one request created it; the others are marked as replays (body and header).
    expect(replies.filter((r) => r.body.idempotent_replay === false)).toHaveLength(1);
    for (const r of replies) {
      expect(r.headers.get('idempotent-replayed')).toBe(String(r.body.idempotent_replay));
      expect(r.body.idempotency_key).toBe('batch-42');
    }
    const list = await h.call('GET', '/api/v1/queue/jobs');
    expect(list.body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([jobId]);
    expect((await h.call('GET', '/api/v1/queue/stats')).body.total).toBe(1);

    await Promise.all([h.call('POST', '/api/v1/queue/poll'), h.call('POST', '/api/v1/queue/poll')]);
    await h.call('POST', '/api/v1/queue/poll');
    expect(h.queueJobs()).toHaveLength(1);
    expect(h.queueJobs(jobId)).toHaveLength(1);

    // A replay after dispatch still answers the same (now dispatched) job.
    const later = await h.submit(body(), { 'idempotency-key': 'batch-42' });
    expect(later.body).toMatchObject({ job_id: jobId, idempotent_replay: true });
    expect(['dispatched', 'running', 'succeeded']).toContain(later.body.status);
  });

  test('defaults are part of the request: an explicit default replays the same job', async () => {
    const first = await h.submit(body(), { 'idempotency-key': 'defaults' });
    const second = await h.submit(body('once', { namespace: 'svc-jobs', priority: 0, labels: null }), {
      'idempotency-key': 'defaults',
    });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ job_id: first.body.job_id, idempotent_replay: true });
  });

  test('the same key with another body is 409 and changes nothing', async () => {
    const first = await h.submit(body('original', { priority: 10 }), { 'idempotency-key': 'reused' });
    expect(first.status).toBe(200);
    const before = (await h.call('GET', `/api/v1/queue/jobs/${first.body.job_id}`)).body;

    for (const other of [body('original', { priority: 11 }), body('changed', { priority: 10 })]) {
      const res = await h.submit(other, { 'idempotency-key': 'reused' });
      expect(res.status).toBe(409);
      expect(res.body.detail).toMatch(/already used with a different request body/);
    }
    expect((await h.call('GET', `/api/v1/queue/jobs/${first.body.job_id}`)).body).toEqual(before);
    expect((await h.call('GET', '/api/v1/queue/stats')).body.total).toBe(1);
  });

  test('without a key every POST is a new job', async () => {
    const a = await h.submit(body());
    const b = await h.submit(body());
    expect(a.body.job_id).not.toBe(b.body.job_id);
    expect((await h.call('GET', '/api/v1/queue/stats')).body.total).toBe(2);
  });

  test('a submitter that died between binding the key and writing the job is completed by the replay', async () => {
    // Step 1 of a submission that never reached step 2.
    const request = body('orphan');
    const hash = requestHash(normalise({ ...request, namespace: 'svc-jobs', priority: 0 }));
    const createdAt = new Date(h.clock.now() - 5_000).toISOString();
    const nowSeconds = Math.floor(h.clock.now() / 1000);
    expect(
      await h.store.putIdempotencyRecord(
        {
          key: 'crashed',
          request_hash: hash,
          job_id: 'job-from-dead-submitter',
          created_at: createdAt,
          expires_at: nowSeconds + 3600,
        },
        nowSeconds,
      ),
    ).toBe(true);

    const replays = await Promise.all(
      Array.from({ length: 5 }, () => h.submit(request, { 'idempotency-key': 'crashed' })),
    );
    for (const r of replays) {
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        job_id: 'job-from-dead-submitter',
        created_at: createdAt,
        status: 'queued',
        idempotent_replay: true,
      });
    }
    expect((await h.call('GET', '/api/v1/queue/stats')).body.total).toBe(1);
    expect((await h.submit(body('different'), { 'idempotency-key': 'crashed' })).status).toBe(409);
  });

  test('a refused submission leaves nothing behind: the corrected body with the same key creates the job', async () => {
    // The sequence of issue 13: out-of-range prices sent with a key, then the corrected request.
    for (const price of [1e126, 1e300, 1e-131]) {
      const refused = await h.submit(
        body('priced', { max_spot_price: price, spot_instance_type: 'm5.large' }),
        {
          'idempotency-key': 'corrected-later',
        },
      );
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0]).toMatchObject({ loc: ['body', 'max_spot_price'] });
    }
    expect(await h.store.getIdempotencyRecord('corrected-later')).toBeUndefined();
    expect((await h.call('GET', '/api/v1/queue/stats')).body.total).toBe(0);

    const corrected = await h.submit(
      body('priced', { max_spot_price: 0.5, spot_instance_type: 'm5.large' }),
      {
        'idempotency-key': 'corrected-later',
      },
    );
    expect(corrected.status).toBe(200);
    expect(corrected.body.idempotent_replay).toBe(false);
    const fetched = await h.call('GET', `/api/v1/queue/jobs/${String(corrected.body.job_id)}`);
    expect(fetched.status).toBe(200);
  });

  test('a job the table refuses after its key was bound releases the key', async () => {
    // DynamoDB (dynalite) refuses an item over 400 KB: step 2 fails after step 1 succeeded.
    const request = normalise({ ...body('huge'), namespace: 'svc-jobs', priority: 0 });
    const manifest = {
      ...request.manifest,
      metadata: { name: 'huge', annotations: { a: 'x'.repeat(450_000) } },
    };
    const hash = requestHash({ ...request, manifest });
    const build = (jobId: string, createdAt: string, key: string | null) =>
      enqueuedJob(
        { ...request, manifest, job_id: jobId, idempotency_key: key, request_hash: hash },
        createdAt,
      );
    const write = createExactlyOnce({
      store: h.store,
      key: 'released',
      hash,
      build,
      now: h.clock.now(),
      ttlHours: 24,
    });
    await expect(write).rejects.toThrow(/size/i);
    expect(await h.store.getIdempotencyRecord('released')).toBeUndefined();
    expect((await h.call('GET', '/api/v1/queue/stats')).body.total).toBe(0);
    // The key is free: a submission with it creates its job.
    const next = await h.submit(body('after-release'), { 'idempotency-key': 'released' });
    expect(next.body).toMatchObject({ idempotent_replay: false, status: 'queued' });
  });

  test('a key whose record expired binds a new job', async () => {
    const first = await h.submit(body(), { 'idempotency-key': 'old' });
    h.clock.offsetMs += 25 * 3600 * 1000; // past the 24 h window (TTL deletion may lag; the record is ignored)
    const second = await h.submit(body('other'), { 'idempotency-key': 'old' });
    expect(second.status).toBe(200);
    expect(second.body.job_id).not.toBe(first.body.job_id);
    expect(second.body.idempotent_replay).toBe(false);
  });
});
