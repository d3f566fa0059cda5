/**
 * The two platform rules of the global API's web ACL (lib/constructs/global-api-waf.ts), applied before
 * API Gateway sees a request, as WAF is:
 * - priority 0, `RateLimitPerIp`: more than `rateLimitPerIp` requests from one IP within 5 minutes
 *   (AWS WAF's default evaluation window; "Rate-based rule high-level settings":
 *   https://docs.aws.amazon.com/waf/latest/developerguide/waf-rule-statement-type-rate-based-high-level-settings.html),
 *   counted by a sliding-window counter in fixed memory per IP (`RateCounter`);
 * - priority 1, `BodySizeLimitNonInference`: a body over `maxBodySizeBytes` on any path except
 *   `/<stage>/inference/…` (matched after URL-decoding and path normalization, as the rule's text
 *   transformations do).
 * A blocked request is answered as API Gateway answers a WAF block: 403 `{"message":"Forbidden"}`. The
 * AWS managed rule groups (priorities 2–7) are not emulated.
 */
import { posix } from 'node:path';
import type { WafConfig } from '../../lib/config.js';

/** WAF's rate-based evaluation window (`evaluationWindowSec: 300`). */
const WAF_RATE_WINDOW_MS = 300_000;
/** The window is counted in slots of this length (30 per window). */
const SLOT_MS = 10_000;
const SLOTS_PER_WINDOW = WAF_RATE_WINDOW_MS / SLOT_MS;

export type WafRule = 'RateLimitPerIp' | 'BodySizeLimitNonInference';

export interface LocalWafOptions {
  readonly waf: Pick<WafConfig, 'rateLimitPerIp' | 'maxBodySizeBytes'>;
  readonly stage: string;
  readonly now: () => number;
}

/** The path as the rule compares it: URL_DECODE, then NORMALIZE_PATH. */
function normalizedPath(rawPath: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    decoded = rawPath;
  }
  return posix.normalize(decoded);
}

/**
 * One source IP's requests in the rate rule's window, as a sliding-window counter: a ring of
 * `SLOTS_PER_WINDOW + 1` per-slot counts and their running total. The current slot plus the 30 before it
 * always cover the whole 300 s looking back from now (and at most one slot more), so the total never
 * undercounts the window: more than the limit within any 300 s is always blocked, and a block lasts up to
 * one slot (10 s) longer than an exact count would hold it. Memory per IP is fixed, and a request costs
 * O(1): it adds one to a slot, after clearing at most the ring's length of slots that went out of the
 * window.
 */
class RateCounter {
  private readonly slots = new Uint32Array(SLOTS_PER_WINDOW + 1);
  private total = 0;
  /** Absolute index (time / SLOT_MS) of the newest slot written. */
  private newest: number;

  constructor(slot: number) {
    this.newest = slot;
  }

  /** Counts one request at absolute slot `slot` and returns the requests now in the window. */
  add(slot: number): number {
    if (slot > this.newest) {
      const expired = Math.min(slot - this.newest, this.slots.length);
      for (let i = 1; i <= expired; i++) {
        const at = (this.newest + i) % this.slots.length;
        this.total -= this.slots[at] ?? 0;
        this.slots[at] = 0;
      }
      this.newest = slot;
    }
    // A clock that steps back counts into the newest slot rather than rewriting the past.
    const at = this.newest % this.slots.length;
    this.slots[at] = (this.slots[at] ?? 0) + 1;
    this.total += 1;
    return this.total;
  }

  /** Whether no request of the ring is still in the window at `slot`. */
  idleAt(slot: number): boolean {
    return slot - this.newest >= this.slots.length;
  }

  /** How many counts the ring holds (its fixed size). */
  get size(): number {
    return this.slots.length;
  }
}

export class LocalWaf {
  /** Per source IP, its rate counter; counters idle for a whole window are swept once per window. */
  private readonly counters = new Map<string, RateCounter>();
  private nextSweepSlot: number | undefined;
  private readonly inferencePrefix: string;

  constructor(private readonly opts: LocalWafOptions) {
    this.inferencePrefix = `/${opts.stage}/inference/`;
  }

  /**
   * The rule that blocks this request, or undefined to let it through. Every request is counted, the
   * blocked ones too (AWS WAF rate-based rules count the requests that match the rule's criteria:
   * https://docs.aws.amazon.com/waf/latest/developerguide/waf-rule-statement-type-rate-based.html), so a
   * client that keeps sending while blocked stays blocked; its state stays one fixed-size counter.
   */
  inspect(sourceIp: string, rawPath: string, bodyBytes: number): WafRule | undefined {
    const slot = Math.floor(this.opts.now() / SLOT_MS);
    this.sweep(slot);
    let counter = this.counters.get(sourceIp);
    if (counter === undefined) {
      counter = new RateCounter(slot);
      this.counters.set(sourceIp, counter);
    }
    if (counter.add(slot) > this.opts.waf.rateLimitPerIp) return 'RateLimitPerIp';
    if (
      bodyBytes > this.opts.waf.maxBodySizeBytes &&
      !normalizedPath(rawPath).startsWith(this.inferencePrefix)
    ) {
      return 'BodySizeLimitNonInference';
    }
    return undefined;
  }

  /**
   * What the rate rule holds: the IPs it tracks and, per IP, the counts kept (the same for every IP and
   * every request rate). For tests and diagnostics.
   */
  rateState(): { trackedIps: number; countsPerIp: number[] } {
    return {
      trackedIps: this.counters.size,
      countsPerIp: [...this.counters.values()].map((c) => c.size),
    };
  }

  /**
   * Forgets IPs with nothing left in the window, at most once per window: each sweep visits every
   * tracked IP once, and every tracked IP was created by a request, so the cost is O(1) per request
   * amortised.
   */
  private sweep(slot: number): void {
    if (this.nextSweepSlot !== undefined && slot < this.nextSweepSlot) return;
    for (const [ip, counter] of this.counters) if (counter.idleAt(slot)) this.counters.delete(ip);
    this.nextSweepSlot = slot + SLOTS_PER_WINDOW;
  }
}
