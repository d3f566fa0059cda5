/**
 * The HTTP status of a merged answer (docs/aggregator.md, "Status of the merged answer"). A merged
 * answer is a success as long as one region succeeded; the failed ones are listed in place. When none
 * did, the answer says so with its status, and the merged view (every region's answer) is still the body:
 *
 * - every region refused the request with the same 4xx (a query or body every region rejects, such as
 *   `limit=0`): that status, since the request itself is what needs fixing;
 * - the health route, when no region is healthy but some reported a health body: 503, as each region's
 *   health route answers an unhealthy cluster;
 * - no region at all (nothing registered): 503;
 * - otherwise (timeouts, 5xx, unreachable regions, differing refusals, or 401/403, which refuse the
 *   aggregator's own identity and are no fault of the caller): 502.
 */
import type { RegionResult } from '../../contracts/api/aggregator.js';
import { regionHealth } from './merge.js';

export interface AggregateOutcome {
  statusCode: number;
  /** Why the answer is not a 200; absent for a 200. */
  message?: string;
}

/** Statuses that refuse the aggregator itself (its role or signature), not the caller's request. */
const AGGREGATOR_REFUSED = new Set([401, 403]);

function commonRefusal(results: readonly RegionResult[]): number | undefined {
  const statuses = new Set(results.map((r) => r.status));
  if (statuses.size !== 1) return undefined;
  const [status] = statuses;
  return typeof status === 'number' && status >= 400 && status < 500 && !AGGREGATOR_REFUSED.has(status)
    ? status
    : undefined;
}

export function aggregateOutcome(
  results: Readonly<Record<string, RegionResult>>,
  route: 'health' | 'other',
): AggregateOutcome {
  const all = Object.values(results);
  if (all.length === 0) {
    return { statusCode: 503, message: 'No regional API is registered; nothing could be asked' };
  }
  if (all.some((r) => r.ok)) return { statusCode: 200 };
  if (route === 'health' && all.some((r) => regionHealth(r) === 'unhealthy')) {
    return { statusCode: 503, message: 'No region is healthy; see region_status and regions' };
  }
  const refusal = commonRefusal(all);
  if (refusal !== undefined) {
    return {
      statusCode: refusal,
      message: `Every region refused the request with HTTP ${refusal}; the answer of each is in regions.<region>.body`,
    };
  }
  return {
    statusCode: 502,
    message: 'No region answered successfully; the failure of each is in regions.<region>.error',
  };
}
