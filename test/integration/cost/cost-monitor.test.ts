/**
 * cost-monitor's operations against dynalite, s3rver and the OpenCost fixture: every seed operation, its
 * 422s, report contents and keys, listing order, status with the source up and down, readiness.
 */
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { waitFor } from '../../support/wait-for.js';
import { BUCKET, startCostEnv, TestClock, type CostEnv, type RunningMonitor } from './harness.js';
import { closedPortUrl, CLUSTER, IDLE_PER_HOUR, WORKLOADS } from '../../../local/opencost-stand-in.js';

let env: CostEnv;
let m: RunningMonitor;
const clock = new TestClock(new Date('2024-05-01T10:07:30Z'));

beforeAll(async () => {
  env = await startCostEnv();
  m = await env.startMonitor({ clock, config: { region: 'us-east-1' }, scheduler: { autoStart: false } });
});

afterAll(async () => {
  await env.close();
});

async function readObject(key: string) {
  const out = await env.s3.client().send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return JSON.parse(await out.Body!.transformToString()) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function keysUnder(prefix: string): Promise<string[]> {
  const out = await env.s3.client().send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key ?? '');
}

const hourly = (pick: (w: (typeof WORKLOADS)[number]) => number) =>
  WORKLOADS.reduce((s, w) => s + pick(w), 0);
const close = (a: number, b: number) => expect(a).toBeCloseTo(b, 4);

describe('operations and OpenAPI', () => {
  test('GET /healthz answers without any authentication', async () => {
    const res = await m.call('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'healthy', service: 'cost-monitor' });
  });

  test('the OpenAPI document carries the seed operation ids, version 1.0.0 and no security scheme', async () => {
    const res = await m.call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info.version).toBe('1.0.0');
    const ids: Record<string, string> = {};
    for (const [path, ops] of Object.entries(
      res.body.paths as Record<string, Record<string, { operationId: string }>>,
    )) {
      for (const [method, op] of Object.entries(ops)) ids[`${method.toUpperCase()} ${path}`] = op.operationId;
    }
    expect(ids).toMatchObject({
      'GET /healthz': 'kubernetes_health_check_healthz_get',
      'GET /readyz': 'kubernetes_readiness_check_readyz_get',
      'GET /internal/reports': 'list_reports_internal_reports_get',
      'POST /internal/reports': 'generate_adhoc_report_internal_reports_post',
      'GET /internal/status': 'get_status_internal_status_get',
    });
    expect(res.body.components.securitySchemes).toBeUndefined();
    const schemas = JSON.stringify(res.body.paths['/internal/reports'].post);
    expect(schemas).toContain('"window_hours"');
    expect(schemas).toContain('"maximum":168');
  });
});

