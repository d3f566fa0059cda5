/**
 * Keeps the latest cluster snapshot fresh: a background loop refreshes it every interval, and a reader
 * that finds it older than the interval (loop stalled, API slow) refreshes it first. Refreshes are
 * single-flight, so a burst of requests costs one round of Kubernetes API calls.
 */
import type { ClusterSnapshot } from './snapshot.js';

export type SnapshotState =
  | { ok: true; snapshot: ClusterSnapshot; at: Date }
  | { ok: false; error: string; at: Date; lastGood: ClusterSnapshot | null };

export class SnapshotCache {
  private state: SnapshotState | undefined;
  private inFlight: Promise<SnapshotState> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;

  constructor(
    private readonly collect: () => Promise<ClusterSnapshot>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** True while the background loop is scheduled (readiness). */
  get running(): boolean {
    return !this.stopped;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const loop = async () => {
      await this.refresh();
      if (!this.stopped) this.timer = setTimeout(() => void loop(), this.intervalMs);
    };
    void loop();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
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
          error: error instanceof Error ? error.message : String(error),
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
