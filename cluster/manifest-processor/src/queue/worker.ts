/**
 * The queue worker of one region. A pass (pollOnce) does three things, each through conditional writes
 * so any number of workers (replicas, POST /queue/poll, a worker presumed dead) can run at once:
 *
 *   1. reap:     claims whose lease expired go back to the queue (or fail after maxAttempts);
 *   2. sync:     dispatched/running jobs of the region follow their Kubernetes Job;
 *   3. dispatch: the best queued jobs of the region (dispatch-index: priority, then age) are claimed with
 *                a lease, applied to Kubernetes idempotently while the lease is renewed, then marked
 *                dispatched. Spot-gated jobs whose price is too high stay queued with a waiting_reason.
 *
 * Claims happen in windows: one read of dispatch-index from its head, then conditional claims of the
 * first ungated candidates in that order. Applies run concurrently (at most dispatchConcurrency), so
 * Jobs of one window may reach Kubernetes in any order; windows themselves follow each other in order.
 * The continuous loop drains: it opens windows back to back while they find work (each as soon as every
 * job claimed before has an apply slot, so claims run one window ahead of the applies), takes jobs
 * submitted while its applies run in further windows beside them, and pauses only when the queue is
 * empty or everything left is gated.
 */
import { IndexSettleWake } from './index-settle.js';
import { Semaphore } from '../../../../contracts/runtime/semaphore.js';
import { backoffDelayMs, type BackoffPolicy } from '../../../../contracts/runtime/backoff.js';
import type { Log } from '../../../../contracts/runtime/logging.js';
import { silentServiceLogger } from '../../../shared/logger.js';
import { errorMessage } from '../../../../contracts/runtime/errors.js';
import { PollingLoop } from '../../../shared/polling-loop.js';
import type { ValidationPolicy } from '../policy/index.js';
import { QUEUE_DEFAULTS } from './config.js';
import { DispatchError, type JobDispatcher } from './dispatcher.js';
import type { K8sRef, QueuedJob } from './record.js';
import type { QueueStatus } from './schemas.js';
import { spotWaitReason, type SpotPriceSource } from './spot-prices.js';
import {
  claimOf,
  dispatchedAttributes,
  finishedAttributes,
  queuedAttributes,
  type Key,
  type QueueStore,
} from './store.js';

export interface QueueWorkerOptions {
  store: QueueStore;
  dispatcher: JobDispatcher;
  spotPrices: SpotPriceSource;
  /**
   * This region's validation policy, checked again right before applying: the job may have been queued
   * through another region's processor, whose policy can differ.
   */
  policy?: ValidationPolicy;
  /** The region this worker serves (its cluster). */
  region: string;
  workerId: string;
  leaseMs: number;
  maxAttempts: number;
  pollIntervalMs: number;
  /** Jobs one claim window of the continuous loop claims (one read of dispatch-index from its head). */
  batchSize: number;
  /** Kubernetes applies in flight at once (default QUEUE_DEFAULTS.dispatchConcurrency). */
  dispatchConcurrency?: number;
  spotRecheckMs: number;
  retentionDays: number;
  maxConsecutiveFailures: number;
  /** dispatch-index items read per Query (default 25). */
  pageSize?: number;
  /** Clock (epoch ms); tests move it to expire leases. */
  now?: () => number;
  logger?: Log;
}

export interface PassResult {
  region: string;
  worker_id: string;
  /** Expired claims returned to the queue. */
  requeued: string[];
  dispatched: { job_id: string; k8s: K8sRef }[];
  waiting: { job_id: string; reason: string }[];
  /** Jobs that went back to the queue after a transient dispatch error. */
  retrying: { job_id: string; error: string }[];
  failed: { job_id: string; error: string }[];
  /** Claims this worker lost while applying (another worker finishes them). */
  lost: string[];
  synced: { job_id: string; status: QueueStatus }[];
  /** Problems that skipped a step of this pass without failing it (e.g. the status sync). */
  errors: string[];
}

/** Upper bound of dispatch-index pages read in one pass (spot-gated jobs are skipped, not counted). */
const MAX_DISPATCH_PAGES = 20;
const MAX_REAP = 100;
const MAX_ACTIVE = 1000;
/** Retry back-off after a transient dispatch error: 5 s, 10 s, 20 s… at most 5 min. */
const RETRY_BACKOFF: BackoffPolicy = { baseMs: 5_000, capMs: 300_000, jitter: 'none' };

