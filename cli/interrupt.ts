/**
 * Ctrl-C during a wait (`--wait`, `logs --follow`): gco stops waiting, but what it waited for keeps
 * running on the platform, so the interrupt says so and how to watch it again, then exits 130 — the
 * status a shell reports for a command ended by SIGINT (128 + 2, https://tldp.org/LDP/abs/html/exitcodes.html).
 */
import type { Printer } from './output.js';

/** Exit status of a run interrupted by SIGINT. */
const INTERRUPTED_EXIT = 130;

/**
 * Runs `work`; a SIGINT meanwhile prints `message()` (what keeps running, how to follow it) on stderr
 * and ends the process with 130. The handler is removed when `work` settles, so Ctrl-C after it
 * behaves as usual.
 */
export async function untilInterrupted<T>(
  out: Printer,
  message: () => string,
  work: () => Promise<T>,
): Promise<T> {
  const onInterrupt = () => {
    out.warn(`\ngco: interrupted. ${message()}`);
    process.exit(INTERRUPTED_EXIT);
  };
  process.once('SIGINT', onInterrupt);
  try {
    return await work();
  } finally {
    process.removeListener('SIGINT', onInterrupt);
  }
}
