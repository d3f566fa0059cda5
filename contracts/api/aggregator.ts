/**
 * The global API's merged answers (lambda/aggregator, docs/aggregator.md "Merged answers"): every
 * region's result of one route merged into one body. Not a service's answer, so plain types (no
 * schema): the aggregator builds them and the CLI reads them.
 */
import type { BulkDeleteResult, JobView } from './manifest-processor.js';

/** One region's part of an aggregate answer. */
export interface RegionResult {
  /** HTTP status the regional API answered with; null when no answer arrived. */
  status: number | null;
  /** True for a 2xx answer with a JSON (or empty) body. */
  ok: boolean;
  body: unknown;
  error: string | null;
  duration_ms: number;
}

/**
 * What every merged answer carries besides its route's own fields. Type aliases, not interfaces: the
 * aggregator passes them on as plain records (`Record<string, unknown>`).
 */
export type MergedAnswer = {
  regions: Record<string, RegionResult>;
  failed_regions: string[];
  timestamp: string;
};

export type RegionHealth = 'healthy' | 'unhealthy' | 'unreachable';

/** GET /api/v1/global/health. */
export type GlobalHealth = MergedAnswer & {
  status: 'healthy' | 'degraded' | 'unhealthy';
  summary: Record<'total' | RegionHealth, number>;
  region_status: Record<string, RegionHealth>;
};

/** A job of a merged list or bulk delete, tagged with the region it runs in. */
type InRegion<T> = T & { region: string };

/** GET /api/v1/global/jobs: limit/offset are per region (null when neither the caller nor a region said). */
export type GlobalJobList = MergedAnswer & {
  jobs: InRegion<JobView>[];
  count: number;
  total: number;
  limit: number | null;
  offset: number | null;
  has_more: boolean;
  sort: string;
};

/** DELETE /api/v1/global/jobs. */
export type GlobalBulkDelete = MergedAnswer &
  Omit<BulkDeleteResult, 'jobs'> & { jobs: InRegion<BulkDeleteResult['jobs'][number]>[] };

/** GET /api/v1/global/status: each facet of /api/v1/status per region (null when not reported). */
export type GlobalStatus = MergedAnswer &
  Record<'allowed_namespaces' | 'resource_limits' | 'templates' | 'webhooks', Record<string, unknown>>;
