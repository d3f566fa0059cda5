/**
 * Stage throttling as API Gateway applies it: a token bucket per stage holding at most `burstLimit`
 * requests, refilled at `rateLimit` per second; a request finding it empty is answered 429
 * `{"message":"Too Many Requests"}` before authorization or any integration runs.
 */
import type { StageThrottling } from '../../contracts/api-routes.js';

export class StageThrottle {
  private tokens: number;
  private last: number;

  constructor(
    private readonly limits: StageThrottling,
    private readonly now: () => number,
  ) {
    this.tokens = limits.burstLimit;
    this.last = now();
  }

  /** Takes one request's token; false when the stage is over its limit. */
  take(): boolean {
    const at = this.now();
    const refill = (Math.max(0, at - this.last) / 1000) * this.limits.rateLimit;
    this.tokens = Math.min(this.limits.burstLimit, this.tokens + refill);
    this.last = at;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
