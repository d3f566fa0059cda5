/**
 * Runs reconcile passes on an interval and on demand: trigger() (an API write) starts a pass at once,
 * or right after the one in flight. Passes never overlap; a failed pass is logged and retried after the
 * interval (a table or API server briefly away must not end the loop). stop() awaits the pass in flight
 * and gives the leader Lease up.
 */
import type { Logger } from 'pino';
import { errorMessage } from '../../../../contracts/runtime/errors.js';
import type { LeaderElector } from './leader.js';
import type { InferenceReconciler, PassReport } from './reconcile.js';

export interface ReconcileLoopOptions {
  reconciler: Pick<InferenceReconciler, 'pass'>;
  elector: Pick<LeaderElector, 'release'>;
  intervalMs: number;
  logger?: Logger;
}

export class ReconcileLoop {
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private again = false;
  private active = false;
  private failure: string | undefined;
  private passes = 0;

  constructor(private readonly opts: ReconcileLoopOptions) {}

  get running(): boolean {
    return this.active;
  }

  /** Message of the latest failed pass, cleared by a successful one. */
  get lastError(): string | undefined {
    return this.failure;
  }

  /** Passes completed (failed ones included): how a test waits for "one more pass". */
  get completedPasses(): number {
    return this.passes;
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.schedule(0);
  }

  /** Reconciles now: a record changed. */
  trigger(): void {
    if (!this.active) return;
    if (this.inFlight) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.active = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
    await this.opts.elector.release();
  }

  private schedule(delayMs: number): void {
    if (!this.active) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.inFlight = this.tick();
    }, delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.again = false;
    let report: PassReport | undefined;
    try {
      report = await this.opts.reconciler.pass();
      this.failure = undefined;
    } catch (error) {
      this.failure = errorMessage(error);
      this.opts.logger?.warn({ err: error }, 'inference reconcile pass failed');
    }
    this.passes += 1;
    this.inFlight = undefined;
    const changed = report !== undefined && (report.applied > 0 || report.deleted > 0);
    // Objects just written or deleting: look again soon rather than a whole interval later.
    this.schedule(this.again ? 0 : changed ? Math.min(this.opts.intervalMs, 1_000) : this.opts.intervalMs);
  }
}
