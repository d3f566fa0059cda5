/**
 * When `gco` sends a request again by itself: only a request that is safe to repeat (GET/HEAD, or a
 * write carrying an idempotency key) and only after a throttle or a gateway failure (429, 502, 503, 504)
 * or a connection that failed before any answer. Bounded, with exponential backoff and full jitter;
 * a `Retry-After` from the server is honoured up to the cap.
 */
import { backoffDelayMs } from '../contracts/runtime/backoff.js';

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** Failures before any answer that another attempt may not see (resets, refused, timeouts, DNS hiccups). */
const RETRYABLE_NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ECONNABORTED',
]);

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  readonly baseMs: number;
  readonly capMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 4, baseMs: 250, capMs: 8000 };

/** One attempt per request: for a run that must answer at once or not at all (shell completion). */
export const NO_RETRY: RetryPolicy = { maxAttempts: 1, baseMs: 0, capMs: 0 };

export function isRetryableNetworkError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && RETRYABLE_NETWORK_CODES.has(code);
}

/** Full jitter: a random delay up to base · 2^(attempt−1), capped. `attempt` is the one that failed (1-based). */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  return backoffDelayMs(attempt - 1, policy, random);
}

/** A `Retry-After` header (seconds or an HTTP date) as milliseconds from now, capped; undefined if absent. */
export function retryAfterMs(
  header: string | string[] | undefined,
  policy: RetryPolicy,
  now: number = Date.now(),
): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(0, ms), policy.capMs) : undefined;
}
