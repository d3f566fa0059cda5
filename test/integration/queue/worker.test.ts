import {
  DispatchError,
  QUEUE_JOB_LABEL,
  QueueStore,
} from '../../../cluster/manifest-processor/src/queue/index.js';
import { loadPolicyConfig, ValidationPolicy } from '../../../cluster/manifest-processor/src/policy/index.js';
import { SIM_ANNOTATIONS } from '../../../local/kube-api-simulator/index.js';
import type { QueueHarness } from './harness.js';
import { gate, hookedDispatcher, jobManifest, REGION, startQueueHarness } from './harness.js';
import { POLICY_ENV } from '../../support/cluster-fixtures.js';

/** A manifest whose pod runs for `runningMs` on the simulator (so `running` can be observed). */
function slowJob(name: string, runningMs: number, command?: string[]) {
  const manifest = jobManifest(name, command ? { command } : {});
  Object.assign(manifest.spec.template, {
    metadata: { annotations: { [SIM_ANNOTATIONS.runningMs]: String(runningMs) } },
  });
  return manifest;
}

describe('central job queue: worker', () => {
  let h: QueueHarness;
  afterEach(async () => {
    await h.close();
  });

  const get = async (jobId: string) => (await h.call('GET', `/api/v1/queue/jobs/${jobId}`)).body;
  const poll = async (limit = 5) => {
    const res = await h.call('POST', `/api/v1/queue/poll?limit=${limit}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const queue = async (body: Record<string, unknown>) => {
    const res = await h.submit({ target_region: REGION, ...body });
    expect(res.status).toBe(200);
    h.clock.offsetMs += 1000;
    return res.body.job_id as string;
  };
  /** Polls until the job reaches `status` (the simulator's kubelet moves it on its own clock). */
  const pollUntil = (jobId: string, status: string) =>
    h.waitFor(async () => {
      await poll();
      const job = await get(jobId);
      return job.status === status ? job : undefined;
    });

  describe('with the default harness', () => {
    beforeEach(async () => {
      h = await startQueueHarness();
    });

    test('dispatch applies the Job under a deterministic name; status sync follows it to succeeded', async () => {
      // Running for 3 s: one status-sync pass must land inside the window even on a loaded machine (a full
      // jest run at load 6–10 once missed a 600 ms window and saw the Job only as succeeded).
      const jobId = await queue({ manifest: slowJob('train', 3_000), labels: { team: 'ml' } });
      const first = await poll();
      expect(first.dispatched).toHaveLength(1);
      const { k8s } = first.dispatched[0];
      expect(k8s.name).toBe(`train-q${jobId.replace(/-/g, '').slice(0, 10)}`);
      expect(k8s.namespace).toBe('svc-jobs');

      const [kubeJob] = h.queueJobs(jobId);
      expect(kubeJob?.metadata.uid).toBe(k8s.uid);
      expect(kubeJob?.metadata.name).toBe(k8s.name);
      expect(kubeJob?.metadata.labels).toMatchObject({ app: 'demo', [QUEUE_JOB_LABEL]: jobId });

      const dispatched = await get(jobId);
      expect(dispatched).toMatchObject({ status: 'dispatched', attempts: 1, claimed_by: 'worker-main', k8s });
      expect(dispatched.lease_expires_at).toBeNull();
      expect(dispatched.dispatched_at).toEqual(expect.any(String));

      const running = await pollUntil(jobId, 'running');
      expect(running.started_at).toEqual(expect.any(String));
      const done = await pollUntil(jobId, 'succeeded');
      expect(done).toMatchObject({ status: 'succeeded', error: null, k8s });
      expect(done.finished_at).toEqual(expect.any(String));
      expect(h.queueJobs()).toHaveLength(1);
    });

    test('a Job that fails in Kubernetes ends failed with the reason', async () => {
      const jobId = await queue({ manifest: jobManifest('crash', { command: ['sh', '-c', 'exit 3'] }) });
      const done = await pollUntil(jobId, 'failed');
      expect(done.error).toMatch(/^Kubernetes Job failed: BackoffLimitExceeded/);
    });

    test('a Job deleted behind the queue ends failed', async () => {
      const jobId = await queue({ manifest: slowJob('gone', 60_000) });
      const { dispatched } = await poll();
      await h.realDispatcher().withdraw(dispatched[0].k8s);
      const done = await pollUntil(jobId, 'failed');
      expect(done.error).toMatch(/was deleted before it finished/);
    });

    test('a manifest Kubernetes rejects fails at once (no retries)', async () => {
      const manifest = jobManifest('invalid');
      Object.assign(manifest.spec.template.spec, { restartPolicy: 'Always' });
      const jobId = await queue({ manifest });
      const pass = await poll();
      expect(pass.failed).toEqual([{ job_id: jobId, error: expect.stringMatching(/^Invalid: /) }]);
      expect(await get(jobId)).toMatchObject({ status: 'failed', attempts: 1 });
      expect(h.queueJobs()).toHaveLength(0);
      expect((await poll()).dispatched).toEqual([]);
    });

    test('a queued manifest with a misspelt field fails at once, naming the field (fieldValidation=Strict)', async () => {
      const manifest = jobManifest('typo');
      Object.assign(manifest.spec, { backofLimit: 2 });
      const jobId = await queue({ manifest });
      const pass = await poll();
      expect(pass.failed).toEqual([
        { job_id: jobId, error: expect.stringContaining('unknown field "spec.backofLimit"') },
      ]);
      expect(h.queueJobs()).toHaveLength(0);
    });

    test("the executing region's policy is checked again before applying", async () => {
      const strict = new ValidationPolicy(loadPolicyConfig({ ...POLICY_ENV, ALLOWED_NAMESPACES: 'default' }));
      const worker = h.makeWorker('worker-strict', { policy: strict });
      const jobId = await queue({ manifest: jobManifest('elsewhere-ok') });
      const pass = await worker.pollOnce(5);
      expect(pass.failed).toEqual([
        {
          job_id: jobId,
          error: expect.stringMatching(/^rejected by the validation policy of us-east-1: .*namespace/),
        },
      ]);
      expect(await get(jobId)).toMatchObject({ status: 'failed', attempts: 1 });
      expect(h.queueJobs()).toHaveLength(0);
    });

    test('a transient dispatch error puts the job back with a back-off; the next attempt dispatches it', async () => {
      let failures = 1;
      const worker = h.makeWorker('worker-flaky', {
        dispatcher: hookedDispatcher(h.realDispatcher(), {
          before: async () => {
            if (failures-- > 0) throw new DispatchError('ServiceUnavailable: etcd is busy', false);
          },
        }),
      });
      const jobId = await queue({ manifest: jobManifest('flaky') });
      const first = await worker.pollOnce(5);
      expect(first.retrying).toEqual([
        { job_id: jobId, error: expect.stringMatching(/etcd is busy \(attempt 1 of 3; retrying\)/) },
      ]);
      const waiting = await get(jobId);
      expect(waiting).toMatchObject({ status: 'queued', attempts: 1, claimed_by: null });
      expect(waiting.next_check_at).toEqual(expect.any(String));
      expect((await worker.pollOnce(5)).dispatched).toEqual([]); // still backing off

      h.clock.offsetMs += 60_000;
      const second = await worker.pollOnce(5);
      expect(second.dispatched.map((d) => d.job_id)).toEqual([jobId]);
      expect(await get(jobId)).toMatchObject({ status: 'dispatched', attempts: 2, error: null });
    });

    test('cancelling a claimed job is 409; the claim then completes', async () => {
      const stuck = gate();
      const worker = h.makeWorker('worker-b', {
        dispatcher: hookedDispatcher(h.realDispatcher(), { before: stuck.wait }),
      });
      const jobId = await queue({ manifest: jobManifest('claimed') });
      const pass = worker.pollOnce(1);
      await stuck.reached;

      const claimed = await get(jobId);
      expect(claimed).toMatchObject({ status: 'claimed', claimed_by: 'worker-b', attempts: 1 });
      expect(Date.parse(claimed.lease_expires_at)).toBe(Date.parse(claimed.updated_at) + 30_000);
      const del = await h.call('DELETE', `/api/v1/queue/jobs/${jobId}?reason=too%20late`);
      expect(del.status).toBe(409);
      expect(del.body.detail).toMatch(
        /is claimed by worker worker-b; only unclaimed queued jobs can be cancelled/,
      );

      stuck.open();
      expect((await pass).dispatched.map((d) => d.job_id)).toEqual([jobId]);
      expect(await get(jobId)).toMatchObject({ status: 'dispatched', cancel_reason: null });
      expect(h.queueJobs(jobId)).toHaveLength(1);
    });

    test('a failing status sync does not hold back dispatching', async () => {
      const real = h.realDispatcher();
      const worker = h.makeWorker('worker-blind', {
        dispatcher: {
          apply: (job) => real.apply(job),
          observe: async () => {
            throw new Error('connect ECONNREFUSED');
          },
        },
      });
      const first = await queue({ manifest: jobManifest('first') });
      expect((await worker.pollOnce(5)).dispatched.map((d) => d.job_id)).toEqual([first]);
      const second = await queue({ manifest: jobManifest('second') });
      const pass = await worker.pollOnce(5);
      expect(pass.errors).toEqual(['status sync: connect ECONNREFUSED']);
      expect(pass.dispatched.map((d) => d.job_id)).toEqual([second]);
    });

    test('continuous mode dispatches and syncs on its own; stop() ends it', async () => {
      const worker = h.makeWorker('worker-loop');
      expect(worker.running).toBe(false);
      worker.start();
      expect(worker.running).toBe(true);
      const jobId = await queue({ manifest: jobManifest('auto') });
      await h.waitFor(async () => (await get(jobId)).status === 'succeeded');
      await worker.stop();
      expect(worker.running).toBe(false);
    });

    test('the worker task dies after repeated failed passes, and reports it (readiness)', async () => {
      const broken = new QueueStore(h.dynamo.client(), 'no-such-table');
      const worker = h.makeWorker('worker-broken', { store: broken });
      worker.start();
      await h.waitFor(() => !worker.running);
      expect(worker.lastError).toMatch(/3 passes failed in a row/);
    });
  });

  describe('priority', () => {
    beforeEach(async () => {
      h = await startQueueHarness({ pageSize: 2 });
    });

    test('queued low, high, mid are dispatched high, mid, low across dispatch-index pages', async () => {
      const ids: Record<string, string> = {};
      for (const [name, priority] of [
        ['low-1', 10],
        ['high-1', 90],
        ['mid-1', 50],
        ['low-2', 10],
        ['high-2', 90],
        ['mid-2', 50],
      ] as const) {
        ids[name] = await queue({ manifest: jobManifest(name), priority });
      }
      // Another region's jobs (even more important) are not this worker's.
      await queue({ manifest: jobManifest('elsewhere'), priority: 100, target_region: 'eu-west-1' });

      const order: string[] = [];
      for (let i = 0; i < 3; i++) {
        const pass = await poll(1);
        order.push(...pass.dispatched.map((d: { job_id: string }) => d.job_id));
      }
      order.push(...(await poll(5)).dispatched.map((d: { job_id: string }) => d.job_id));
      expect((await poll(5)).dispatched).toEqual([]);
      const byId = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
      expect(order.map((id) => byId[id])).toEqual(['high-1', 'high-2', 'mid-1', 'mid-2', 'low-1', 'low-2']);
    });
  });
});