describe('POST /internal/reports', () => {
  test('answers 201 with the report summary (no rows) and stores the full report under a deterministic key', async () => {
    const before = env.opencost.requests.length;
    const res = await m.call('POST', '/internal/reports', { window_hours: 2 });
    expect(res.status).toBe(201);
    const report = res.body;
    expect(report.rows).toBeUndefined();
    expect(report.kind).toBe('adhoc');
    expect(report.region).toBe('us-east-1');
    expect(report.cluster).toBe('gco-us-east-1');
    // Trailing 2 h ending at the current whole minute.
    expect(report.window).toEqual({ start: '2024-05-01T08:07:00Z', end: '2024-05-01T10:07:00Z', hours: 2 });
    expect(report.generated_at).toBe('2024-05-01T10:07:30.000Z');
    expect(report.key).toBe(`adhoc/region=us-east-1/2024-05-01T10:07:30.000Z-${report.report_id}.json`);
    expect(report.report_id).toMatch(/^[0-9a-f-]{36}$/);

    // OpenCost was asked for exactly that window, by namespace and controller, accumulated, with idle.
    const asked = env.opencost.requests.slice(before);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.pathname).toBe('/allocation/compute');
    expect(Object.fromEntries(asked[0]!.searchParams)).toEqual({
      window: '2024-05-01T08:07:00Z,2024-05-01T10:07:00Z',
      aggregate: 'namespace,controller',
      accumulate: 'true',
      includeIdle: 'true',
    });

    // Totals: every workload's cost for 2 h plus the idle cost; namespaces ranked by cost.
    const idle = 2 * (IDLE_PER_HOUR.cpu + IDLE_PER_HOUR.gpu + IDLE_PER_HOUR.ram);
    const allocated =
      2 *
      hourly(
        (w) => w.cpuPerHour + w.gpuPerHour + w.ramPerHour + w.pvPerHour + w.networkPerHour + w.lbPerHour,
      );
    close(report.totals.idle_cost, idle);
    close(report.totals.allocated_cost, allocated);
    close(report.totals.total_cost, idle + allocated);
    close(report.totals.gpu_cost, 2 * (hourly((w) => w.gpuPerHour) + IDLE_PER_HOUR.gpu));
    close(report.totals.gpu_hours, 2 * hourly((w) => w.gpus));
    close(report.totals.cpu_core_hours, 2 * hourly((w) => w.cpuCores));
    expect(report.by_namespace.map((n: { namespace: string }) => n.namespace)).toEqual([
      'inference',
      'svc-jobs',
      'kube-system',
    ]);
    const jobs = report.by_namespace.find((n: { namespace: string }) => n.namespace === 'svc-jobs');
    expect(jobs.workloads).toBe(2);
    close(jobs.gpu_cost, 2 * 3.06);
    expect(report.row_count).toBe(6);

    // The stored object always has the rows.
    const stored = await readObject(report.key);
    expect(stored.report_id).toBe(report.report_id);
    expect(stored.rows).toHaveLength(6);
    expect({ ...stored, rows: undefined }).toEqual({ ...report, rows: undefined });
  });

  test('include_rows returns the normalized rows: one per namespace and workload, idle separate', async () => {
    const res = await m.call('POST', '/internal/reports', { include_rows: true, window_hours: 1 });
    expect(res.status).toBe(201);
    const rows = res.body.rows as Record<string, string | number | null>[];
    expect(rows.map((r) => [r.namespace, r.workload_kind ?? '-', r.workload].join('/')).sort()).toEqual([
      '__idle__/-/__idle__',
      'inference/-/__unallocated__',
      'inference/deployment/llm-server',
      'kube-system/daemonset/aws-node',
      'svc-jobs/job/etl-nightly',
      'svc-jobs/job/train-resnet',
    ]);
    const train = rows.find((r) => r.workload === 'train-resnet')!;
    expect(train).toEqual({
      region: 'us-east-1',
      cluster: CLUSTER,
      namespace: 'svc-jobs',
      workload: 'train-resnet',
      workload_kind: 'job',
      window_start: '2024-05-01T09:07:00Z',
      window_end: '2024-05-01T10:07:00Z',
      cpu_core_hours: 8,
      cpu_cost: 0.25,
      gpu_hours: 1,
      gpu_cost: 3.06,
      ram_byte_hours: 32 * 1024 ** 3,
      ram_cost: 0.1,
      pv_byte_hours: 100 * 1024 ** 3,
      pv_cost: 0.0137,
      network_transfer_bytes: 2_000_000_000,
      network_receive_bytes: 1_000_000_000,
      network_cost: 0.002,
      load_balancer_cost: 0,
      shared_cost: 0,
      external_cost: 0,
      total_cost: 3.4257,
      cpu_efficiency: 0.82,
      ram_efficiency: 0.64,
    });
    // OpenCost's null efficiency (NaN) on the idle allocation becomes 0, never null or NaN.
    const idle = rows.find((r) => r.namespace === '__idle__')!;
    expect(idle.cpu_efficiency).toBe(0);
    // Rows are ordered by cost, highest first.
    const costs = rows.map((r) => r.total_cost as number);
    expect([...costs].sort((a, b) => b - a)).toEqual(costs);
  });

  test('an empty body takes the defaults: a 24 h window without rows', async () => {
    const res = await m.call('POST', '/internal/reports', {});
    expect(res.status).toBe(201);
    expect(res.body.window).toEqual({
      start: '2024-04-30T10:07:00Z',
      end: '2024-05-01T10:07:00Z',
      hours: 24,
    });
    expect(res.body.rows).toBeUndefined();
  });

  test.each([
    [{ window_hours: 0 }, 'window_hours', 'greater_than_equal'],
    [{ window_hours: 169 }, 'window_hours', 'less_than_equal'],
    [{ window_hours: 1.5 }, 'window_hours', 'int_from_float'],
    [{ window_hours: '24' }, 'window_hours', 'int_type'],
    [{ include_rows: 'yes' }, 'include_rows', 'bool_type'],
  ])('body %j → 422 at body.%s (%s)', async (body, field, type) => {
    const res = await m.call('POST', '/internal/reports', body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['body', field] })]);
    expect([type, 'int_type', 'int_parsing']).toContain(res.body.detail[0].type);
  });

  test('OpenCost failing → 502, OpenCost not answering → 504; nothing is stored', async () => {
    const region = 'eu-fail-1';
    const short = await env.startMonitor({
      clock,
      config: { region, opencostTimeoutMs: 300 },
      scheduler: { autoStart: false },
    });
    try {
      env.opencost.mode = 'http-error';
      let res = await short.call('POST', '/internal/reports', {});
      expect(res.status).toBe(502);
      expect(res.body.detail).toMatch(/^Cost data source unavailable: OpenCost answered HTTP 500/);
      env.opencost.mode = 'api-error';
      res = await short.call('POST', '/internal/reports', {});
      expect(res.status).toBe(502);
      expect(res.body.detail).toMatch(/error computing allocation/);
      env.opencost.mode = 'hang';
      res = await short.call('POST', '/internal/reports', {});
      expect(res.status).toBe(504);
      expect(await keysUnder(`adhoc/region=${region}/`)).toEqual([]);
    } finally {
      env.opencost.mode = 'ok';
      await short.close();
    }
  });
});

