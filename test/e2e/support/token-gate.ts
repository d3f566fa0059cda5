/**
 * Causality check for streaming: the sample model server produces token 2 onwards only once the client
 * has shown token 1, so a stream completes only if no hop buffers it. If a hop does buffer, the gate
 * gives up after 15 s and says so (`timedOut`), so the test fails on its assertions instead of hanging.
 */
export class TokenGate {
  /** Tokens the model server has produced so far. */
  produced = 0;
  timedOut = false;
  private open: () => void = () => undefined;
  private opened = new Promise<void>((resolve) => (this.open = resolve));

  /** The model server's `pace` option: waits for the gate before every token after the first. */
  readonly pace = async (index: number): Promise<void> => {
    if (index >= 1) {
      const timeout = new Promise<void>((resolve) =>
        setTimeout(() => {
          this.timedOut = true;
          this.open();
          resolve();
        }, 15_000).unref(),
      );
      await Promise.race([this.opened, timeout]);
    }
    this.produced = index + 1;
  };

  /** Called when the client holds token 1. */
  firstTokenSeen(): void {
    this.open();
  }

  /** Closes the gate again before the next stream. */
  reset(): void {
    this.produced = 0;
    this.timedOut = false;
    this.opened = new Promise<void>((resolve) => (this.open = resolve));
  }
}
