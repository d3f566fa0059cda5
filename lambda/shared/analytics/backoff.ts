/**
 * Exponential backoff with full jitter (AWS Architecture Blog, "Exponential Backoff and Jitter"): the
 * n-th wait is uniform in [0, min(cap, base·2ⁿ)], so retrying clients spread out instead of retrying in
 * lockstep against a throttled shard or table.
 */
export interface BackoffPolicy {
  readonly baseMs: number;
  readonly capMs: number;
}

export function backoffDelayMs(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });
