/**
 * Bounded replay cache for HMAC envelope nonces.
 *
 * A nonce must be remembered for as long as its timestamp is still acceptable, i.e. until
 * `timestamp + ttlSeconds` has passed (ttl = the verifier's freshness window). After that the
 * timestamp check rejects the request on its own, so the entry can go.
 *
 * Bound: when the cache is full of unexpired entries, the entries with the OLDEST timestamp are
 * evicted and the "watermark" is raised to that timestamp. Any later request whose timestamp is
 * ≤ the watermark is treated as a replay (fail closed): we can no longer prove it is new, so we
 * refuse it rather than open a replay hole. Evicting by smallest timestamp (not insertion order)
 * keeps the watermark as low as possible, so a client with a clock running ahead cannot push it up.
 * The watermark needs no reset: timestamps below it leave the freshness window anyway.
 *
 * Cost: lookups O(1); purge and eviction amortized O(1) per entry (timestamps are bucketed per
 * second and the distinct seconds are kept in an ascending deque; new seconds nearly always append).
 */
export interface NonceCacheOptions {
  /** Hard bound on remembered nonces (≥ 1). */
  maxEntries: number;
  /** How long after its timestamp a nonce is remembered; use the freshness window. */
  ttlSeconds: number;
}

export class NonceCache {
  private readonly maxEntries: number;
  private readonly ttlSeconds: number;
  /** nonce → timestamp it was recorded with. */
  private readonly byNonce = new Map<string, number>();
  /** timestamp second → nonces recorded with that timestamp. */
  private readonly buckets = new Map<number, Set<string>>();
  /** Distinct timestamps present in `buckets`, ascending, starting at `head`. */
  private seconds: number[] = [];
  private head = 0;
  private watermarkTs = Number.NEGATIVE_INFINITY;

  constructor(opts: NonceCacheOptions) {
    if (!Number.isInteger(opts.maxEntries) || opts.maxEntries < 1) {
      throw new RangeError('NonceCache: maxEntries must be an integer ≥ 1');
    }
    if (!Number.isFinite(opts.ttlSeconds) || opts.ttlSeconds < 0) {
      throw new RangeError('NonceCache: ttlSeconds must be a finite number ≥ 0');
    }
    this.maxEntries = opts.maxEntries;
    this.ttlSeconds = opts.ttlSeconds;
  }

  /** Number of nonces currently remembered (expired ones may linger until the next call). */
  get size(): number {
    return this.byNonce.size;
  }

  /** Largest timestamp ever evicted while unexpired; timestamps ≤ this are refused. -Infinity if none. */
  get watermark(): number {
    return this.watermarkTs;
  }

  /** true if first sighting (and records it); false if replay (or not provably new: ts ≤ watermark). */
  checkAndRemember(nonce: string, timestampSeconds: number, nowSeconds: number): boolean {
    this.purge(nowSeconds);
    if (timestampSeconds <= this.watermarkTs) return false;
    if (this.byNonce.has(nonce)) return false;

    if (this.byNonce.size >= this.maxEntries) {
      // Drop the oldest second, counting the incoming request: if it is itself the oldest, we
      // accept it without storing it and let the watermark refuse any replay of it.
      const oldest = this.oldestSecond();
      const evictTs = oldest === undefined ? timestampSeconds : Math.min(oldest, timestampSeconds);
      this.watermarkTs = Math.max(this.watermarkTs, evictTs);
      // Every entry of that second is now redundant (covered by the watermark): free them all.
      if (oldest === evictTs) this.dropOldestBucket();
      if (timestampSeconds <= this.watermarkTs) return true;
    }

    this.byNonce.set(nonce, timestampSeconds);
    let bucket = this.buckets.get(timestampSeconds);
    if (bucket === undefined) {
      bucket = new Set();
      this.buckets.set(timestampSeconds, bucket);
      this.insertSecond(timestampSeconds);
    }
    bucket.add(nonce);
    return true;
  }

  /** Removes every entry whose timestamp + ttl is before now. */
  private purge(nowSeconds: number): void {
    for (;;) {
      const oldest = this.oldestSecond();
      if (oldest === undefined || oldest + this.ttlSeconds >= nowSeconds) return;
      this.dropOldestBucket();
    }
  }

  private oldestSecond(): number | undefined {
    return this.head < this.seconds.length ? this.seconds[this.head] : undefined;
  }

  private dropOldestBucket(): void {
    const ts = this.seconds[this.head];
    if (ts === undefined) return;
    const bucket = this.buckets.get(ts);
    if (bucket !== undefined) for (const n of bucket) this.byNonce.delete(n);
    this.buckets.delete(ts);
    this.head++;
    // Compact the deque once the consumed prefix dominates, keeping memory bounded.
    if (this.head > 64 && this.head * 2 > this.seconds.length) {
      this.seconds = this.seconds.slice(this.head);
      this.head = 0;
    }
  }

  private insertSecond(ts: number): void {
    const last = this.seconds[this.seconds.length - 1];
    if (this.head >= this.seconds.length || last === undefined || ts > last) {
      this.seconds.push(ts);
      return;
    }
    // Out-of-order second (clock skew between signers): binary search within the live range.
    let lo = this.head;
    let hi = this.seconds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.seconds[mid] ?? Number.POSITIVE_INFINITY) < ts) lo = mid + 1;
      else hi = mid;
    }
    this.seconds.splice(lo, 0, ts);
  }
}
