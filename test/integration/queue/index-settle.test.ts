/**
 * A submission whose job the woken pass cannot see yet: dispatch-index is a global secondary index, and
 * DynamoDB propagates writes to one asynchronously (normally within a second; GSI.html#GSI.Writes).
 * dynalite updates its indexes at once, so the lag is reproduced by a store whose index read leaves out
 * writes younger than LAG_MS. With the poll interval at an hour, only the worker's later look
 * (cluster/manifest-processor/src/queue/index-settle.ts) can dispatch the job within the test.
 */
import { performance } from 'node:perf_hooks';
import { type QueuedJob } from '../../../cluster/manifest-processor/src/queue/index.js';
import { QueueStore, type Key } from '../../../cluster/manifest-processor/src/queue/store.js';
import { INDEX_SETTLE_MS } from '../../../cluster/manifest-processor/src/queue/index-settle.js';
import { queuedTestJob, REGION, startQueueHarness, type QueueHarness } from './harness.js';

/** Shorter than INDEX_SETTLE_MS, as DynamoDB's propagation normally is. */
const LAG_MS = 300;

/** dispatch-index as DynamoDB may serve it right after a write. */
class LaggingIndexStore extends QueueStore {
  private readonly writtenAt = new Map<string, number>();
  readonly indexReads: number[] = [];

  override async createJob(job: QueuedJob): Promise<boolean> {
    const created = await super.createJob(job);
    this.writtenAt.set(job.job_id, performance.now());
    return created;
  }

  override async dispatchable(region: string, now: number, pageSize: number, startKey?: Key) {
    const page = await super.dispatchable(region, now, pageSize, startKey);
    const visibleUntil = performance.now() - LAG_MS;
    this.indexReads.push(performance.now());
    return {
      ...page,
      jobs: page.jobs.filter((job) => (this.writtenAt.get(job.job_id) ?? 0) <= visibleUntil),
    };
  }
}

let h: QueueHarness;
beforeEach(async () => {
  h = await startQueueHarness();
});
afterEach(async () => {
  await h.close();
});

const newJob = (name: string): QueuedJob => queuedTestJob(name, { requestHash: 'index-settle-test' });

test('a job the woken pass missed in dispatch-index is dispatched once the index settled, not at the next poll', async () => {
  const store = new LaggingIndexStore(h.dynamo.client(), h.dynamo.env.JOB_QUEUE_TABLE ?? '');
  const worker = h.makeWorker('settle', { store, pollIntervalMs: 3_600_000 });
  worker.start();
  await h.waitFor(() => store.indexReads.length > 0); // the start pass found the queue empty

  const job = newJob('settle');
  expect(await store.createJob(job)).toBe(true);
  const queuedAt = performance.now();
  worker.queued(REGION);
  const status = await h.waitFor(async () => {
    const current = (await h.store.getJob(job.job_id))?.status;
    return current !== 'queued' && current !== 'claimed' ? current : undefined;
  }, 10_000);
  expect(['dispatched', 'running', 'succeeded']).toContain(status);
  // The woken pass read the index before the job was in it; the read that found it came a settle time later.
  const reads = store.indexReads.filter((at) => at >= queuedAt);
  expect(reads[0]! - queuedAt).toBeLessThan(LAG_MS);
  expect(reads.at(-1)! - queuedAt).toBeGreaterThanOrEqual(INDEX_SETTLE_MS);
  expect(h.queueJobs(job.job_id)).toHaveLength(1);
});

test('a worker that stopped looks no more: the later look is cancelled with it', async () => {
  const store = new LaggingIndexStore(h.dynamo.client(), h.dynamo.env.JOB_QUEUE_TABLE ?? '');
  const worker = h.makeWorker('stopped', { store, pollIntervalMs: 3_600_000 });
  worker.start();
  await h.waitFor(() => store.indexReads.length > 0);
  const job = newJob('stopped');
  expect(await store.createJob(job)).toBe(true);
  worker.queued(REGION);
  await worker.stop();
  const readsAtStop = store.indexReads.length;
  await new Promise((resolve) => setTimeout(resolve, INDEX_SETTLE_MS + 200));
  expect(store.indexReads).toHaveLength(readsAtStop);
  expect((await h.store.getJob(job.job_id))?.status).toBe('queued');
});
