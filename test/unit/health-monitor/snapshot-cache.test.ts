import { SnapshotCache } from '../../../cluster/health-monitor/src/snapshot-cache.js';
import type { ClusterSnapshot } from '../../../cluster/health-monitor/src/snapshot.js';

const snap = (n: number): ClusterSnapshot => ({
  collectedAt: new Date(n),
  nodes: [],
  pods: { total: n, pending: 0, running: 0, succeeded: 0, failed: 0, unknown: 0 },
  metricsError: null,
});

describe('SnapshotCache', () => {
  test('serves the cached snapshot within the interval and refreshes once it is older', async () => {
    let now = 0;
    let calls = 0;
    const cache = new SnapshotCache(
      async () => snap(++calls),
      30_000,
      undefined,
      () => now,
    );
    const first = await cache.current();
    expect(first.ok && first.snapshot.pods.total).toBe(1);
    now = 30_000;
    expect((await cache.current()).ok && calls).toBe(1);
    now = 30_001;
    const refreshed = await cache.current();
    expect(refreshed.ok && refreshed.snapshot.pods.total).toBe(2);
  });

  test('concurrent readers share one refresh', async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const cache = new SnapshotCache(async () => {
      calls++;
      await gate;
      return snap(calls);
    }, 1000);
    const readers = Promise.all([cache.current(), cache.current(), cache.current()]);
    release();
    await readers;
    expect(calls).toBe(1);
  });

  test('a failed refresh is reported with the last good snapshot', async () => {
    let fail = false;
    let now = 0;
    const errors: unknown[] = [];
    const cache = new SnapshotCache(
      async () => {
        if (fail) throw new Error('connect ECONNREFUSED');
        return snap(7);
      },
      10,
      (e) => errors.push(e),
      () => now,
    );
    await cache.current();
    fail = true;
    now = 100;
    const state = await cache.current();
    expect(state).toMatchObject({ ok: false, error: 'connect ECONNREFUSED' });
    expect(!state.ok && state.lastGood?.pods.total).toBe(7);
    expect(errors).toHaveLength(1);
  });

  test('start/stop drive the background loop', async () => {
    let calls = 0;
    const cache = new SnapshotCache(async () => snap(++calls), 5);
    expect(cache.running).toBe(false);
    cache.start();
    expect(cache.running).toBe(true);
    while (calls < 3) await new Promise((r) => setTimeout(r, 5));
    cache.stop();
    const after = calls;
    await new Promise((r) => setTimeout(r, 30));
    expect(calls).toBeLessThanOrEqual(after + 1);
    expect(cache.running).toBe(false);
  });
});
