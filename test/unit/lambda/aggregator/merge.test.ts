import { describe, expect, test } from '@jest/globals';
import { sortJobs, type JobView } from '../../../../cluster/manifest-processor/src/job-view.js';
import { readAggregatorConfig } from '../../../../contracts/env/aggregator.js';
import type { RegionResult } from '../../../../contracts/api/aggregator.js';
import {
  compareJobs,
  mergeDelete,
  mergeHealth,
  mergeJobs,
  mergeStatus,
  regionHealth,
} from '../../../../lambda/aggregator/merge.js';

const NOW = new Date('2025-02-01T00:00:00Z');

function ok(body: unknown, status = 200): RegionResult {
  return { status, ok: status < 300, body, error: status < 300 ? null : `HTTP ${status}`, duration_ms: 5 };
}
const TIMEOUT: RegionResult = {
  status: null,
  ok: false,
  body: null,
  error: 'timeout after 100 ms',
  duration_ms: 100,
};

function view(
  name: string,
  namespace: string,
  created: string | null,
  extra: Partial<JobView> = {},
): JobView {
  return {
    name,
    namespace,
    uid: null,
    status: 'running',
    created_at: created,
    started_at: null,
    completed_at: null,
    labels: {},
    annotations: {},
    active: 0,
    ready: 0,
    succeeded: 0,
    failed: 0,
    parallelism: null,
    completions: null,
    backoff_limit: null,
    images: [],
    conditions: [],
    ...extra,
  };
}

describe('jobs order', () => {
  const views = [
    view('b', 'ns2', '2025-01-02T00:00:00.000Z', {
      status: 'failed',
      started_at: '2025-01-02T00:00:01.000Z',
    }),
    view('a', 'ns1', '2025-01-03T00:00:00.000Z', { completed_at: '2025-01-04T00:00:00.000Z' }),
    view('c', 'ns1', null, { status: 'succeeded' }),
    view('B', 'ns1', '2025-01-02T00:00:00.000Z', { status: 'pending' }),
    view('a', 'ns0', '2025-01-03T00:00:00.000Z'),
  ];
  const sorts = ['name', 'namespace', 'status', 'createdAt', 'startedAt', 'completedAt', 'bogus']
    .flatMap((f) => [`${f}:asc`, `${f}:desc`])
    .concat(['name', 'createdAt:sideways']);

  test.each(sorts)('%s orders exactly like the manifest-processor', (sort) => {
    const ours: Record<string, unknown>[] = views.map((v) => ({ ...v })).sort(compareJobs(sort));
    expect(ours.map((v) => `${String(v.namespace)}/${String(v.name)}`)).toEqual(
      sortJobs(views, sort).map((v) => `${v.namespace}/${v.name}`),
    );
  });

  test('the region breaks remaining ties', () => {
    const jobs = [
      { name: 'x', namespace: 'n', region: 'us-east-1' },
      { name: 'x', namespace: 'n', region: 'eu-west-1' },
    ];
    expect(jobs.sort(compareJobs('name:desc')).map((j) => j.region)).toEqual(['eu-west-1', 'us-east-1']);
  });
});

describe('mergeJobs', () => {
  test('tags, sorts, sums; failed regions add nothing but stay listed', () => {
    const merged = mergeJobs(
      {
        'eu-west-1': ok({
          jobs: [view('b', 'n', '2025-01-01T00:00:00.000Z')],
          count: 1,
          total: 4,
          limit: 1,
          offset: 0,
          has_more: true,
          sort: 'name:asc',
        }),
        'us-east-1': ok({
          jobs: [view('a', 'n', '2025-01-02T00:00:00.000Z')],
          count: 1,
          total: 1,
          limit: 1,
          offset: 0,
          has_more: false,
          sort: 'name:asc',
        }),
        'us-west-2': TIMEOUT,
        'ap-south-1': ok({ detail: [{ loc: ['query', 'sort'], msg: 'bad', type: 'value_error' }] }, 422),
      },
      { sort: 'name:asc', limit: null, offset: null },
      NOW,
    );
    expect(merged.jobs.map((j) => [j.name, j.region])).toEqual([
      ['a', 'us-east-1'],
      ['b', 'eu-west-1'],
    ]);
    expect(merged).toMatchObject({
      count: 2,
      total: 5,
      limit: 1,
      offset: 0,
      has_more: true,
      sort: 'name:asc',
    });
    expect(merged.failed_regions).toEqual(['us-west-2', 'ap-south-1']);
    expect(merged.regions['us-west-2']).toBe(TIMEOUT);
    expect(merged.regions['ap-south-1']?.status).toBe(422);
    expect(merged.regions['eu-west-1']?.body).not.toHaveProperty('jobs');
    expect(merged.timestamp).toBe(NOW.toISOString());
  });
});

