/**
 * Graceful shutdown: on SIGTERM/SIGINT fail readiness first (the ALB and kube-proxy stop sending new
 * requests), wait the drain period, then close — Fastify finishes in-flight requests and onClose hooks
 * stop background work. A hard deadline guarantees the process exits.
 */
export interface Closable {
  startDraining?(): void;
  close(): Promise<void>;
}

export interface ShutdownOptions {
  /** Time between failing readiness and closing listeners (the ALB deregistration takes this long to notice). */
  drainMs?: number;
  /** Exit even if closing hangs (default 30 s; inference streams need ~15 min: SHUTDOWN_TIMEOUT_MS, listen.ts). */
  timeoutMs?: number;
  log?: (message: string) => void;
  exit?: (code: number) => void;
}

export function onShutdownSignals(
  targets: readonly Closable[],
  opts: ShutdownOptions = {},
): () => Promise<void> {
  const drainMs = opts.drainMs ?? 0;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const log = opts.log ?? ((m: string) => process.stderr.write(`${m}\n`));
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let stopping: Promise<void> | undefined;

  const shutdown = (): Promise<void> => {
    stopping ??= (async () => {
      const deadline = setTimeout(() => {
        log(`shutdown did not finish within ${timeoutMs} ms; exiting`);
        exit(1);
      }, timeoutMs);
      deadline.unref();
      for (const t of targets) t.startDraining?.();
      if (drainMs > 0) await new Promise((r) => setTimeout(r, drainMs));
      const results = await Promise.allSettled(targets.map((t) => t.close()));
      clearTimeout(deadline);
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      for (const f of failed) log(`shutdown error: ${String(f.reason)}`);
      exit(failed.length > 0 ? 1 : 0);
    })();
    return stopping;
  };

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      log(`${signal} received, shutting down`);
      void shutdown();
    });
  }
  return shutdown;
}