interface Lease {
  stop(): void;
  readonly lost: boolean;
}

/** Pause after the n-th failed continuous pass in a row: the poll interval doubled each time, at most 1 min. */
const failureBackoffMs = (pollIntervalMs: number, failures: number): number =>
  backoffDelayMs(failures, { baseMs: pollIntervalMs, capMs: 60_000, jitter: 'none' });

const emptyResult = (region: string, workerId: string): PassResult => ({
  region,
  worker_id: workerId,
  requeued: [],
  dispatched: [],
  waiting: [],
  retrying: [],
  failed: [],
  lost: [],
  synced: [],
  errors: [],
});

/** What one claimed job ended as; merged into the pass result in claim order, not completion order. */
type Outcome = Pick<PassResult, 'dispatched' | 'retrying' | 'failed' | 'lost'>;

interface DrainLimits {
  /** Most jobs to claim in this dispatch step. */
  maxClaims: number;
  /** Most jobs one window claims. */
  window: number;
  /** performance.now() after which no new window opens. */
  until?: number;
}

export class QueueWorker {
  readonly region: string;
  readonly workerId: string;
  private readonly opts: QueueWorkerOptions;
  private readonly now: () => number;
  private readonly log: Log;
  private readonly renewals = new Set<NodeJS.Timeout>();
  private readonly loop: PollingLoop;
  private readonly concurrency: number;
  /** Set by stop(): a drain opens no further window. */
  private stopping = false;
  /** performance.now() of the continuous loop's latest reap and sync. */
  private housekeptAt = -Infinity;
  /** queued() was called since the latest claim window began reading dispatch-index. */
  private arrived = false;
  /** Set while a drain waits for its applies: queued() ends the wait (arrivalBeforeIdle). */
  private onArrival: (() => void) | undefined;
  /** The later look at dispatch-index a submission also gets (index-settle.ts: GSI reads may lag). */
  private readonly indexSettle = new IndexSettleWake(() => this.loop.wake());

  constructor(opts: QueueWorkerOptions) {
    this.opts = opts;
    this.region = opts.region;
    this.workerId = opts.workerId;
    this.now = opts.now ?? Date.now;
    this.log = opts.logger ?? silentServiceLogger();
    this.concurrency = opts.dispatchConcurrency ?? QUEUE_DEFAULTS.dispatchConcurrency;
    this.loop = new PollingLoop({
      name: 'queue-worker',
      intervalMs: opts.pollIntervalMs,
      // true = work is left: the next pass starts at once instead of after the poll interval.
      pass: () => this.drainPass(),
      backoffMs: (failures) => failureBackoffMs(opts.pollIntervalMs, failures),
      maxConsecutiveFailures: opts.maxConsecutiveFailures,
      logger: this.log,
    });
  }

  /** True while the continuous loop runs; false before start(), after stop() or once the loop gave up. */
  get running(): boolean {
    return this.loop.running;
  }

  get lastError(): string | undefined {
    const last = this.loop.lastError;
    return this.loop.givenUp
      ? `${this.loop.consecutiveFailures} passes failed in a row; last: ${last ?? ''}`
      : last;
  }

  /** Starts continuous passes (CENTRAL_QUEUE_WORKER_ENABLED). */
  start(): void {
    this.stopping = false;
    this.loop.start();
  }

  /**
   * A job was queued for `region`: when that is this worker's region and the continuous loop runs, its
   * next pass starts now instead of after the poll interval (the interval stays the pace when nothing
   * says work arrived, e.g. jobs queued through another region's processor), and one more pass follows
   * once DynamoDB has normally put the job in dispatch-index (index-settle.ts).
   */
  queued(region: string): void {
    if (region !== this.region) return;
    this.arrived = true;
    this.onArrival?.();
    this.loop.wake();
    if (this.loop.running) this.indexSettle.arrived();
  }

  /** Stops the loop after its current window and cancels lease renewals still scheduled. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.indexSettle.cancel();
    await this.loop.stop();
    for (const timer of this.renewals) clearInterval(timer);
    this.renewals.clear();
  }

  /** One pass (POST /queue/poll): reap expired claims, sync running jobs, one window of up to `limit` jobs. */
  async pollOnce(limit: number): Promise<PassResult> {
    const result = emptyResult(this.region, this.workerId);
    await this.housekeeping(result);
    await this.dispatch({ maxClaims: limit, window: limit }, result);
    return result;
  }

