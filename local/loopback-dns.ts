/**
 * Name resolution for the local platform's edge: the accelerator and ALB DNS names the proxies are
 * configured with (as in a deployment) resolve to 127.0.0.1, and every other name fails like an unknown
 * host would. Handed to the proxies as their `lookup` override, so nothing touches the system resolver.
 */
import type { LookupFunction } from 'node:net';

type LookupAllCallback = (
  error: NodeJS.ErrnoException | null,
  addresses: { address: string; family: number }[],
) => void;

/** A lookup that answers 127.0.0.1 for `names` (case-insensitive, trailing dot ignored) and ENOTFOUND otherwise. */
export function loopbackLookup(names: Iterable<string>): LookupFunction {
  const known = new Set([...names].map((n) => n.toLowerCase().replace(/\.$/, '')));
  return (hostname, options, callback) => {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    const all = (options as { all?: boolean }).all === true;
    if (!known.has(name)) {
      const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      error.code = 'ENOTFOUND';
      error.syscall = 'getaddrinfo';
      process.nextTick(() =>
        all ? (callback as unknown as LookupAllCallback)(error, []) : callback(error, '', 4),
      );
      return;
    }
    // net.connect asks for every address when autoSelectFamily is on (the Node 20+ default).
    process.nextTick(() =>
      all
        ? (callback as unknown as LookupAllCallback)(null, [{ address: '127.0.0.1', family: 4 }])
        : callback(null, '127.0.0.1', 4),
    );
  };
}
