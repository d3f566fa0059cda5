/**
 * Two continuous workers (different worker ids, same region, same table and cluster) drain 500 queued
 * jobs, and 20 more important ones that arrive mid-drain, against dynalite and the Kubernetes API
 * simulator.
 *
 * Claim window: one worker's read of dispatch-index from its head plus the claims it makes before that
 * worker's next read from the head (or the end of the drain). The priority guarantee checked here:
 * for every job B claimed in a window W, every job A ahead of B in dispatch order (higher priority, or
 * equal and older) that was queued before W began had its claim begun — by either worker — before W
 * ended. A more important job that was already waiting is never left for a window after the one that
 * took a less important job. Order is measured with a logical clock (a counter), never wall time.
 */
import { QueueStore, type QueuedJob } from '../../../cluster/manifest-processor/src/queue/index.js';
import { dispatchOrder } from '../../../cluster/manifest-processor/src/queue/record.js';
import type { Key, Transition } from '../../../cluster/manifest-processor/src/queue/store.js';
import { hookedDispatcher, queuedTestJob, startQueueHarness, type QueueHarness } from './harness.js';

const JOBS = 500;
const LATE = 20;
const PRIORITIES = [0, 10, 50, 90] as const;

let clock = 0;
const tick = () => ++clock;

interface Window {
  worker: string;
  start: number;
  /** The tick of this worker's next window (Infinity for its last one). */
  end: number;
}

/** The table as one worker sees it, recording its windows and claims on the shared logical clock. */
class RecordingStore extends QueueStore {
  readonly windows: Window[] = [];
  constructor(
    h: QueueHarness,
    readonly worker: string,
    private readonly claims: Map<string, { window: Window; begun: number }>,
    private readonly onDispatched: () => void,
  ) {
    super(h.dynamo.client(), h.store.tableName);
  }

  override async dispatchable(region: string, now: number, pageSize: number, startKey?: Key) {
    if (!startKey) {
      const start = tick();
      const previous = this.windows.at(-1);
      if (previous) previous.end = start;
      this.windows.push({ worker: this.worker, start, end: Infinity });
    }
    return super.dispatchable(region, now, pageSize, startKey);
  }

  override async tryTransition(jobId: string, t: Transition): Promise<QueuedJob | undefined> {
    const begun = tick();
    const window = this.windows.at(-1);
    const out = await super.tryTransition(jobId, t);
    if (out && t.set.status === 'claimed' && window) this.claims.set(jobId, { window, begun });
    return out;
  }

  override async tryTransitionWithoutRead(jobId: string, t: Transition): Promise<boolean> {
    const done = await super.tryTransitionWithoutRead(jobId, t);
    if (done && t.set.status === 'dispatched') this.onDispatched();
    return done;
  }
}

const queuedJob = (name: string, priority: number, createdAt: string): QueuedJob =>
  queuedTestJob(name, { priority, createdAt, requestHash: 'drain-test' });

