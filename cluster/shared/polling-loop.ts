import { errorMessage } from '../../contracts/runtime/errors.js';
/**
 * The background loop of every service: sequential passes (never overlapping), a pause between them, a
 * back-off after failures, optionally a limit of failures in a row after which the loop gives up (its
 * owner's readiness then fails), and a stop that awaits the pass in flight. Timers never keep the
 * process alive on their own.
 */
import type { Log } from '../../contracts/runtime/logging.js';

type PollingLoopLogger = Pick<Log, 'warn' | 'error'>;

export interface PollingLoopOptions {
  /** Names the loop in log lines. */
  name: string;
  /** Pause between passes. */
  intervalMs: number;
  /** One pass; resolving to true means more work is waiting, so the next pass starts without the pause. */
  pass: () => Promise<boolean | void>;
  /** Pause after the n-th failed pass in a row (default: intervalMs). */
  backoffMs?: (failures: number) => number;
  /** Failed passes in a row after which the loop stops for good (default: it never gives up). */
  maxConsecutiveFailures?: number;
  logger?: PollingLoopLogger;
}

export class PollingLoop {
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private active = false;
  private failures = 0;
  private failure: string | undefined;
  private gaveUp = false;
  private beat = 0;
  /** wake() came during a pass. */
  private woken = false;
  /** performance.now() when the current pause began, and when its pass is due. */
  private pauseStartedAt = 0;
  private dueAt = 0;

  constructor(private readonly opts: PollingLoopOptions) {}

  /** True from start() until stop(), or until the loop gave up. */
  get running(): boolean {
    return this.active;
  }

  /** Message of the latest failed pass (kept after later successes). */
  get lastError(): string | undefined {
    return this.failure;
  }

  /** Failed passes in a row so far (the count that made the loop give up, once it has). */
  get consecutiveFailures(): number {
    return this.failures;
  }

  /** True once the loop stopped because too many passes failed in a row. */
  get givenUp(): boolean {
    return this.gaveUp;
  }

  /** performance.now() when the loop started or its latest pass ended: how an owner tells a hung pass. */
  get lastBeat(): number {
    return this.beat;
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.gaveUp = false;
    this.beat = performance.now();
    this.schedule(0);
  }

  /** Stops scheduling passes and waits for the one in flight. */
  async stop(): Promise<void> {
    this.active = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
  }

  /**
   * Runs the next pass now instead of after the pause (new work arrived); during a pass, right after it,
   * so work that arrived after the pass looked is not left for the next interval. No effect when stopped.
   * While backing off after failures, the pause shrinks to the first back-off step (counted from when the
   * pause began), not to zero: new work is a reason to look again soon, not evidence the failure cleared,
   * so a failing dependency still sees at most one pass per first step however many wakes come. Without
   * this, work submitted during a long back-off (up to its cap) waited for all of it.
   */
  wake(): void {
    if (!this.active) return;
    if (this.inFlight) {
      this.woken = true;
      return;
    }
    const due = this.failures > 0 ? this.pauseStartedAt + this.firstBackoffMs() : performance.now();
    if (this.timer && due >= this.dueAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.schedule(Math.max(0, due - performance.now()));
  }

  /** The pause after one failed pass: where a woken back-off resumes. */
  private firstBackoffMs(): number {
    return this.opts.backoffMs?.(1) ?? this.opts.intervalMs;
  }

  private schedule(delayMs: number): void {
    if (!this.active) return;
    this.dueAt = performance.now() + delayMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.inFlight = this.tick();
    }, delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    let delay = this.opts.intervalMs;
    this.woken = false;
    try {
      if ((await this.opts.pass()) === true) delay = 0;
      this.failures = 0;
    } catch (error) {
      this.failures += 1;
      this.failure = errorMessage(error);
      const fields = { err: error, loop: this.opts.name, failures: this.failures };
      const limit = this.opts.maxConsecutiveFailures;
      if (limit !== undefined && this.failures >= limit) {
        this.active = false;
        this.gaveUp = true;
        this.opts.logger?.error(fields, 'background loop stopped after repeated failures');
      } else {
        // One failed pass (API or table briefly unavailable) must not end the loop.
        this.opts.logger?.warn(fields, 'background pass failed');
        delay = this.opts.backoffMs?.(this.failures) ?? delay;
      }
    }
    this.beat = performance.now();
    this.inFlight = undefined;
    this.pauseStartedAt = this.beat;
    if (this.woken) delay = this.failures === 0 ? 0 : Math.min(delay, this.firstBackoffMs());
    this.schedule(delay);
  }
}

/** A task whose passes a PollingLoop runs: start/stop/running for its owner's lifecycle and readiness. */
export abstract class PolledTask {
  protected abstract readonly loop: PollingLoop;

  get running(): boolean {
    return this.loop.running;
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
