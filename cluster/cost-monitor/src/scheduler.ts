/**
 * The scheduled-report task: every tick it looks at the last completed aligned window and, unless this
 * replica already saw it written, claims it (WindowClaims) and writes its report. Losers skip; a window
 * still claimed by another replica is looked at again on the next tick, so a crashed winner's window is
 * taken over once its lease expires.
 */
import { errorMessage } from '../../../contracts/runtime/errors.js';
import type { MetricsSink } from '../../shared/emf-publisher.js';
import { PollingLoop } from '../../shared/polling-loop.js';
import type { WindowClaims } from './claims.js';
import { rfc3339 } from './opencost.js';
import { lastCompletedWindow, type ReportWindow } from './report.js';

export type TickOutcome =
  | 'written' // this replica wrote the report
  | 'recorded' // the object already existed (an earlier winner died before recording it); recorded now
  | 'already_written' // another replica wrote it
  | 'claimed_elsewhere' // another replica holds a live claim
  | 'up_to_date' // this replica already saw the window written
  | 'failed'; // generation or storage failed; the claim was released and the next tick retries

export interface SchedulerOptions {
  intervalMinutes: number;
  settleMinutes: number;
  claims: WindowClaims;
  /** Writes the window's report unless its object exists; `created` tells which. */
  write: (window: ReportWindow) => Promise<{ key: string; created: boolean }>;
  clock: () => Date;
  /** Time between ticks (real time). */
  tickMs?: number;
  /** The task counts as dead when no tick has finished for this long (a hung dependency). */
  staleAfterMs?: number;
  /** Told of every report this replica wrote (CostReportsWritten) or failed to write (CostReportFailures). */
  metrics?: MetricsSink;
  log?: {
    info(obj: object, msg: string): void;
    warn(obj: object, msg: string): void;
    error(obj: object, msg: string): void;
  };
}

export interface SchedulerStatus {
  running: boolean;
  alive: boolean;
  interval_minutes: number;
  settle_minutes: number;
  current_window: { start: string; end: string } | null;
  last_tick_at: string | null;
  last_outcome: TickOutcome | null;
  last_written: { window_start: string; window_end: string; key: string } | null;
  last_error: string | null;
  died: string | null;
}

const windowId = (w: ReportWindow) => `${rfc3339(w.start)}_${rfc3339(w.end)}`;

export class ReportScheduler {
  private readonly staleAfterMs: number;
  private readonly loop: PollingLoop;
  private doneWindow: string | undefined;
  private lastTickAt: Date | undefined;
  private lastOutcome: TickOutcome | undefined;
  private lastWritten: SchedulerStatus['last_written'] = null;
  private lastError: string | undefined;
  private currentWindow: ReportWindow | undefined;

  constructor(private readonly opts: SchedulerOptions) {
    const tickMs = opts.tickMs ?? 30_000;
    this.staleAfterMs = opts.staleAfterMs ?? Math.max(3 * tickMs, 5 * 60_000);
    // Failures of a window's dependencies are outcomes; anything thrown is a bug and ends the task.
    this.loop = new PollingLoop({
      name: 'scheduled-reports',
      intervalMs: tickMs,
      pass: async () => {
        await this.tick();
      },
      maxConsecutiveFailures: 1,
      ...(opts.log ? { logger: opts.log } : {}),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Stops the loop and waits for an in-flight tick to finish. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Ready-worthy: running (started, not stopped, not crashed) and ticking recently. */
  get alive(): boolean {
    return this.loop.running && performance.now() - this.loop.lastBeat <= this.staleAfterMs;
  }

  /** Why the task ended, when a tick threw. */
  private get died(): string | undefined {
    return this.loop.givenUp ? this.loop.lastError : undefined;
  }

  status(): SchedulerStatus {
    const w = this.currentWindow;
    return {
      running: this.loop.running,
      alive: this.alive,
      interval_minutes: this.opts.intervalMinutes,
      settle_minutes: this.opts.settleMinutes,
      current_window: w ? { start: rfc3339(w.start), end: rfc3339(w.end) } : null,
      last_tick_at: this.lastTickAt?.toISOString() ?? null,
      last_outcome: this.lastOutcome ?? null,
      last_written: this.lastWritten,
      last_error: this.lastError ?? null,
      died: this.died ?? null,
    };
  }

  /**
   * One pass. Failures of the window's dependencies (DynamoDB, OpenCost, S3) are outcomes; anything else
   * (a bug) propagates and ends the loop, which readiness then reports.
   */
  async tick(): Promise<TickOutcome> {
    const now = this.opts.clock();
    const window = lastCompletedWindow(now, this.opts.intervalMinutes, this.opts.settleMinutes);
    this.currentWindow = window;
    this.lastTickAt = now;
    const outcome = await this.attempt(window, now);
    this.lastOutcome = outcome;
    // Only the replica that tried to write reports it: the others' outcomes are not runs of their own.
    if (outcome === 'written' || outcome === 'recorded') {
      this.opts.metrics?.publish({ costReportsWritten: 1, costReportFailures: 0 });
    } else if (outcome === 'failed') {
      this.opts.metrics?.publish({ costReportsWritten: 0, costReportFailures: 1 });
    }
    return outcome;
  }

  private async attempt(window: ReportWindow, now: Date): Promise<TickOutcome> {
    const id = windowId(window);
    if (this.doneWindow === id) return 'up_to_date';
    const ctx = { window_start: rfc3339(window.start), window_end: rfc3339(window.end) };
    let claimed = false;
    try {
      const claim = await this.opts.claims.claim(window, now);
      if (!claim.won) {
        if (claim.status === 'written') {
          this.doneWindow = id;
          return 'already_written';
        }
        return 'claimed_elsewhere';
      }
      claimed = true;
      const { key, created } = await this.opts.write(window);
      await this.opts.claims.complete(window, key, this.opts.clock());
      this.doneWindow = id;
      this.lastWritten = { ...ctx, key };
      this.lastError = undefined;
      this.opts.log?.info({ ...ctx, key, created }, 'scheduled cost report written');
      return created ? 'written' : 'recorded';
    } catch (error) {
      this.lastError = errorMessage(error);
      this.opts.log?.warn({ ...ctx, err: error }, 'scheduled cost report failed; will retry');
      if (claimed) await this.opts.claims.release(window).catch(() => undefined);
      return 'failed';
    }
  }
}
