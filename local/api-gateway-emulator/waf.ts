/**
 * The two platform rules of the global API's web ACL (lib/constructs/global-api-waf.ts), applied before
 * API Gateway sees a request, as WAF is:
 * - priority 0, `RateLimitPerIp`: more than `rateLimitPerIp` requests from one IP within 5 minutes;
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

export class LocalWaf {
  /** Request times per source IP within the window, oldest first. */
  private readonly seen = new Map<string, number[]>();
  private readonly inferencePrefix: string;

  constructor(private readonly opts: LocalWafOptions) {
    this.inferencePrefix = `/${opts.stage}/inference/`;
  }

  /** The rule that blocks this request, or undefined to let it through. Every request is counted. */
  inspect(sourceIp: string, rawPath: string, bodyBytes: number): WafRule | undefined {
    const at = this.opts.now();
    const times = (this.seen.get(sourceIp) ?? []).filter((t) => at - t < WAF_RATE_WINDOW_MS);
    times.push(at);
    this.seen.set(sourceIp, times);
    if (times.length > this.opts.waf.rateLimitPerIp) return 'RateLimitPerIp';
    if (
      bodyBytes > this.opts.waf.maxBodySizeBytes &&
      !normalizedPath(rawPath).startsWith(this.inferencePrefix)
    ) {
      return 'BodySizeLimitNonInference';
    }
    return undefined;
  }
}
