/**
 * How the continuous worker overlaps its claims with its Kubernetes applies, against dynalite and the
 * Kubernetes API simulator:
 * - claims run one claim window ahead of the applies, and no further: with every apply slot busy, the
 *   worker holds at most one window of claimed jobs waiting for a slot (their leases renewed), and leaves
 *   the rest queued for itself later or for another worker;
 * - a submission for the worker's region that arrives while the pass's applies are still running is
 *   claimed and applied beside them, not after the slowest of them ended.
 */
import { type JobDispatcher, type QueuedJob } from '../../../cluster/manifest-processor/src/queue/index.js';
import { sleep } from '../../support/wait-for.js';
import {
  gate,
  hookedDispatcher,
  queuedTestJob,
  REGION,
  startQueueHarness,
  type QueueHarness,
} from './harness.js';

let h: QueueHarness;
/** Gates a failing test may leave shut: opened before the harness stops its workers (which wait for them). */
let gates: ReturnType<typeof gate>[] = [];
const openedAtTheEnd = () => {
  const g = gate();
  gates.push(g);
  return g;
};
beforeEach(async () => {
  h = await startQueueHarness();
});
afterEach(async () => {
  for (const g of gates) g.open();
  gates = [];
  await h.close();
});

let created = 0;
async function enqueue(name: string): Promise<QueuedJob> {
  const job = queuedTestJob(name, {
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, created++)).toISOString(),
    requestHash: 'pipeline-test',
  });
  expect(await h.store.createJob(job)).toBe(true);
  return job;
}

const statuses = async (jobs: readonly QueuedJob[]) =>
  Promise.all(jobs.map(async (job) => (await h.store.getJob(job.job_id))?.status));

test('claims run one window ahead of the applies, never more', async () => {
  const jobs: QueuedJob[] = [];
  for (let i = 0; i < 7; i++) jobs.push(await enqueue(`ahead-${i}`));
  const applies = openedAtTheEnd();
  const dispatcher = hookedDispatcher(h.realDispatcher(), { before: applies.wait });
  const worker = h.makeWorker('ahead', {
    dispatcher,
    dispatchConcurrency: 2,
    batchSize: 2,
    pollIntervalMs: 3_600_000,
  });
  worker.start();
  await applies.reached;
  // Two applies hold both slots; one more window (two jobs) is claimed and waits for a slot.
  const held = await h.waitFor(async () => {
    const now = await statuses(jobs);
    return now.filter((s) => s === 'claimed').length === 4 ? now : undefined;
  });
  expect(held).toEqual(['claimed', 'claimed', 'claimed', 'claimed', 'queued', 'queued', 'queued']);
  // It stays so while the applies hang: no window opens while a claimed job still waits for a slot.
  await sleep(300);
  expect(await statuses(jobs)).toEqual(held);

  applies.open();
  const done = await h.waitFor(async () => {
    const now = await statuses(jobs);
    return now.every((s) => s !== 'queued' && s !== 'claimed') ? now : undefined;
  });
  await worker.stop();
  expect(done.every((s) => s === 'dispatched' || s === 'running' || s === 'succeeded')).toBe(true);
  expect(h.queueJobs()).toHaveLength(7);
});

test('a job queued while the pass’s applies run is dispatched beside them, not after them', async () => {
  const slow = await enqueue('slow');
  const stuck = openedAtTheEnd();
  const real = h.realDispatcher();
  // Only the first job's apply hangs (an API server slow on that one request).
  const hooked = hookedDispatcher(real, { before: stuck.wait });
  const dispatcher: JobDispatcher = {
    apply: (job) => (job.job_id === slow.job_id ? hooked.apply(job) : real.apply(job)),
    observe: (jobs) => real.observe(jobs),
  };
  const worker = h.makeWorker('beside', { dispatcher, pollIntervalMs: 3_600_000 });
  worker.start();
  await stuck.reached;

  const late = await enqueue('late');
  worker.queued(REGION);
  const lateStatus = await h.waitFor(async () => {
    const [status] = await statuses([late]);
    return status !== 'queued' && status !== 'claimed' ? status : undefined;
  });
  expect(['dispatched', 'running', 'succeeded']).toContain(lateStatus);
  expect(await statuses([slow])).toEqual(['claimed']);

  // A submission for another region wakes nothing here and claims nothing.
  worker.queued('eu-west-1');
  stuck.open();
  await h.waitFor(async () => ((await statuses([slow]))[0] === 'claimed' ? undefined : true));
  await worker.stop();
  expect(h.queueJobs(slow.job_id)).toHaveLength(1);
  expect(h.queueJobs(late.job_id)).toHaveLength(1);
});
