/**
 * Workers that die (or stall) mid-apply. A "killed" worker is one whose apply never returns and whose
 * lease renewals have been stopped; the clock is then moved past its lease.
 */
import type { QueueHarness } from './harness.js';
import { gate, hookedDispatcher, jobManifest, REGION, startQueueHarness } from './harness.js';

const LEASE_MS = 30_000;

describe('central job queue: workers killed mid-apply lose nothing', () => {
  let h: QueueHarness;
  beforeEach(async () => {
    h = await startQueueHarness({ leaseMs: LEASE_MS });
  });
  afterEach(async () => {
    await h.close();
  });

  const get = async (jobId: string) => (await h.call('GET', `/api/v1/queue/jobs/${jobId}`)).body;
  const poll = async (limit = 5) => (await h.call('POST', `/api/v1/queue/poll?limit=${limit}`)).body;
  const queue = async (name: string, priority = 0) => {
    const res = await h.submit({ manifest: jobManifest(name), target_region: REGION, priority });
    expect(res.status).toBe(200);
    h.clock.offsetMs += 1000;
    return res.body.job_id as string;
  };

  test.each([
    ['after creating the Kubernetes Job', 'after'],
    ['before creating the Kubernetes Job', 'before'],
  ] as const)('killed %s: requeued after the lease, applied exactly once', async (_label, where) => {
    const dies = gate(); // never opened: this worker never comes back
    const doomed = h.makeWorker('worker-doomed', {
      dispatcher: hookedDispatcher(h.realDispatcher(), { [where]: dies.wait }),
    });
    const jobId = await queue('survivor');
    void doomed.pollOnce(1);
    await dies.reached;
    await doomed.stop(); // the process is gone: no more renewals
    expect(await get(jobId)).toMatchObject({ status: 'claimed', claimed_by: 'worker-doomed', attempts: 1 });
    expect(h.queueJobs(jobId)).toHaveLength(where === 'after' ? 1 : 0);

    // Before the lease runs out nobody touches the claim.
    expect(await poll()).toMatchObject({ requeued: [], dispatched: [] });

    h.clock.offsetMs += LEASE_MS + 1;
    const pass = await poll();
    expect(pass.requeued).toEqual([jobId]);
    expect(pass.dispatched.map((d: { job_id: string }) => d.job_id)).toEqual([jobId]);

    const kubeJobs = h.queueJobs(jobId);
    expect(kubeJobs).toHaveLength(1);
    const job = await get(jobId);
    expect(job).toMatchObject({ status: 'dispatched', attempts: 2, claimed_by: 'worker-main', error: null });
    expect(job.k8s.uid).toBe(kubeJobs[0]?.metadata.uid);
    await h.waitFor(async () => {
      await poll();
      return (await get(jobId)).status === 'succeeded';
    });
    expect(h.queueJobs()).toHaveLength(1);
  });

  test('a stalled worker that wakes up after losing its lease neither duplicates nor overwrites', async () => {
    const stall = gate();
    const slow = h.makeWorker('worker-slow', {
      dispatcher: hookedDispatcher(h.realDispatcher(), { after: stall.wait }),
    });
    const jobId = await queue('contested');
    const slowPass = slow.pollOnce(1);
    await stall.reached;

    h.clock.offsetMs += LEASE_MS + 1;
    const takeover = await poll();
    expect(takeover.dispatched.map((d: { job_id: string }) => d.job_id)).toEqual([jobId]);
    const after = await get(jobId);

    stall.open();
    expect((await slowPass).lost).toEqual([jobId]);
    expect(await get(jobId)).toEqual(after);
    expect(h.queueJobs(jobId)).toHaveLength(1);
  });

  test('a stalled worker whose entry was cancelled after requeue deletes the Job it created late', async () => {
    const stall = gate();
    const slow = h.makeWorker('worker-slow', {
      dispatcher: hookedDispatcher(h.realDispatcher(), { before: stall.wait }),
    });
    const jobId = await queue('late', 50);
    const slowPass = slow.pollOnce(1);
    await stall.reached;

    // The reaper requeues it; a more important job takes this pass's only slot; then it is cancelled.
    const other = await queue('busy', 100);
    h.clock.offsetMs += LEASE_MS + 1;
    const pass = await poll(1);
    expect(pass.requeued).toEqual([jobId]);
    expect(pass.dispatched.map((d: { job_id: string }) => d.job_id)).toEqual([other]);
    expect((await h.call('DELETE', `/api/v1/queue/jobs/${jobId}`)).status).toBe(200);

    stall.open();
    expect((await slowPass).lost).toEqual([jobId]);
    await h.waitFor(() => h.queueJobs(jobId).length === 0);
    expect(await get(jobId)).toMatchObject({ status: 'cancelled', k8s: null });
  });

  test('after maxAttempts expired leases the job fails with the reason', async () => {
    const dies = gate();
    const doomed = h.makeWorker('worker-doomed', {
      dispatcher: hookedDispatcher(h.realDispatcher(), { before: dies.wait }),
    });
    const reaper = h.makeWorker('worker-strict', { maxAttempts: 1 });
    const jobId = await queue('hopeless');
    void doomed.pollOnce(1);
    await dies.reached;
    await doomed.stop();

    h.clock.offsetMs += LEASE_MS + 1;
    const pass = await reaper.pollOnce(5);
    expect(pass.failed).toEqual([
      { job_id: jobId, error: 'lease of worker worker-doomed expired on attempt 1 of 1; giving up' },
    ]);
    expect(pass.dispatched).toEqual([]);
    const job = await get(jobId);
    expect(job).toMatchObject({ status: 'failed', attempts: 1, lease_expires_at: null });
    expect((await poll()).dispatched).toEqual([]);
    expect(h.queueJobs()).toHaveLength(0);
  });

  test('a working worker renews its lease while applying, so it is not reaped', async () => {
    const stall = gate();
    const busy = h.makeWorker('worker-busy', {
      leaseMs: 600, // renewed every 200 ms
      dispatcher: hookedDispatcher(h.realDispatcher(), { before: stall.wait }),
    });
    const jobId = await queue('renewed');
    const pass = busy.pollOnce(1);
    await stall.reached;
    const first = Date.parse((await get(jobId)).lease_expires_at as string);
    const renewed = await h.waitFor(async () => {
      const lease = Date.parse((await get(jobId)).lease_expires_at as string);
      return lease > first ? lease : undefined;
    });
    expect(renewed).toBeGreaterThan(first);
    expect((await poll()).requeued).toEqual([]);
    stall.open();
    expect((await pass).dispatched.map((d) => d.job_id)).toEqual([jobId]);
  });
});
