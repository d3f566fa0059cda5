/**
 * The scheduled-report task: aligned windows from an injected clock, exactly one report per window across
 * racing replicas (conditional Put on the cost-reports table), takeover after a crashed winner's lease.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { waitFor } from '../../support/wait-for.js';
import { BUCKET, startCostEnv, TestClock, type CostEnv } from './harness.js';

let env: CostEnv;

beforeAll(async () => {
  env = await startCostEnv();
});

afterAll(async () => {
  await env.close();
});

async function keysUnder(prefix: string): Promise<string[]> {
  const out = await env.s3.client().send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key ?? '').sort();
}

/** OpenCost allocation requests for one window (`start,end`), from request number `from` on. */
const askedFor = (start: string, end: string, from = 0) =>
  env.opencost.requests.slice(from).filter((u) => u.searchParams.get('window') === `${start},${end}`).length;

describe('window alignment (injected clock)', () => {
  test('hourly: at 10:07 the 09:00–10:00 window is written once; the next one only after it settles', async () => {
    const region = 'align-1';
    const clock = new TestClock(new Date('2024-05-01T10:07:00Z'));
    const m = await env.startMonitor({ clock, config: { region }, scheduler: { autoStart: false } });
    try {
      expect(await m.monitor.scheduler.tick()).toBe('written');
      expect(askedFor('2024-05-01T09:00:00Z', '2024-05-01T10:00:00Z')).toBe(1);
      expect(await m.monitor.scheduler.tick()).toBe('up_to_date');
      clock.set('2024-05-01T11:04:59Z'); // 10:00–11:00 has ended but not settled (5 min)
      expect(await m.monitor.scheduler.tick()).toBe('up_to_date');
      clock.set('2024-05-01T11:05:00Z');
      expect(await m.monitor.scheduler.tick()).toBe('written');
      expect(await keysUnder(`reports/region=${region}/`)).toEqual([
        `reports/region=${region}/date=2024-05-01/2024-05-01T09:00:00Z_2024-05-01T10:00:00Z.json`,
        `reports/region=${region}/date=2024-05-01/2024-05-01T10:00:00Z_2024-05-01T11:00:00Z.json`,
      ]);
      const res = await m.call('GET', '/internal/reports?limit=1');
      expect(res.body.reports[0]).toMatchObject({
        kind: 'scheduled',
        report_id: `scheduled-${region}-20240501T1000Z-20240501T1100Z`,
        window: { start: '2024-05-01T10:00:00Z', end: '2024-05-01T11:00:00Z', hours: 1 },
        generated_at: '2024-05-01T11:05:00.000Z',
      });
    } finally {
      await m.close();
    }
  });

  test('15-minute interval without settle delay, and a window that ends at midnight files under its start date', async () => {
    const region = 'align-2';
    const clock = new TestClock(new Date('2024-05-01T10:07:00Z'));
    const m = await env.startMonitor({
      clock,
      config: { region, intervalMinutes: 15, settleMinutes: 0 },
      scheduler: { autoStart: false },
    });
    try {
      expect(await m.monitor.scheduler.tick()).toBe('written');
      clock.set('2024-05-02T00:00:00Z');
      expect(await m.monitor.scheduler.tick()).toBe('written');
      expect(await keysUnder(`reports/region=${region}/`)).toEqual([
        `reports/region=${region}/date=2024-05-01/2024-05-01T09:45:00Z_2024-05-01T10:00:00Z.json`,
        `reports/region=${region}/date=2024-05-01/2024-05-01T23:45:00Z_2024-05-02T00:00:00Z.json`,
      ]);
    } finally {
      await m.close();
    }
  });
});

describe('exactly once across replicas', () => {
  test('two replicas racing for the same windows: one object per window, one OpenCost query, both return', async () => {
    const region = 'race-1';
    const clock = new TestClock(new Date('2024-05-01T10:07:00Z'));
    const a = await env.startMonitor({
      clock,
      instanceId: 'pod-a',
      config: { region },
      scheduler: { autoStart: false },
    });
    const b = await env.startMonitor({
      clock,
      instanceId: 'pod-b',
      config: { region },
      scheduler: { autoStart: false },
    });
    try {
      const hours = ['10', '11', '12', '13', '14'];
      const from = env.opencost.requests.length;
      for (const hour of hours) {
        clock.set(`2024-05-01T${hour}:07:00Z`);
        const outcomes = await Promise.all([a.monitor.scheduler.tick(), b.monitor.scheduler.tick()]);
        // Exactly one replica writes; the other either sees the live claim or the finished record.
        expect(outcomes.filter((o) => o === 'written')).toHaveLength(1);
        expect(outcomes.filter((o) => o === 'claimed_elsewhere' || o === 'already_written')).toHaveLength(1);
        // The loser looks again on its next tick and stands down for good once the record is written.
        const loser = outcomes[0] === 'written' ? b : a;
        expect(
          await waitFor(async () => (await loser.monitor.scheduler.tick()) === 'up_to_date' || undefined),
        ).toBe(true);
      }
      const keys = await keysUnder(`reports/region=${region}/`);
      expect(keys).toHaveLength(hours.length);
      for (const hour of hours) {
        const start = `2024-05-01T${String(Number(hour) - 1).padStart(2, '0')}:00:00Z`;
        const end = `2024-05-01T${hour}:00:00Z`;
        expect(keys).toContain(`reports/region=${region}/date=2024-05-01/${start}_${end}.json`);
        expect(askedFor(start, end, from)).toBe(1);
      }
      // The claim record names the winner and the object.
      const item = await env.dynamo.client().send(
        new GetItemCommand({
          TableName: env.table,
          Key: { report_key: { S: `scheduled#${region}#2024-05-01T13:00:00Z#2024-05-01T14:00:00Z` } },
          ConsistentRead: true,
        }),
      );
      expect(item.Item?.status?.S).toBe('written');
      expect(['pod-a', 'pod-b']).toContain(item.Item?.owner?.S);
      expect(item.Item?.s3_key?.S).toBe(
        `reports/region=${region}/date=2024-05-01/2024-05-01T13:00:00Z_2024-05-01T14:00:00Z.json`,
      );
      // The record expires (DynamoDB TTL) well after the window stops being looked at.
      expect(Number(item.Item?.expires_at?.N)).toBeGreaterThan(Date.parse('2024-05-07T00:00:00Z') / 1000);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('two live scheduler loops: both ready, one report', async () => {
    const region = 'race-2';
    const clock = new TestClock(new Date('2024-05-01T10:07:00Z'));
    const a = await env.startMonitor({ clock, instanceId: 'pod-a', config: { region } });
    const b = await env.startMonitor({ clock, instanceId: 'pod-b', config: { region } });
    try {
      await waitFor(() =>
        [a, b].every((m) =>
          ['up_to_date', 'already_written', 'written'].includes(
            m.monitor.scheduler.status().last_outcome ?? '',
          ),
        ),
      );
      await waitFor(() => [a, b].some((m) => m.monitor.scheduler.status().last_written !== null));
      expect(await keysUnder(`reports/region=${region}/`)).toEqual([
        `reports/region=${region}/date=2024-05-01/2024-05-01T09:00:00Z_2024-05-01T10:00:00Z.json`,
      ]);
      expect(askedFor('2024-05-01T09:00:00Z', '2024-05-01T10:00:00Z')).toBeGreaterThanOrEqual(1);
      for (const m of [a, b]) expect((await m.call('GET', '/readyz')).status).toBe(200);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a winner that crashed before writing: the window is taken over once its lease expires', async () => {
    const region = 'crash-1';
    const clock = new TestClock(new Date('2024-05-01T10:07:00Z'));
    const window = { start: new Date('2024-05-01T09:00:00Z'), end: new Date('2024-05-01T10:00:00Z') };
    const crashed = await env.startMonitor({
      clock,
      instanceId: 'pod-crashed',
      config: { region },
      scheduler: { autoStart: false, leaseSeconds: 120 },
    });
    const survivor = await env.startMonitor({
      clock,
      instanceId: 'pod-survivor',
      config: { region },
      scheduler: { autoStart: false, leaseSeconds: 120 },
    });
    try {
      // pod-crashed wins the claim, then dies before writing anything.
      expect(await crashed.monitor.claims.claim(window, clock.read())).toEqual({ won: true });
      await crashed.close();

      expect(await survivor.monitor.scheduler.tick()).toBe('claimed_elsewhere');
      clock.set('2024-05-01T10:08:59Z'); // lease (120 s) not yet over
      expect(await survivor.monitor.scheduler.tick()).toBe('claimed_elsewhere');
      expect(await keysUnder(`reports/region=${region}/`)).toEqual([]);
      clock.set('2024-05-01T10:09:01Z');
      expect(await survivor.monitor.scheduler.tick()).toBe('written');
      expect(await keysUnder(`reports/region=${region}/`)).toHaveLength(1);
    } finally {
      await survivor.close();
    }
  });

  test('a winner that wrote S3 but died before recording it: the next replica records it without regenerating', async () => {
    const region = 'crash-2';
    const clock = new TestClock(new Date('2024-05-01T10:07:00Z'));
    const window = { start: new Date('2024-05-01T09:00:00Z'), end: new Date('2024-05-01T10:00:00Z') };
    const opts = { clock, config: { region }, scheduler: { autoStart: false, leaseSeconds: 60 } };
    const crashed = await env.startMonitor({ ...opts, instanceId: 'pod-crashed' });
    const survivor = await env.startMonitor({ ...opts, instanceId: 'pod-survivor' });
    try {
      expect(await crashed.monitor.claims.claim(window, clock.read())).toEqual({ won: true });
      await crashed.monitor.reports.ensureScheduled(window);
      await crashed.close();
      const queries = askedFor('2024-05-01T09:00:00Z', '2024-05-01T10:00:00Z');

      clock.set('2024-05-01T10:08:01Z');
      expect(await survivor.monitor.scheduler.tick()).toBe('recorded');
      expect(askedFor('2024-05-01T09:00:00Z', '2024-05-01T10:00:00Z')).toBe(queries);
      expect(await keysUnder(`reports/region=${region}/`)).toHaveLength(1);
    } finally {
      await survivor.close();
    }
  });

  test('a failed attempt gives its claim back, so the window is retried without waiting for the lease', async () => {
    const region = 'retry-1';
    const clock = new TestClock(new Date('2024-05-01T10:07:00Z'));
    const m = await env.startMonitor({ clock, config: { region }, scheduler: { autoStart: false } });
    try {
      env.opencost.mode = 'http-error';
      expect(await m.monitor.scheduler.tick()).toBe('failed');
      expect(m.monitor.scheduler.status().last_error).toMatch(/OpenCost answered HTTP 500/);
      const item = await env.dynamo.client().send(
        new GetItemCommand({
          TableName: env.table,
          Key: { report_key: { S: `scheduled#${region}#2024-05-01T09:00:00Z#2024-05-01T10:00:00Z` } },
          ConsistentRead: true,
        }),
      );
      expect(item.Item).toBeUndefined();
      env.opencost.mode = 'ok';
      expect(await m.monitor.scheduler.tick()).toBe('written');
      expect(m.monitor.scheduler.status().last_error).toBeNull();
    } finally {
      env.opencost.mode = 'ok';
      await m.close();
    }
  });
});