  /**
   * One pass of the continuous loop: reap and sync (at most once per poll interval), then windows back
   * to back for at most one poll interval (so reaping and status sync keep their pace during a long
   * drain). Passes woken by submissions (queued()) can follow each other closely; reading every active
   * job again at each of them would make a drain cost grow with the square of its size. True when work
   * is left.
   */
  private async drainPass(): Promise<boolean> {
    const result = emptyResult(this.region, this.workerId);
    const started = performance.now();
    if (started - this.housekeptAt >= this.opts.pollIntervalMs) {
      this.housekeptAt = started;
      await this.housekeeping(result);
    }
    const until = performance.now() + this.opts.pollIntervalMs;
    return this.dispatch({ maxClaims: Infinity, window: this.opts.batchSize, until }, result);
  }

  private async housekeeping(result: PassResult): Promise<void> {
    await this.reap(result);
    try {
      await this.sync(result);
    } catch (error) {
      // Jobs keep running in Kubernetes; the next pass syncs them. Dispatching must not wait for that.
      result.errors.push(`status sync: ${errorMessage(error)}`);
      this.log.warn({ err: error }, 'queue status sync failed');
    }
  }

  // ---- 1. reaper -------------------------------------------------------------------------------------

  private async reap(result: PassResult): Promise<void> {
    const expired = await this.opts.store.expiredClaims(this.region, this.now(), MAX_REAP);
    // Independent conditional writes: run them side by side (one after another they held the pass, and
    // the dispatch behind it, for a round trip per job).
    type Reaped = { failed: { job_id: string; error: string } } | { requeued: string } | undefined;
    const outcomes = await this.eachConcurrently(expired, async (job): Promise<Reaped> => {
      // Only this exact lease: a renewal or a new claim in the meantime makes the write fail.
      const expect = { ...claimOf(job), lease_expires_at: job.lease_expires_at ?? 0 };
      const why = `lease of worker ${job.claimed_by ?? '?'} expired on attempt ${job.attempts} of ${this.opts.maxAttempts}`;
      if (job.attempts >= this.opts.maxAttempts) {
        const error = `${why}; giving up`;
        const done = await this.opts.store.tryTransitionWithoutRead(job.job_id, {
          expect,
          set: { ...finishedAttributes('failed', this.now(), this.opts.retentionDays), error },
          now: this.now(),
        });
        return done ? { failed: { job_id: job.job_id, error } } : undefined;
      }
      const requeued = await this.opts.store.tryTransitionWithoutRead(job.job_id, {
        expect,
        set: { ...queuedAttributes(job), error: `${why}; requeued`, next_check_at: null },
        now: this.now(),
      });
      if (!requeued) return undefined;
      this.log.info({ job_id: job.job_id, attempts: job.attempts }, 'expired claim requeued');
      return { requeued: job.job_id };
    });
    for (const outcome of outcomes) {
      if (outcome && 'failed' in outcome) result.failed.push(outcome.failed);
      else if (outcome) result.requeued.push(outcome.requeued);
    }
  }

