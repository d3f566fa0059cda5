/**
 * Signing-key sources for the HMAC envelope (see docs/envelope.md).
 *
 * Key material never appears in an error message: every message names the field or variable only.
 */

export interface SigningKeys {
  current: string;
  previous?: string;
}

export interface KeySource {
  get(): Promise<SigningKeys>;
  /** called on a verification miss; may refresh (rate-limited); returns fresh keys or undefined if not refreshed */
  refreshAfterMiss(): Promise<SigningKeys | undefined>;
}

const SHAPE_HINT = 'expected a JSON object {"current":"…","previous":"…"}';

/**
 * Checks an untrusted value and returns a frozen copy holding only `current` / `previous`.
 * Empty strings are rejected: an empty HMAC key would let anyone sign. `previous` may be absent or null
 * (first deployment, before any rotation). Unknown fields (rotation metadata) are ignored.
 */
export function validateSigningKeys(value: unknown, label = 'signing keys'): SigningKeys {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`${label}: ${SHAPE_HINT}`);
  }
  const { current, previous } = value as Record<string, unknown>;
  if (typeof current !== 'string' || current.length === 0) {
    throw new Error(`${label}: "current" must be a non-empty string`);
  }
  if (previous === undefined || previous === null) return Object.freeze({ current });
  if (typeof previous !== 'string' || previous.length === 0) {
    throw new Error(`${label}: "previous" must be a non-empty string when present`);
  }
  return Object.freeze({ current, previous });
}

/** Parses the Secrets Manager secret string `{"current":"…","previous":"…"}`. */
export function parseSigningKeys(raw: string): SigningKeys {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    // Deliberately drop the SyntaxError: V8 quotes the offending input, i.e. the key material.
    throw new Error(`signing keys: not valid JSON; ${SHAPE_HINT}`);
  }
  return validateSigningKeys(value);
}

/** A fixed key pair (local runs, tests, keys injected by env). Never refreshes. */
export function staticKeySource(keys: SigningKeys): KeySource {
  const valid = validateSigningKeys(keys);
  return {
    get: () => Promise.resolve(valid),
    refreshAfterMiss: () => Promise.resolve(undefined),
  };
}

/**
 * Keys from the environment, read once: `SIGNING_KEYS` (JSON as in Secrets Manager) wins, else
 * `SIGNING_KEY` (current only). An empty variable counts as unset.
 */
export function keySourceFromEnv(env: NodeJS.ProcessEnv = process.env): KeySource {
  const json = env['SIGNING_KEYS'];
  if (json !== undefined && json !== '') {
    try {
      return staticKeySource(parseSigningKeys(json));
    } catch (err) {
      // Our own messages carry no key material, so re-labelling them is safe.
      throw new Error(`SIGNING_KEYS: ${(err as Error).message}`);
    }
  }
  const single = env['SIGNING_KEY'];
  if (single !== undefined && single !== '') return staticKeySource({ current: single });
  throw new Error(
    'no signing key configured: set SIGNING_KEYS (JSON {"current":"…","previous":"…"}) or SIGNING_KEY',
  );
}

export interface CachedKeySourceOptions {
  /** Keys are re-fetched once older than this (default 60 000 ms). */
  maxAgeMs?: number;
  /** At most one miss-triggered refresh per this interval (default 5 000 ms). */
  missRefreshMinIntervalMs?: number;
  /**
   * How long past `maxAgeMs` an expired value may still be served when the refresh fails
   * (default 300 000 ms). 0 disables stale serving.
   */
  staleOnErrorMs?: number;
  /** After a failed fetch, `get()` does not retry for this long (default 1 000 ms). */
  errorRetryIntervalMs?: number;
  /** Epoch ms clock, for tests. */
  now?: () => number;
}

