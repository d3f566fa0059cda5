/**
 * One more look at dispatch-index once a submission has had time to reach it.
 *
 * dispatch-index is a global secondary index, and every read of one is eventually consistent: DynamoDB
 * propagates a table write to its GSIs asynchronously, normally within a second
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.Writes,
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.ReadConsistency.html). So the
 * pass a submission wakes at once may read the index before the new job is in it, and that job would then
 * wait for the next poll (QUEUE_POLL_INTERVAL_MS, 5 s by default). This schedules a wake `settleMs` after
 * the latest submission of a burst: one extra index read per burst, not one per submission.
 *
 * dynalite updates its indexes synchronously, so the local platform never needs this wake; the test
 * reproduces the lag with a store whose index read leaves out recent writes.
 */

/** How long after a submission DynamoDB has normally put it in a GSI (see above). */
export const INDEX_SETTLE_MS = 1_000;

export class IndexSettleWake {
  private timer: NodeJS.Timeout | undefined;
  private lastArrivalAt = 0;

  /** `wake` runs `settleMs` after the latest arrival (and, in a long burst, at least every `settleMs`). */
  constructor(
    private readonly wake: () => void,
    private readonly settleMs = INDEX_SETTLE_MS,
  ) {}

  /** A job was written: make sure a wake comes `settleMs` after this arrival. */
  arrived(): void {
    this.lastArrivalAt = performance.now();
    if (this.timer === undefined) this.schedule(this.settleMs);
  }

  cancel(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.wake();
      // Arrivals while the timer ran: their own settle time is not over yet, so one more wake follows.
      const owed = this.lastArrivalAt + this.settleMs - performance.now();
      if (owed > 0) this.schedule(owed);
    }, delayMs);
    this.timer.unref();
  }
}