  /**
   * `fn` over every item, at most dispatchConcurrency at once; the results in the items' order. Waits for
   * every call before rethrowing the first failure, so no write of this pass outlives it.
   */
  private async eachConcurrently<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
    const slots = new Semaphore(this.concurrency);
    const settled = await Promise.allSettled(items.map((item) => slots.run(() => fn(item))));
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.map((s) => (s as PromiseFulfilledResult<R>).value);
  }

  // ---- 2. status sync --------------------------------------------------------------------------------

  private async sync(result: PassResult): Promise<void> {
    const active = await this.opts.store.activeJobs(this.region, MAX_ACTIVE);
    if (active.length === 0) return;
    const observed = await this.opts.dispatcher.observe(active);
    // Writes only on a change of state, and reads nothing back: the new status is the one written.
    const moved = await this.eachConcurrently(active, async (job): Promise<QueueStatus | undefined> => {
      const seen = observed.get(job.job_id);
      if (!seen || !job.k8s) return undefined;
      const now = this.now();
      const expect = { status: job.status, k8s_uid: job.k8s.uid };
      if (seen.state === 'running' && job.status === 'dispatched') {
        const done = await this.opts.store.tryTransitionWithoutRead(job.job_id, {
          expect,
          set: { status: 'running', started_at: new Date(now).toISOString() },
          now,
        });
        return done ? 'running' : undefined;
      }
      if (seen.state === 'succeeded' || seen.state === 'failed' || seen.state === 'missing') {
        const status = seen.state === 'succeeded' ? 'succeeded' : 'failed';
        const done = await this.opts.store.tryTransitionWithoutRead(job.job_id, {
          expect,
          set: {
            ...finishedAttributes(status, now, this.opts.retentionDays),
            ...(job.started_at ? {} : { started_at: new Date(now).toISOString() }),
            ...(seen.message ? { error: seen.message } : {}),
          },
          now,
        });
        return done ? status : undefined;
      }
      return undefined;
    });
    active.forEach((job, i) => {
      const status = moved[i];
      if (status) result.synced.push({ job_id: job.job_id, status });
    });
  }

  // ---- 3. dispatch -----------------------------------------------------------------------------------

  /**
   * Claims window after window and applies what it claimed, at most `concurrency` applies at once.
   * A window opens when it can start applying at once (enough free slots), reads dispatch-index from
   * its head (so a more important job queued meanwhile goes first) and claims up to `window` jobs.
   * Returns true when it stopped with work left (time is up), false when the queue ran dry or is gated.
   */
  private async dispatch(limits: DrainLimits, result: PassResult): Promise<boolean> {
    const slots = new Semaphore(this.concurrency);
    const outcomes: Promise<Outcome>[] = [];
    // Jobs claimed here: an index entry that still lists one (GSIs lag) is not claimed again.
    const mine = new Set<string>();
    let more = false;
    // The first apply that threw (a table error while marking): the pass fails once the others ended.
    let failure: { error: unknown } | undefined;
    // One wait for "no apply in flight" shared by every arrivalBeforeIdle of this dispatch (a fresh one
    // once it resolved), so waits that ended by an arrival leave no listener behind on the semaphore.
    let idleNow: Promise<false> | undefined;
    const whenIdle = () =>
      (idleNow ??= slots.idle().then(() => {
        idleNow = undefined;
        return false as const;
      }));
    try {
      while (outcomes.length < limits.maxClaims) {
        // The loop's pass ends on time or on stop(); POST /queue/poll (no `until`) always runs its window.
        if (limits.until !== undefined && (this.stopping || performance.now() >= limits.until)) {
          more = true;
          break;
        }
        const want = Math.min(limits.window, limits.maxClaims - outcomes.length);
        // The next window opens once every job claimed so far has an apply slot (room(0): nobody waits
        // for one), so claims run at most one window ahead of the applies and a window's index read and
        // claims overlap the applies of the one before it. Jobs waiting for a slot keep their lease renewed.
        await slots.room(0);
        this.arrived = false;
        const window = await this.claimWindow(want, mine, result, (job) => {
          const outcome: Outcome = { dispatched: [], retrying: [], failed: [], lost: [] };
          const lease = this.renewLease(job);
          outcomes.push(
            slots
              .run(() => this.applyClaimed(job, lease, outcome))
              .then(
                () => outcome,
                (error: unknown) => {
                  failure ??= { error };
                  return outcome;
                },
              ),
          );
        });
        // A window that did not fill read the whole claimable queue: nothing is left for now. The
        // continuous loop still takes a submission for its region that comes before the applies in
        // flight ended, in another window beside them, rather than in a new pass after all of them.
        if (window.claimed < want && !window.contended) {
          if (limits.until === undefined || !(await this.arrivalBeforeIdle(whenIdle))) break;
        }
      }
    } finally {
      await slots.idle();
      for (const outcome of await Promise.all(outcomes)) {
        result.dispatched.push(...outcome.dispatched);
        result.retrying.push(...outcome.retrying);
        result.failed.push(...outcome.failed);
        result.lost.push(...outcome.lost);
      }
    }
    if (failure) throw failure.error;
    return more;
  }

  /**
   * True when queued() was called for this region since the latest window began its read, or is called
   * before every apply in flight ended (`whenIdle`); false once they all ended without it.
   */
  private async arrivalBeforeIdle(whenIdle: () => Promise<false>): Promise<boolean> {
    if (this.arrived) return true;
    const arrival = new Promise<boolean>((resolve) => (this.onArrival = () => resolve(true)));
    try {
      return await Promise.race([arrival, whenIdle()]);
    } finally {
      this.onArrival = undefined;
    }
  }

  /**
   * One claim window: dispatch-index from its head, spot gates on the way, conditional claims of up to
   * `want` candidates in index order (concurrently: they are independent items), each handed to `launch`
   * as soon as its chunk is claimed. `contended` tells that a claim was lost (another worker, a cancel),
   * so the queue may still hold work.
   */
  private async claimWindow(
    want: number,
    mine: Set<string>,
    result: PassResult,
    launch: (job: QueuedJob) => void,
  ): Promise<{ claimed: number; contended: boolean }> {
    let claimed = 0;
    let contended = false;
    let startKey: Key | undefined;
    for (let page = 0; page < MAX_DISPATCH_PAGES && claimed < want; page++) {
      // Twice the window (room for lost claims), not a full page: every item read carries a manifest.
      const { jobs, nextKey } = await this.opts.store.dispatchable(
        this.region,
        this.now(),
        Math.min(this.opts.pageSize ?? 25, Math.max(2 * want, 10)),
        startKey,
      );
      let chunk: { job: QueuedJob; spotPrice: number | undefined }[] = [];
      const claimChunk = async () => {
        const won = await Promise.allSettled(chunk.map((c) => this.claim(c.job, c.spotPrice)));
        chunk = [];
        let error: { reason: unknown } | undefined;
        for (const claim of won) {
          if (claim.status === 'rejected') error ??= claim;
          else if (claim.value) {
            claimed++;
            mine.add(claim.value.job_id);
            launch(claim.value); // even when a sibling claim failed: this one is ours now
          } else contended = true; // another worker claimed it, or it was cancelled
        }
        if (error) throw error.reason;
      };
      for (const candidate of jobs) {
        if (claimed >= want) break;
        if (mine.has(candidate.job_id)) continue;
        let spotPrice: number | undefined;
        if (candidate.max_spot_price !== null && candidate.spot_instance_type !== null) {
          const gate = await this.spotGate(candidate);
          if (!gate.open) {
            if (gate.reason) result.waiting.push({ job_id: candidate.job_id, reason: gate.reason });
            continue;
          }
          spotPrice = gate.price;
        }
        chunk.push({ job: candidate, spotPrice });
        if (claimed + chunk.length >= want) await claimChunk();
      }
      if (chunk.length > 0) await claimChunk();
      startKey = nextKey;
      if (!startKey) break;
    }
    return { claimed, contended };
  }

  private claim(candidate: QueuedJob, spotPrice: number | undefined): Promise<QueuedJob | undefined> {
    const now = this.now();
    return this.opts.store.tryTransition(candidate.job_id, {
      expect: { status: 'queued', claimed_by: null },
      set: {
        status: 'claimed',
        claimed_by: this.workerId,
        lease_region: this.region,
        lease_expires_at: now + this.opts.leaseMs,
        dispatch_region: null,
        dispatch_order: null,
        waiting_reason: null,
        next_check_at: null,
        ...(spotPrice !== undefined ? { last_spot_price: spotPrice } : {}),
      },
      incrementAttempts: true,
      now,
      // Read back only what the claim set (attempts, lease…): the manifest came with the index read.
      current: candidate,
    });
  }

  /** Whether a spot-gated job may go now; when not, records why and when to look again. */
  private async spotGate(
    job: QueuedJob,
  ): Promise<{ open: true; price: number } | { open: false; reason: string | undefined }> {
    const type = job.spot_instance_type ?? '';
    const max = job.max_spot_price ?? 0;
    let price: number | undefined;
    let reason: string;
    try {
      price = await this.opts.spotPrices.currentPrice(this.region, type);
      if (price !== undefined && price <= max) return { open: true, price };
      reason = spotWaitReason(price, max, type, this.region);
    } catch (error) {
      reason = `spot price of ${type} in ${this.region} could not be read: ${errorMessage(error)}`;
    }
    const now = this.now();
    const waiting = await this.opts.store.tryTransitionWithoutRead(job.job_id, {
      expect: { status: 'queued', claimed_by: null },
      set: {
        waiting_reason: reason,
        next_check_at: now + this.opts.spotRecheckMs,
        last_spot_price: price ?? null,
      },
      now,
    });
    return { open: false, reason: waiting ? reason : undefined };
  }

  /** Applies a claimed job under its lease (renewed since the claim); the outcome goes to `result`. */
  private async applyClaimed(job: QueuedJob, lease: Lease, result: Outcome): Promise<void> {
    if (lease.lost) {
      // Taken over while waiting for an apply slot: the new owner applies it.
      lease.stop();
      result.lost.push(job.job_id);
      return;
    }
    const violations = this.opts.policy?.check([job.manifest], job.namespace) ?? [];
    if (violations.length > 0) {
      lease.stop();
      const reason = `rejected by the validation policy of ${this.region}: ${violations.map((v) => v.message).join('; ')}`;
      await this.applyFailed(job, new DispatchError(reason, true), lease.lost, result);
      return;
    }
    let ref: K8sRef;
    try {
      ref = await this.opts.dispatcher.apply(job);
    } catch (error) {
      lease.stop();
      await this.applyFailed(job, error, lease.lost, result);
      return;
    }
    lease.stop();
    const now = this.now();
    const marked = await this.opts.store.tryTransitionWithoutRead(job.job_id, {
      expect: claimOf(job),
      set: dispatchedAttributes(ref, this.region, now),
      now,
    });
    if (marked) {
      result.dispatched.push({ job_id: job.job_id, k8s: ref });
      this.log.info({ job_id: job.job_id, k8s: ref, attempts: job.attempts }, 'queued job dispatched');
      return;
    }
    result.lost.push(job.job_id);
    await this.withdrawIfOrphaned(job, ref);
  }

  /**
   * Our lease ran out while applying. Usually another worker has (or will) adopt the Job we created; only
   * when the queue entry finished without it (cancelled after being requeued, or failed) is the Job an
   * orphan that nobody tracks, and we delete it again.
   */
  private async withdrawIfOrphaned(job: QueuedJob, ref: K8sRef): Promise<void> {
    const current = await this.opts.store.getJob(job.job_id);
    this.log.warn({ job_id: job.job_id, now: current?.status }, 'lease lost while applying');
    if (!current || !this.opts.dispatcher.withdraw) return;
    if ((current.status === 'cancelled' || current.status === 'failed') && current.k8s?.uid !== ref.uid) {
      await this.opts.dispatcher.withdraw(ref).catch((error: unknown) => {
        this.log.error({ err: error, job_id: job.job_id, k8s: ref }, 'could not delete an orphaned Job');
      });
    }
  }

  private async applyFailed(job: QueuedJob, error: unknown, leaseLost: boolean, result: Outcome) {
    const failure = error instanceof DispatchError ? error : new DispatchError(errorMessage(error), false);
    if (leaseLost) {
      result.lost.push(job.job_id);
      return;
    }
    const now = this.now();
    if (failure.permanent || job.attempts >= this.opts.maxAttempts) {
      const reason = failure.permanent
        ? failure.message
        : `${failure.message} (attempt ${job.attempts} of ${this.opts.maxAttempts}; giving up)`;
      const done = await this.opts.store.tryTransitionWithoutRead(job.job_id, {
        expect: claimOf(job),
        set: { ...finishedAttributes('failed', now, this.opts.retentionDays), error: reason },
        now,
      });
      if (done) result.failed.push({ job_id: job.job_id, error: reason });
      this.log.warn({ job_id: job.job_id, error: reason }, 'queued job failed to dispatch');
      return;
    }
    const backoff = backoffDelayMs(job.attempts - 1, RETRY_BACKOFF);
    const reason = `${failure.message} (attempt ${job.attempts} of ${this.opts.maxAttempts}; retrying)`;
    const back = await this.opts.store.tryTransitionWithoutRead(job.job_id, {
      expect: claimOf(job),
      set: { ...queuedAttributes(job), error: reason, next_check_at: now + backoff },
      now,
    });
    if (back) result.retrying.push({ job_id: job.job_id, error: reason });
  }

  /**
   * Renews the claim every leaseMs/3 from the claim until the job is marked (also while it waits for an
   * apply slot); `lost` turns true if the claim was taken.
   */
  private renewLease(job: QueuedJob): Lease {
    const state = { lost: false, stopped: false };
    const timer = setInterval(
      () => {
        const now = this.now();
        this.opts.store
          .tryTransitionWithoutRead(job.job_id, {
            expect: claimOf(job),
            set: { lease_expires_at: now + this.opts.leaseMs },
            now,
          })
          .then((renewed) => {
            if (!renewed && !state.stopped) {
              state.lost = true;
              stop();
            }
          })
          .catch((error: unknown) => {
            this.log.warn({ err: error, job_id: job.job_id }, 'lease renewal failed');
          });
      },
      Math.max(Math.floor(this.opts.leaseMs / 3), 10),
    );
    timer.unref();
    this.renewals.add(timer);
    const stop = () => {
      state.stopped = true;
      clearInterval(timer);
      this.renewals.delete(timer);
    };
    return {
      stop,
      get lost() {
        return state.lost;
      },
    };
  }
}