/**
 * Caches keys from any async fetcher (the Secrets Manager fetcher plugs in here).
 *
 * - `get()` serves the cached keys while younger than `maxAgeMs`; otherwise it fetches. Concurrent
 *   callers share one in-flight fetch.
 * - `refreshAfterMiss()` forces a fetch at most once per `missRefreshMinIntervalMs` (forged requests
 *   cannot hammer the secrets store); it never throws (failure → undefined).
 * - Fetch failure (decision): a secrets-store blip must not turn every request into a 403, but a
 *   revoked key must not live forever. So when a refresh fails and the cached keys expired less than
 *   `staleOnErrorMs` ago, `get()` serves them; beyond that grace (or with nothing cached) it throws
 *   and the verifier rejects with `no_keys` (fail closed). During `errorRetryIntervalMs` after a
 *   failure, `get()` answers from that decision without calling the fetcher again, so an outage does
 *   not add a slow failing fetch to every request.
 */
export class CachedKeySource implements KeySource {
  private readonly maxAgeMs: number;
  private readonly missRefreshMinIntervalMs: number;
  private readonly staleOnErrorMs: number;
  private readonly errorRetryIntervalMs: number;
  private readonly now: () => number;
  private cached: { keys: SigningKeys; fetchedAt: number } | undefined;
  private inFlight: Promise<SigningKeys> | undefined;
  private lastMissRefreshAt = Number.NEGATIVE_INFINITY;
  private lastFailure: { at: number; error: Error } | undefined;

  constructor(
    private readonly fetchKeys: () => Promise<SigningKeys>,
    opts: CachedKeySourceOptions = {},
  ) {
    this.maxAgeMs = nonNegative(opts.maxAgeMs ?? 60_000, 'maxAgeMs');
    this.missRefreshMinIntervalMs = nonNegative(
      opts.missRefreshMinIntervalMs ?? 5_000,
      'missRefreshMinIntervalMs',
    );
    this.staleOnErrorMs = nonNegative(opts.staleOnErrorMs ?? 300_000, 'staleOnErrorMs');
    this.errorRetryIntervalMs = nonNegative(opts.errorRetryIntervalMs ?? 1_000, 'errorRetryIntervalMs');
    this.now = opts.now ?? Date.now;
  }

  async get(): Promise<SigningKeys> {
    const now = this.now();
    const cached = this.cached;
    if (cached !== undefined && now - cached.fetchedAt < this.maxAgeMs) return cached.keys;
    const failure = this.lastFailure;
    if (failure !== undefined && now - failure.at < this.errorRetryIntervalMs)
      return this.staleOr(failure.error);
    try {
      return await this.refresh();
    } catch (err) {
      return this.staleOr(err as Error);
    }
  }

  async refreshAfterMiss(): Promise<SigningKeys | undefined> {
    const now = this.now();
    if (now - this.lastMissRefreshAt < this.missRefreshMinIntervalMs) return undefined;
    // Claim the slot before awaiting so concurrent misses do not each trigger a fetch.
    this.lastMissRefreshAt = now;
    try {
      return await this.refresh();
    } catch {
      return undefined;
    }
  }

  /** One shared fetch at a time; on success replaces the cache, on failure records it. */
  private refresh(): Promise<SigningKeys> {
    if (this.inFlight !== undefined) return this.inFlight;
    const run = this.fetchAndStore();
    this.inFlight = run;
    // Cleared via a handler registered now (not a `finally` inside the async body): that would run
    // before the assignment above if the fetcher threw synchronously, leaving a settled promise stuck.
    const clear = (): void => {
      if (this.inFlight === run) this.inFlight = undefined;
    };
    void run.then(clear, clear);
    return run;
  }

  private async fetchAndStore(): Promise<SigningKeys> {
    try {
      const keys = validateSigningKeys(await this.fetchKeys(), 'fetched signing keys');
      this.cached = { keys, fetchedAt: this.now() };
      this.lastFailure = undefined;
      return keys;
    } catch (err) {
      // Fresh message so nothing the fetcher put in its own message is echoed; the original stays as
      // `cause` for operators (fetchers must parse with parseSigningKeys, which never quotes the secret).
      const error = new Error('signing keys: fetch failed', { cause: err });
      this.lastFailure = { at: this.now(), error };
      throw error;
    }
  }

  private staleOr(error: Error): SigningKeys {
    const cached = this.cached;
    if (cached !== undefined && this.now() - cached.fetchedAt < this.maxAgeMs + this.staleOnErrorMs) {
      return cached.keys;
    }
    throw error;
  }
}

function nonNegative(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`CachedKeySource: ${name} must be ≥ 0`);
  return value;
}
