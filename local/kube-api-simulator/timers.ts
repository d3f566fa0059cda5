import { errorMessage } from '../../contracts/runtime/errors.js';
// Every timer the simulated controllers start goes through here, so close() can stop them all and
// a deleted pod can cancel its own pending transitions.

export class Timers {
  private readonly all = new Set<NodeJS.Timeout>();
  private readonly byOwner = new Map<string, Set<NodeJS.Timeout>>();
  private closed = false;

  /** Runs fn after ms; `owner` (e.g. a pod uid) lets cancel(owner) drop it early. */
  after(ms: number, fn: () => void, owner?: string): void {
    if (this.closed) return;
    const handle = setTimeout(
      () => {
        this.forget(handle, owner);
        try {
          fn();
        } catch (err) {
          // A failing simulated controller step must never take the process down.
          process.emitWarning(`kube-api-simulator timer failed: ${errorMessage(err)}`);
        }
      },
      Math.max(0, ms),
    );
    this.all.add(handle);
    if (owner) {
      let set = this.byOwner.get(owner);
      if (!set) {
        set = new Set();
        this.byOwner.set(owner, set);
      }
      set.add(handle);
    }
  }

  cancel(owner: string): void {
    const set = this.byOwner.get(owner);
    if (!set) return;
    for (const h of set) {
      clearTimeout(h);
      this.all.delete(h);
    }
    this.byOwner.delete(owner);
  }

  pending(owner: string): boolean {
    return (this.byOwner.get(owner)?.size ?? 0) > 0;
  }

  isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    this.closed = true;
    for (const h of this.all) clearTimeout(h);
    this.all.clear();
    this.byOwner.clear();
  }

  private forget(handle: NodeJS.Timeout, owner?: string): void {
    this.all.delete(handle);
    if (owner) {
      const set = this.byOwner.get(owner);
      set?.delete(handle);
      if (set && set.size === 0) this.byOwner.delete(owner);
    }
  }
}
