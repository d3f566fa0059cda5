/**
 * "Does this application still exist?" for the events handler, remembered per warm instance for the
 * authorizer cache's own lifetime, so a steady stream of batches for one application costs no read.
 *
 * Why this is as safe as the authorizer cache (docs/analytics-api.md, "Application check"): a request
 * reaches the handler only with an Allow the authorizer decided while the application existed (it reads
 * the application consistently). Deleting an application deletes it first and its keys next, so any
 * later authorizer run refuses; the only requests that still arrive carry an Allow that API Gateway
 * cached before the delete, and those stop when that cache entry expires (the result TTL,
 * `analytics_api.authorizer_cache_ttl_seconds`, 300 s by default). A remembered "exists" can therefore
 * only let through what the cached Allow lets through anyway, and never for longer than `ttlMs`. The
 * result TTL (AuthorizerResultTtlInSeconds: default 300, 0 disables caching, at most 3600):
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-resource-apigateway-authorizer.html
 *
 * Only "exists" is remembered: an unknown or deleted application is read every time (rare: such a
 * request needs an Allow cached before the delete), and a failed read is not remembered either.
 */
import type { ApplicationStore } from '../shared/analytics/applications-store.js';

/** API Gateway's default result TTL, and the API's documented authorizer cache bound ("up to 300 s"). */
const APPLICATION_CACHE_TTL_MS = 300_000;
/** Applications remembered at once; past this the oldest entry is dropped (a Map keeps insertion order). */
const APPLICATION_CACHE_MAX_ENTRIES = 10_000;

export class ApplicationExistenceCache {
  /** Application id → epoch ms until which its existence is taken as known. */
  private readonly known = new Map<string, number>();

  constructor(
    private readonly store: Pick<ApplicationStore, 'exists'>,
    private readonly ttlMs: number = APPLICATION_CACHE_TTL_MS,
    private readonly now: () => number = Date.now,
    private readonly maxEntries: number = APPLICATION_CACHE_MAX_ENTRIES,
  ) {}

  /** True when the application exists: remembered, or read consistently from the table. */
  async exists(applicationId: string): Promise<boolean> {
    const until = this.known.get(applicationId);
    if (until !== undefined && until > this.now()) return true;
    this.known.delete(applicationId);
    // From when the read was asked: the answer is at least that fresh.
    const asked = this.now();
    const exists = await this.store.exists(applicationId);
    if (exists && this.ttlMs > 0) {
      if (this.known.size >= this.maxEntries) {
        const oldest = this.known.keys().next();
        if (oldest.done !== true) this.known.delete(oldest.value);
      }
      this.known.set(applicationId, asked + this.ttlMs);
    }
    return exists;
  }
}