describe('GET /internal/reports', () => {
  test('ad-hoc listing: newest first, limited, never mixed with scheduled reports, rows left out', async () => {
    const region = 'ap-list-1';
    const c = new TestClock(new Date('2024-06-01T08:00:00Z'));
    const lm = await env.startMonitor({ clock: c, config: { region }, scheduler: { autoStart: false } });
    try {
      const ids: string[] = [];
      for (const at of ['2024-06-01T08:00:00Z', '2024-06-01T09:30:00Z', '2024-06-02T00:15:00Z']) {
        c.set(at);
        const res = await lm.call('POST', '/internal/reports', { window_hours: 1 });
        ids.push(res.body.report_id);
      }
      // A scheduled report of the same region must not show up in the ad-hoc listing (and vice versa).
      await lm.monitor.reports.ensureScheduled({
        start: new Date('2024-06-01T07:00:00Z'),
        end: new Date('2024-06-01T08:00:00Z'),
      });

      let res = await lm.call('GET', '/internal/reports?adhoc=true&limit=2');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ region, kind: 'adhoc', count: 2 });
      expect(res.body.reports.map((r: { report_id: string }) => r.report_id)).toEqual([ids[2], ids[1]]);
      expect(res.body.reports[0].rows).toBeUndefined();
      expect(res.body.reports[0].totals.total_cost).toBeGreaterThan(0);
      expect(res.body.reports[0]).toHaveProperty('last_modified');
      expect(res.body.reports[0]).toHaveProperty('size');

      res = await lm.call('GET', '/internal/reports?adhoc=true');
      expect(res.body.reports.map((r: { report_id: string }) => r.report_id)).toEqual([...ids].reverse());

      res = await lm.call('GET', '/internal/reports');
      expect(res.body.kind).toBe('scheduled');
      expect(res.body.reports.map((r: { kind: string }) => r.kind)).toEqual(['scheduled']);
    } finally {
      await lm.close();
    }
  });

  test('scheduled listing: newest window first across days, limit respected, deterministic keys', async () => {
    const region = 'sa-list-1';
    const lm = await env.startMonitor({ clock, config: { region }, scheduler: { autoStart: false } });
    try {
      const windows = [
        ['2024-04-29T23:00:00Z', '2024-04-30T00:00:00Z'],
        ['2024-04-30T22:00:00Z', '2024-04-30T23:00:00Z'],
        ['2024-05-01T00:00:00Z', '2024-05-01T01:00:00Z'],
        ['2024-04-30T23:00:00Z', '2024-05-01T00:00:00Z'],
        ['2024-05-01T09:00:00Z', '2024-05-01T10:00:00Z'],
      ] as const;
      for (const [start, end] of windows) {
        const out = await lm.monitor.reports.ensureScheduled({ start: new Date(start), end: new Date(end) });
        expect(out.created).toBe(true);
      }
      expect((await keysUnder(`reports/region=${region}/`)).sort()).toEqual([
        `reports/region=${region}/date=2024-04-29/2024-04-29T23:00:00Z_2024-04-30T00:00:00Z.json`,
        `reports/region=${region}/date=2024-04-30/2024-04-30T22:00:00Z_2024-04-30T23:00:00Z.json`,
        `reports/region=${region}/date=2024-04-30/2024-04-30T23:00:00Z_2024-05-01T00:00:00Z.json`,
        `reports/region=${region}/date=2024-05-01/2024-05-01T00:00:00Z_2024-05-01T01:00:00Z.json`,
        `reports/region=${region}/date=2024-05-01/2024-05-01T09:00:00Z_2024-05-01T10:00:00Z.json`,
      ]);

      const res = await lm.call('GET', '/internal/reports?limit=3');
      expect(res.status).toBe(200);
      expect(res.body.reports.map((r: { window: { start: string } }) => r.window.start)).toEqual([
        '2024-05-01T09:00:00Z',
        '2024-05-01T00:00:00Z',
        '2024-04-30T23:00:00Z',
      ]);
      expect(res.body.reports[0].report_id).toBe(`scheduled-${region}-20240501T0900Z-20240501T1000Z`);
      const all = await lm.call('GET', '/internal/reports?adhoc=false&limit=1000');
      expect(all.body.count).toBe(5);
      expect(all.body.reports.at(-1).window.start).toBe('2024-04-29T23:00:00Z');

      // The same window again: the existing object is kept, nothing is rewritten.
      const again = await lm.monitor.reports.ensureScheduled({
        start: new Date('2024-05-01T09:00:00Z'),
        end: new Date('2024-05-01T10:00:00Z'),
      });
      expect(again.created).toBe(false);
    } finally {
      await lm.close();
    }
  });

  test('a region without reports lists nothing', async () => {
    const res = await m.call('GET', '/internal/reports?limit=5');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'scheduled', count: 0, reports: [] });
  });

  test.each([
    ['limit=0', 'limit', 'greater_than_equal'],
    ['limit=1001', 'limit', 'less_than_equal'],
    ['limit=ten', 'limit', 'int_parsing'],
    ['adhoc=maybe', 'adhoc', 'bool_parsing'],
    ['bogus=1', 'bogus', 'extra_forbidden'],
  ])('?%s → 422 at query.%s (%s)', async (query, field, type) => {
    const res = await m.call('GET', `/internal/reports?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc: ['query', field], type })]);
  });
});

describe('GET /internal/status', () => {
  test('source up: healthy, the probe returned data, scheduler reported', async () => {
    const before = env.opencost.requests.length;
    const res = await m.call('GET', '/internal/status');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      service: 'cost-monitor',
      version: '1.0.0',
      region: 'us-east-1',
      cluster: 'gco-us-east-1',
      cost_data_source: {
        type: 'opencost',
        healthy: true,
        probe: {
          window: { start: '2024-05-01T09:57:00Z', end: '2024-05-01T10:07:00Z' },
          aggregate: 'cluster',
          data_returned: true,
          allocations: 2,
        },
      },
      scheduler: { interval_minutes: 60, settle_minutes: 5 },
      storage: { bucket: BUCKET },
    });
    expect(res.body.cost_data_source.probe.total_cost).toBeGreaterThan(0);
    // This monitor's scheduler was never started, so the region is not fully healthy.
    expect(res.body.scheduler.alive).toBe(false);
    expect(res.body.status).toBe('degraded');
    const asked = env.opencost.requests.slice(before);
    expect(asked.map((u) => u.searchParams.get('aggregate'))).toEqual(['cluster']);
  });

  test('source answering without data: healthy, probe false', async () => {
    env.opencost.mode = 'empty';
    try {
      const res = await m.call('GET', '/internal/status');
      expect(res.body.cost_data_source).toMatchObject({
        healthy: true,
        probe: { data_returned: false, allocations: 0 },
      });
      expect(res.body.status).toBe('degraded');
    } finally {
      env.opencost.mode = 'ok';
    }
  });

  test('source down: unhealthy with the reason, probe false, still 200', async () => {
    const down = await env.startMonitor({
      clock,
      config: { region: 'down-1', opencostUrl: await closedPortUrl() },
    });
    try {
      await waitFor(() => down.monitor.scheduler.status().last_outcome === 'failed');
      const res = await down.call('GET', '/internal/status');
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('degraded');
      expect(res.body.cost_data_source).toMatchObject({
        healthy: false,
        error: expect.stringMatching(/^OpenCost unreachable: .*ECONNREFUSED/),
        probe: { data_returned: false },
      });
      // The scheduler keeps running (and retrying) while the source is down.
      expect(res.body.scheduler).toMatchObject({ running: true, alive: true, last_outcome: 'failed' });
    } finally {
      await down.close();
    }
  });

  test('healthy overall when the source has data and the scheduled task is live', async () => {
    const live = await env.startMonitor({ clock, config: { region: 'live-1' } });
    try {
      await waitFor(() => live.monitor.scheduler.status().last_outcome === 'written');
      const res = await live.call('GET', '/internal/status');
      expect(res.body.status).toBe('healthy');
      expect(res.body.scheduler).toMatchObject({
        running: true,
        alive: true,
        current_window: { start: '2024-05-01T09:00:00Z', end: '2024-05-01T10:00:00Z' },
        last_written: {
          window_start: '2024-05-01T09:00:00Z',
          window_end: '2024-05-01T10:00:00Z',
          key: 'reports/region=live-1/date=2024-05-01/2024-05-01T09:00:00Z_2024-05-01T10:00:00Z.json',
        },
      });
    } finally {
      await live.close();
    }
  });
});

describe('GET /readyz', () => {
  test('ready while the scheduled task runs; not ready once it is stopped', async () => {
    const r = await env.startMonitor({ clock, config: { region: 'ready-1' } });
    try {
      let res = await r.call('GET', '/readyz');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'ready',
        service: 'cost-monitor',
        monitor: 'ok',
        scheduled_reports: 'ok',
      });
      await r.monitor.scheduler.stop();
      res = await r.call('GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: 'not_ready', monitor: 'ok', scheduled_reports: 'not_ready' });
    } finally {
      await r.close();
    }
  });

  test('not ready when the task died (an unexpected error ended its loop)', async () => {
    let calls = 0;
    const broken = new TestClock(new Date('2024-05-01T10:07:00Z'));
    const read = broken.read;
    Object.defineProperty(broken, 'read', {
      value: () => {
        calls += 1;
        if (calls > 3) throw new Error('clock exploded');
        return read();
      },
    });
    const r = await env.startMonitor({ clock: broken, config: { region: 'dead-1' } });
    try {
      await waitFor(() => r.monitor.scheduler.status().died !== null);
      const res = await r.call('GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.body.scheduled_reports).toBe('not_ready');
      expect(r.monitor.scheduler.status()).toMatchObject({
        running: false,
        alive: false,
        died: 'clock exploded',
      });
    } finally {
      await r.close();
    }
  });

  test('not ready when no tick finished for too long (a hung dependency)', async () => {
    env.opencost.mode = 'hang';
    const r = await env.startMonitor({
      clock,
      config: { region: 'stale-1', opencostTimeoutMs: 1_500 },
      scheduler: { staleAfterMs: 300 },
    });
    try {
      // The first tick hangs on OpenCost; readiness fails once the heartbeat is older than 300 ms.
      await waitFor(async () => (await r.call('GET', '/readyz')).status === 503);
      expect(r.monitor.scheduler.status().alive).toBe(false);
    } finally {
      env.opencost.mode = 'ok';
      await r.close();
    }
  });
});
