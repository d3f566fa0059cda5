/**
 * Keeps the latest cluster snapshot fresh: a background loop refreshes it every interval, and a reader
 * that finds it older than the interval (loop stalled, API slow) refreshes it first. Refreshes are
 * single-flight, so a burst of requests costs one round of Kubernetes API calls.
 */
import { errorMessage } from '../../../contracts/runtime/errors.js';
import { PollingLoop } from '../../shared/polling-loop.js';
import type { ClusterSnapshot } from './snapshot.js';

export type SnapshotState =
  | { ok: true; snapshot: ClusterSnapshot; at: Date }
  | { ok: false; error: string; at: Date; lastGood: ClusterSnapshot | null };

export class SnapshotCache {
  private state: SnapshotState | undefined;
  private inFlight: Promise<SnapshotState> | undefined;
  private readonly loop: PollingLoop;

  constructor(
    private readonly collect: () => Promise<ClusterSnapshot>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {
    // refresh() records a failure in the state instead of throwing, so the loop never backs off.
    this.loop = new PollingLoop({
      name: 'snapshot-refresh',
      intervalMs,
      pass: async () => {
        await this.refresh();
      },
    });
  }

  /** True while the background loop is scheduled (readiness). */
  get running(): boolean {
    return this.loop.running;
  }

  start(): void {
    this.loop.start();
  }

  /** Stops the background loop; a refresh in flight completes on its own. */
  stop(): void {
    void this.loop.stop();
  }

  /** The latest state, refreshed first when it is missing or older than the interval. */
  async current(): Promise<SnapshotState> {
    const state = this.state;
    if (state && this.now() - state.at.getTime() <= this.intervalMs) return state;
    return this.refresh();
  }

  refresh(): Promise<SnapshotState> {
    this.inFlight ??= (async () => {
      try {
        const snapshot = await this.collect();
        this.state = { ok: true, snapshot, at: new Date(this.now()) };
      } catch (error) {
        this.onError(error);
        const lastGood = this.state?.ok ? this.state.snapshot : (this.state?.lastGood ?? null);
        this.state = {
          ok: false,
          error: errorMessage(error),
          at: new Date(this.now()),
          lastGood,
        };
      } finally {
        this.inFlight = undefined;
      }
      return this.state;
    })();
    return this.inFlight;
  }
}
