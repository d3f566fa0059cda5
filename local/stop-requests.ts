/**
 * What asks the `npm start` process to stop: SIGINT, SIGTERM, SIGHUP, or the process that started it
 * going away.
 *
 * `npm start` runs `exec node bin/local.mjs` (package.json): the shell npm runs a script with
 * replaces itself with the platform, so npm's own process is this process's parent. npm forwards SIGINT
 * and SIGTERM to the script's process and waits for it to exit (@npmcli/run-script, lib/signal-manager.js:
 * https://github.com/npm/run-script/blob/main/lib/signal-manager.js), but dash (`/bin/sh` on Debian and
 * Ubuntu) neither forwards a signal to the command it waits for nor execs a lone `-c` command itself, so
 * without `exec` a SIGTERM to npm ended only npm and the shell and a SIGINT did nothing.
 *
 * A parent killed by SIGKILL cannot forward anything: the kernel then re-parents this process (to init
 * or the nearest subreaper, PR_SET_CHILD_SUBREAPER in prctl(2)), which `process.ppid` shows. Polling it
 * is the portable form of Linux's PR_SET_PDEATHSIG, which Node does not expose.
 */

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** How often the parent is checked: a stop within half a second of the parent's death. */
const PARENT_POLL_MS = 500;

export type StopReason = (typeof STOP_SIGNALS)[number] | 'parent exited';

/**
 * Calls `stop` once for the first stop request. `parent` is the parent's pid when the process started
 * (bin/local.mjs records it before loading anything; a parent that died meanwhile is a request at once).
 * The parent watch is skipped for a process started by init (detached: there is no parent to outlive).
 * Returns the function that removes the handlers again.
 */
export function onStopRequest(stop: (reason: StopReason) => void, parent: number = process.ppid): () => void {
  let requested = false;
  const request = (reason: StopReason) => {
    if (requested) return;
    requested = true;
    stop(reason);
  };
  const handlers = STOP_SIGNALS.map((signal) => {
    const handler = () => request(signal);
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  const watch =
    parent > 1
      ? setInterval(() => {
          if (process.ppid !== parent) request('parent exited');
        }, PARENT_POLL_MS)
      : undefined;
  // The watch alone never keeps the process alive.
  watch?.unref();
  if (parent > 1 && process.ppid !== parent) queueMicrotask(() => request('parent exited'));
  return () => {
    if (watch) clearInterval(watch);
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}
