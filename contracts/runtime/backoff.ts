/**
 * The one exponential backoff of the platform: the n-th wait grows as min(cap, base·2ⁿ) and is jittered
 * so retrying clients spread out instead of retrying in lockstep (AWS Architecture Blog, "Exponential
 * Backoff and Jitter"):
 * - `full`: uniform in [0, ceiling) — retries against a throttled shard, table or API;
 * - `equal`: half fixed, half random — a receiver that failed still gets a real pause;
 * - `none`: the ceiling itself — one process pacing its own loop.
 */
type Jitter = 'full' | 'equal' | 'none';

export interface BackoffPolicy {
  readonly baseMs: number;
  readonly capMs: number;
  /** Default `full`. */
  readonly jitter?: Jitter;
}

/** The wait after `exponent` doublings (0 for the first retry), capped and jittered. */
export function backoffDelayMs(
  exponent: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** exponent);
  switch (policy.jitter ?? 'full') {
    case 'full':
      return Math.floor(random() * ceiling);
    case 'equal':
      return Math.round(ceiling / 2 + (random() * ceiling) / 2);
    case 'none':
      return ceiling;
  }
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });
