import { describe, expect, test } from '@jest/globals';
import { parseAllocationResponse, type Allocation } from '../../../cluster/cost-monitor/src/opencost.js';
import {
  adhocKey,
  buildReport,
  lastCompletedWindow,
  normalizeRows,
  reportPrefix,
  scheduledKey,
  scheduledReportId,
  summarize,
  summaryOf,
  trailingWindow,
} from '../../../cluster/cost-monitor/src/report.js';

const at = (iso: string) => new Date(iso);
const iso = (w: { start: Date; end: Date }) => [w.start.toISOString(), w.end.toISOString()];

describe('lastCompletedWindow', () => {
  test.each([
    // now, interval, settle → window
    ['2024-05-01T10:07:00Z', 60, 5, '2024-05-01T09:00:00.000Z', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T10:04:59Z', 60, 5, '2024-05-01T08:00:00.000Z', '2024-05-01T09:00:00.000Z'],
    ['2024-05-01T10:05:00Z', 60, 5, '2024-05-01T09:00:00.000Z', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T10:00:00Z', 60, 0, '2024-05-01T09:00:00.000Z', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T10:59:59Z', 60, 0, '2024-05-01T09:00:00.000Z', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T10:07:00Z', 15, 0, '2024-05-01T09:45:00.000Z', '2024-05-01T10:00:00.000Z'],
    ['2024-05-01T10:22:00Z', 15, 5, '2024-05-01T10:00:00.000Z', '2024-05-01T10:15:00.000Z'],
    ['2024-05-01T00:03:00Z', 60, 5, '2024-04-30T22:00:00.000Z', '2024-04-30T23:00:00.000Z'],
    ['2024-05-02T06:00:00Z', 1440, 0, '2024-05-01T00:00:00.000Z', '2024-05-02T00:00:00.000Z'],
    ['2024-05-01T10:07:00Z', 360, 0, '2024-05-01T00:00:00.000Z', '2024-05-01T06:00:00.000Z'],
  ])('at %s with interval %i min and settle %i min → %s – %s', (now, interval, settle, start, end) => {
    expect(iso(lastCompletedWindow(at(now), interval, settle))).toEqual([start, end]);
  });

  test('every replica computes the same window anywhere inside the interval', () => {
    const windows = new Set<string>();
    for (let s = 5 * 60; s < 65 * 60; s += 37) {
      windows.add(
        iso(lastCompletedWindow(new Date(Date.parse('2024-05-01T10:00:00Z') + s * 1000), 60, 5)).join(),
      );
    }
    expect(windows.size).toBe(1);
  });
});

describe('trailingWindow', () => {
  test('ends at the current whole minute', () => {
    expect(iso(trailingWindow(at('2024-05-01T10:07:59.999Z'), 24))).toEqual([
      '2024-04-30T10:07:00.000Z',
      '2024-05-01T10:07:00.000Z',
    ]);
    expect(iso(trailingWindow(at('2024-05-01T10:07:00Z'), 168))[0]).toBe('2024-04-24T10:07:00.000Z');
  });
});

describe('keys and ids', () => {
  const window = { start: at('2024-04-30T23:00:00Z'), end: at('2024-05-01T00:00:00Z') };

  test('scheduled keys are deterministic and filed under the date of the window start', () => {
    expect(scheduledKey('us-east-1', window)).toBe(
      'reports/region=us-east-1/date=2024-04-30/2024-04-30T23:00:00Z_2024-05-01T00:00:00Z.json',
    );
    expect(scheduledKey('us-east-1', { ...window })).toBe(scheduledKey('us-east-1', window));
    expect(scheduledReportId('us-east-1', window)).toBe('scheduled-us-east-1-20240430T2300Z-20240501T0000Z');
  });

  test('ad-hoc keys carry a fixed-width timestamp, so key order is time order', () => {
    const a = adhocKey('eu-west-1', at('2024-05-01T09:59:59.999Z'), 'b');
    const b = adhocKey('eu-west-1', at('2024-05-01T10:00:00.000Z'), 'a');
    expect(a).toBe('adhoc/region=eu-west-1/2024-05-01T09:59:59.999Z-b.json');
    expect(a < b).toBe(true);
    expect(reportPrefix('adhoc', 'eu-west-1')).toBe('adhoc/region=eu-west-1/');
    expect(reportPrefix('scheduled', 'eu-west-1')).toBe('reports/region=eu-west-1/');
  });
});

function alloc(
  key: string,
  values: Partial<Allocation['values']>,
  properties: Allocation['properties'] = {},
) {
  return parseAllocationResponse({ code: 200, data: [{ [key]: { name: key, properties, ...values } }] })[0]!;
}

describe('normalizeRows and summarize', () => {
  const ctx = {
    region: 'us-east-1',
    cluster: 'c1',
    window: { start: at('2024-05-01T09:00:00Z'), end: at('2024-05-01T10:00:00Z') },
  };

  test('namespace and workload come from properties, else from the namespace/kind:name key', () => {
    const rows = normalizeRows(
      [
        alloc(
          'a/deployment:web',
          { totalCost: 3 },
          { namespace: 'a', controller: 'web', controllerKind: 'deployment' },
        ),
        alloc('b/statefulset:db', { totalCost: 2 }), // properties missing: parsed from the key
        alloc('b/__unallocated__', { totalCost: 1 }, { namespace: 'b' }),
        alloc('__idle__', { totalCost: 4 }, { cluster: 'c1' }),
      ],
      ctx,
    );
    expect(rows.map((r) => [r.namespace, r.workload_kind, r.workload, r.total_cost])).toEqual([
      ['__idle__', null, '__idle__', 4],
      ['a', 'deployment', 'web', 3],
      ['b', 'statefulset', 'db', 2],
      ['b', null, '__unallocated__', 1],
    ]);
    expect(rows[1]).toMatchObject({
      region: 'us-east-1',
      cluster: 'c1',
      window_start: '2024-05-01T09:00:00Z',
      window_end: '2024-05-01T10:00:00Z',
    });
  });

  test('allocations of the same workload from several steps are summed, efficiencies cost-weighted', () => {
    const rows = normalizeRows(
      [
        alloc('a/job:x', { cpuCost: 1, cpuEfficiency: 0.2, totalCost: 1, cpuCoreHours: 2 }),
        alloc('a/job:x', { cpuCost: 3, cpuEfficiency: 0.6, totalCost: 3, cpuCoreHours: 6 }),
      ],
      ctx,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ cpu_cost: 4, total_cost: 4, cpu_core_hours: 8, cpu_efficiency: 0.5 });
  });

  test('totals separate idle from allocated cost and round away float noise', () => {
    const rows = normalizeRows(
      [
        alloc('a/job:x', { totalCost: 0.1, gpuCost: 0.1 }),
        alloc('a/job:y', { totalCost: 0.2, gpuCost: 0.2 }),
        alloc('b/job:z', { totalCost: 0.7 }),
        alloc('__idle__', { totalCost: 1.5, cpuCost: 1.5 }),
      ],
      ctx,
    );
    const { totals, by_namespace } = summarize(rows);
    expect(totals).toMatchObject({ total_cost: 2.5, allocated_cost: 1, idle_cost: 1.5, gpu_cost: 0.3 });
    expect(by_namespace).toEqual([
      expect.objectContaining({ namespace: 'b', workloads: 1, total_cost: 0.7 }),
      expect.objectContaining({ namespace: 'a', workloads: 2, total_cost: 0.3, gpu_cost: 0.3 }),
    ]);
  });

  test('a report with no allocations is valid and empty', () => {
    const report = buildReport({
      reportId: 'r',
      kind: 'adhoc',
      region: 'us-east-1',
      cluster: 'c1',
      key: 'k',
      window: ctx.window,
      generatedAt: at('2024-05-01T10:00:00Z'),
      allocations: [],
    });
    expect(report).toMatchObject({ row_count: 0, rows: [], by_namespace: [], window: { hours: 1 } });
    expect(report.totals.total_cost).toBe(0);
    expect(summaryOf(report)).not.toHaveProperty('rows');
  });
});