describe('mergeHealth', () => {
  test('region classification', () => {
    expect(regionHealth(ok({ status: 'healthy' }))).toBe('healthy');
    expect(regionHealth(ok({ status: 'unhealthy' }, 503))).toBe('unhealthy');
    expect(regionHealth(ok({ status: 'degraded' }))).toBe('unhealthy');
    expect(regionHealth(ok({ message: 'Forbidden' }, 403))).toBe('unreachable');
    expect(regionHealth(TIMEOUT)).toBe('unreachable');
  });

  test('healthy only when every region is; degraded when some are; unhealthy when none or no regions', () => {
    const h = ok({ status: 'healthy' });
    expect(mergeHealth({ a: h, b: h }, NOW).status).toBe('healthy');
    const mixed = mergeHealth({ a: h, b: ok({ status: 'unhealthy' }, 503), c: TIMEOUT }, NOW);
    expect(mixed.status).toBe('degraded');
    expect(mixed.summary).toEqual({ total: 3, healthy: 1, unhealthy: 1, unreachable: 1 });
    expect(mixed.region_status).toEqual({ a: 'healthy', b: 'unhealthy', c: 'unreachable' });
    expect(mixed.failed_regions).toEqual(['b', 'c']);
    expect(mergeHealth({ a: TIMEOUT }, NOW).status).toBe('unhealthy');
    expect(mergeHealth({}, NOW).status).toBe('unhealthy');
  });
});

describe('mergeDelete and mergeStatus', () => {
  test('delete sums the counts of answering regions and tags each job', () => {
    const merged = mergeDelete(
      {
        a: ok({ dry_run: false, matched: 2, deleted: 1, failed: 1, jobs: [{ name: 'x' }, { name: 'y' }] }),
        b: ok({ dry_run: false, matched: 3, deleted: 3, failed: 0, jobs: [{ name: 'z' }] }),
        c: TIMEOUT,
      },
      false,
      NOW,
    );
    expect(merged).toMatchObject({
      dry_run: false,
      matched: 5,
      deleted: 4,
      failed: 1,
      failed_regions: ['c'],
    });
    expect(merged.jobs).toEqual([
      { name: 'x', region: 'a' },
      { name: 'y', region: 'a' },
      { name: 'z', region: 'b' },
    ]);
  });

  test('status collects the four facets per region, null where unknown', () => {
    const merged = mergeStatus(
      {
        a: ok({
          allowed_namespaces: ['svc-jobs'],
          resource_limits: { max_gpus: 4 },
          templates: { count: 2 },
        }),
        b: TIMEOUT,
      },
      NOW,
    );
    expect(merged.allowed_namespaces).toEqual({ a: ['svc-jobs'], b: null });
    expect(merged.resource_limits).toEqual({ a: { max_gpus: 4 }, b: null });
    expect(merged.templates).toEqual({ a: { count: 2 }, b: null });
    expect(merged.webhooks).toEqual({ a: null, b: null });
  });
});

describe('aggregator settings from the environment', () => {
  // Discovery is read by the same reader (regional-apis.test.ts); these cases need one.
  const settingsFromEnv = (env: NodeJS.ProcessEnv) => {
    const { discovery: _discovery, ...settings } = readAggregatorConfig({
      REGIONAL_API_PARAMETER_PATH: '/gco/regional-api',
      ...env,
    });
    return settings;
  };

  test('defaults and validation', () => {
    expect(settingsFromEnv({})).toEqual({ budgetMs: 27_000, expectedRegions: [] });
    expect(
      settingsFromEnv({
        AGGREGATOR_BUDGET_MS: '20000',
        AGGREGATOR_REGION_TIMEOUT_MS: '8000',
        REGIONS: 'us-east-1',
      }),
    ).toEqual({ budgetMs: 20_000, regionTimeoutMs: 8000, expectedRegions: ['us-east-1'] });
    expect(() => settingsFromEnv({ AGGREGATOR_BUDGET_MS: '29000' })).toThrow('AGGREGATOR_BUDGET_MS');
    expect(() => settingsFromEnv({ AGGREGATOR_REGION_TIMEOUT_MS: 'soon' })).toThrow(
      'AGGREGATOR_REGION_TIMEOUT_MS',
    );
  });
});