describe('central job queue: two workers drain 500 jobs', () => {
  let h: QueueHarness;
  beforeEach(async () => {
    h = await startQueueHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  test('every job is applied exactly once, dispatched, and claimed in priority order per window', async () => {
    const queuedAt = new Map<string, number>();
    const jobs = new Map<string, QueuedJob>();
    const enqueue = async (batch: QueuedJob[]) => {
      for (const job of batch) {
        expect(await h.store.createJob(job)).toBe(true);
        queuedAt.set(job.job_id, tick());
        jobs.set(job.job_id, job);
      }
    };
    const base = Date.UTC(2026, 0, 1);
    await enqueue(
      Array.from({ length: JOBS }, (_, i) =>
        queuedJob(`drain-${i}`, PRIORITIES[(i * 7) % PRIORITIES.length]!, new Date(base + i).toISOString()),
      ),
    );

    const claims = new Map<string, { window: Window; begun: number }>();
    const applied = new Map<string, number>();
    let dispatched = 0;
    let late: Promise<void> | undefined;
    let allDispatched!: () => void;
    const done = new Promise<void>((resolve) => (allDispatched = resolve));
    const onDispatched = () => {
      dispatched++;
      // Mid-drain, more important work arrives (newer, so only priority puts it first).
      if (dispatched === 100) {
        late = enqueue(
          Array.from({ length: LATE }, (_, i) =>
            queuedJob(`late-${i}`, 100, new Date(base + JOBS + i).toISOString()),
          ),
        );
      }
      if (dispatched === JOBS + LATE) allDispatched();
    };
    // Counts the applies the workers make through the real dispatcher.
    const counting = hookedDispatcher(h.realDispatcher(), {});
    const real = counting.apply;
    counting.apply = (job) => {
      applied.set(job.job_id, (applied.get(job.job_id) ?? 0) + 1);
      return real(job);
    };
    const stores = ['drain-a', 'drain-b'].map((id) => new RecordingStore(h, id, claims, onDispatched));
    const workers = stores.map((store) =>
      h.makeWorker(store.worker, { store, dispatcher: counting, dispatchConcurrency: 4, batchSize: 5 }),
    );
    for (const worker of workers) worker.start();
    await done;
    await late;
    for (const worker of workers) await worker.stop();

    // Applied exactly once: one apply per job, one Kubernetes Job per job, and it is the recorded one.
    expect(applied.size).toBe(JOBS + LATE);
    expect([...applied.values()].every((n) => n === 1)).toBe(true);
    const kubeJobs = h.queueJobs();
    expect(kubeJobs).toHaveLength(JOBS + LATE);
    const uidByJob = new Map(
      kubeJobs.map((k) => [
        (k.metadata.labels as Record<string, string>)['gco.dev/queue-job-id'] ?? '',
        k.metadata.uid,
      ]),
    );
    for (const jobId of jobs.keys()) {
      const record = await h.store.getJob(jobId);
      expect(record).toBeDefined();
      expect(['dispatched', 'running', 'succeeded']).toContain(record?.status);
      expect(record?.attempts).toBe(1);
      expect(record?.k8s?.uid).toBe(uidByJob.get(jobId));
    }

    // Both workers took part, each through its own claims.
    expect(claims.size).toBe(JOBS + LATE);
    const byWorker = new Map<string, number>();
    for (const { window } of claims.values())
      byWorker.set(window.worker, (byWorker.get(window.worker) ?? 0) + 1);
    expect([...byWorker.keys()].sort()).toEqual(['drain-a', 'drain-b']);

    // Priority within claim windows (see the header).
    const order = [...jobs.values()].sort((a, b) => dispatchOrder(a).localeCompare(dispatchOrder(b)));
    const violations: string[] = [];
    for (let j = 0; j < order.length; j++) {
      const b = order[j]!;
      const { window } = claims.get(b.job_id)!;
      for (let i = 0; i < j; i++) {
        const a = order[i]!;
        if (queuedAt.get(a.job_id)! >= window.start) continue; // A arrived after W began
        const claimA = claims.get(a.job_id)!;
        if (claimA.begun >= window.end) {
          violations.push(`${a.job_id} (priority ${a.priority}) after ${b.job_id} (priority ${b.priority})`);
        }
      }
    }
    expect({ count: violations.length, first: violations.slice(0, 5) }).toEqual({ count: 0, first: [] });
  }, 300_000);

  test('the continuous worker drains past its window without waiting the poll interval; poll stays one pass', async () => {
    const base = Date.UTC(2026, 0, 1);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const job = queuedJob(`burst-${i}`, 0, new Date(base + i).toISOString());
      await h.store.createJob(job);
      ids.push(job.job_id);
    }
    // POST /queue/poll: one window of `limit` jobs, as before.
    const pass = await h.call('POST', '/api/v1/queue/poll?limit=5');
    expect(pass.body.dispatched.map((d: { job_id: string }) => d.job_id)).toEqual(ids.slice(0, 5));

    // An hour between passes: only draining gets the other 25 out (5 per window).
    const worker = h.makeWorker('drain-burst', { pollIntervalMs: 3_600_000, batchSize: 5 });
    worker.start();
    const statuses = await h.waitFor(async () => {
      const all = await Promise.all(ids.map((id) => h.store.getJob(id)));
      return all.every((j) => j?.status !== 'queued' && j?.status !== 'claimed') ? all : undefined;
    }, 60_000);
    await worker.stop();
    expect(statuses.filter((j) => j?.claimed_by === 'drain-burst')).toHaveLength(25);
    expect(h.queueJobs()).toHaveLength(30);
  }, 120_000);
});
