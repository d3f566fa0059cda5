/** A background loop of sequential passes (never overlapping), stoppable with the in-flight pass awaited. */
import type { Logger } from 'pino';

export class PollingLoop {
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private active = false;

  /** `pass` resolves to true when more work is waiting, so the next pass starts without the pause. */
  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly pass: () => Promise<boolean>,
    private readonly logger?: Logger,
  ) {}

  get running(): boolean {
    return this.active;
  }

  start(): void {
    if (this.active) return;
    this.active = true;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.active = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.inFlight;
  }

  private schedule(delayMs: number): void {
    if (!this.active) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.inFlight = this.tick();
    }, delayMs);
  }

  private async tick(): Promise<void> {
    let more = false;
    try {
      more = await this.pass();
    } catch (error) {
      // One failed pass (API or table briefly unavailable) must not end the loop.
      this.logger?.warn({ err: error, loop: this.name }, 'background pass failed');
    }
    this.inFlight = undefined;
    this.schedule(more ? 0 : this.intervalMs);
  }
}
