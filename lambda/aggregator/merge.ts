/**
 * Merged views of the aggregate routes. Every view carries `regions` (one RegionResult per region,
 * failed ones included) and `failed_regions`; the rest is route-specific (docs/aggregator.md).
 */
import type {
  GlobalHealth,
  GlobalStatus,
  MergedAnswer,
  RegionHealth,
  RegionResult,
} from '../../contracts/api/aggregator.js';

type JsonRecord = Record<string, unknown>;

function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function numberOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function common(results: Record<string, RegionResult>, now: Date): MergedAnswer {
  return {
    regions: results,
    failed_regions: Object.keys(results).filter((r) => !results[r]?.ok),
    timestamp: now.toISOString(),
  };
}

/** Bodies of the regions that answered 2xx with a JSON object. */
function okBodies(results: Record<string, RegionResult>): [string, JsonRecord][] {
  const bodies: [string, JsonRecord][] = [];
  for (const [region, result] of Object.entries(results)) {
    if (result.ok && isRecord(result.body)) bodies.push([region, result.body]);
  }
  return bodies;
}

/**
 * The regions with their `jobs` arrays taken out: those jobs are in the merged list (tagged with their
 * region), and repeating them would double a response that must stay under Lambda's 6 MB.
 */
function withoutJobs(results: Record<string, RegionResult>): Record<string, RegionResult> {
  const out: Record<string, RegionResult> = {};
  for (const [region, result] of Object.entries(results)) {
    if (result.ok && isRecord(result.body) && 'jobs' in result.body) {
      const { jobs: _jobs, ...rest } = result.body;
      out[region] = { ...result, body: rest };
    } else {
      out[region] = result;
    }
  }
  return out;
}

function jobsOf(region: string, body: JsonRecord): JsonRecord[] {
  const jobs = Array.isArray(body.jobs) ? body.jobs : [];
  return jobs.filter(isRecord).map((job) => ({ ...job, region }));
}

// ---------------------------------------------------------------------------------------------- health

/**
 * healthy: 2xx with status "healthy". unhealthy: the region answered with a health body that is not
 * healthy (health-monitor says 503 + "unhealthy"). unreachable: no health body at all (timeout, refused,
 * 403/5xx from API Gateway).
 */
export function regionHealth(result: RegionResult): RegionHealth {
  const status = isRecord(result.body) ? result.body.status : undefined;
  if (result.ok && status === 'healthy') return 'healthy';
  if (result.status !== null && typeof status === 'string') return 'unhealthy';
  return 'unreachable';
}

export function mergeHealth(results: Record<string, RegionResult>, now = new Date()): GlobalHealth {
  const regionStatus: Record<string, RegionHealth> = {};
  const counts = { total: 0, healthy: 0, unhealthy: 0, unreachable: 0 };
  for (const [region, result] of Object.entries(results)) {
    const health = regionHealth(result);
    regionStatus[region] = health;
    counts.total += 1;
    counts[health] += 1;
  }
  // Healthy only when every region is; none healthy (or no region at all) is unhealthy.
  const status =
    counts.total > 0 && counts.healthy === counts.total
      ? 'healthy'
      : counts.healthy === 0
        ? 'unhealthy'
        : 'degraded';
  return { status, summary: counts, region_status: regionStatus, ...common(results, now) };
}

// ------------------------------------------------------------------------------------------------ jobs

export const DEFAULT_JOB_SORT = 'createdAt:desc';

/** Sort keys of GET /api/v1/jobs → the job field they order by (cluster/manifest-processor job-view.ts). */
const SORT_FIELDS: Readonly<Record<string, string>> = {
  createdAt: 'created_at',
  name: 'name',
  namespace: 'namespace',
  status: 'status',
  startedAt: 'started_at',
  completedAt: 'completed_at',
};

function text(job: JsonRecord, field: string): string {
  const value = job[field];
  return typeof value === 'string' ? value : '';
}

/**
 * Orders merged jobs exactly like the regional API orders one region's page (same parsing of
 * `field:direction`, unknown field → createdAt, anything but `asc` → descending, ties by
 * namespace/name), with the region as the last tie-breaker so the merged order is deterministic.
 */
export function compareJobs(sort: string): (a: JsonRecord, b: JsonRecord) => number {
  const [fieldKey = 'createdAt', direction = 'desc'] = sort.split(':');
  const field = Object.hasOwn(SORT_FIELDS, fieldKey) ? SORT_FIELDS[fieldKey]! : 'created_at';
  const sign = direction === 'asc' ? 1 : -1;
  return (a, b) =>
    sign * text(a, field).localeCompare(text(b, field)) ||
    `${text(a, 'namespace')}/${text(a, 'name')}`.localeCompare(
      `${text(b, 'namespace')}/${text(b, 'name')}`,
    ) ||
    text(a, 'region').localeCompare(text(b, 'region'));
}

export interface JobsPage {
  sort: string;
  limit: number | null;
  offset: number | null;
}

/**
 * Jobs of every answering region in one list, each tagged with `region` and ordered by the caller's
 * sort. limit/offset apply per region (each region got the same query), so the merged page holds up to
 * limit × regions jobs and the next page is offset + limit for every region; has_more if any region
 * has more.
 */
export function mergeJobs(results: Record<string, RegionResult>, page: JobsPage, now = new Date()) {
  const bodies = okBodies(results);
  const jobs = bodies.flatMap(([region, body]) => jobsOf(region, body)).sort(compareJobs(page.sort));
  const first = bodies[0]?.[1];
  return {
    jobs,
    count: jobs.length,
    total: bodies.reduce((sum, [, body]) => sum + numberOf(body.total), 0),
    limit: page.limit ?? (typeof first?.limit === 'number' ? first.limit : null),
    offset: page.offset ?? (typeof first?.offset === 'number' ? first.offset : null),
    has_more: bodies.some(([, body]) => body.has_more === true),
    sort: page.sort,
    ...common(withoutJobs(results), now),
  };
}

// ---------------------------------------------------------------------------------------------- delete

/** Sums of the regional bulk deletes; the per-job results are concatenated with their region. */
export function mergeDelete(results: Record<string, RegionResult>, dryRun: boolean, now = new Date()) {
  const bodies = okBodies(results);
  const sum = (key: string) => bodies.reduce((total, [, body]) => total + numberOf(body[key]), 0);
  return {
    dry_run: dryRun,
    matched: sum('matched'),
    deleted: sum('deleted'),
    failed: sum('failed'),
    jobs: bodies.flatMap(([region, body]) => jobsOf(region, body)),
    ...common(withoutJobs(results), now),
  };
}

// ---------------------------------------------------------------------------------------------- status

/** Keys of /api/v1/status collected per region (null when the region failed or does not report it). */
const STATUS_FACETS = ['allowed_namespaces', 'resource_limits', 'templates', 'webhooks'] as const;

export function mergeStatus(results: Record<string, RegionResult>, now = new Date()): GlobalStatus {
  const facets: Record<(typeof STATUS_FACETS)[number], Record<string, unknown>> = {
    allowed_namespaces: {},
    resource_limits: {},
    templates: {},
    webhooks: {},
  };
  for (const [region, result] of Object.entries(results)) {
    const body = result.ok && isRecord(result.body) ? result.body : undefined;
    for (const facet of STATUS_FACETS) facets[facet][region] = body?.[facet] ?? null;
  }
  return { ...facets, ...common(results, now) };
}
