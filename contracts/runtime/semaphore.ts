/**
 * A counting semaphore for async tasks: at most `size` run at once, the others wait in FIFO order for a
 * slot. The queue worker applies Kubernetes Jobs through one; mapLimit is the common use.
 */
export class Semaphore {
  private active = 0;
  private readonly queued: (() => void)[] = [];
  private listeners: (() => void)[] = [];

  constructor(readonly size: number) {}

  /** Runs `task` as soon as a slot is free; settles with it. */
  run<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.active++;
        task()
          .then(resolve, reject)
          .finally(() => {
            this.active--;
            this.queued.shift()?.();
            const listeners = this.listeners;
            this.listeners = [];
            for (const listener of listeners) listener();
          });
      };
      if (this.active < this.size) start();
      else this.queued.push(start);
    });
  }

  /** Waits until at least `n` slots (at most all of them) are free and nobody waits for one. */
  async room(n: number): Promise<void> {
    const wanted = Math.min(n, this.size);
    while (this.size - this.active - this.queued.length < wanted) {
      await new Promise<void>((resolve) => this.listeners.push(resolve));
    }
  }

  idle(): Promise<void> {
    return this.room(this.size);
  }
}

/** `fn` over every item, at most `limit` at once; the results in the items' order. */
export function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const slots = new Semaphore(Math.max(1, limit));
  return Promise.all(items.map((item) => slots.run(() => fn(item))));
}
