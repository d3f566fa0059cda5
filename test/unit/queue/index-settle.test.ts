/**
 * IndexSettleWake: a wake comes at least `settleMs` after the latest arrival of a burst (so the index read
 * it starts can see every job of the burst), with one timer at a time, and none after cancel(). Timers
 * only ever fire late, never early, so the "at least" holds under any load.
 */
import { performance } from 'node:perf_hooks';
import { IndexSettleWake } from '../../../cluster/manifest-processor/src/queue/index-settle.js';
import { sleep } from '../../support/wait-for.js';

const SETTLE_MS = 60;

test('a burst of arrivals gets a wake a settle time after its last arrival', async () => {
  const wakes: number[] = [];
  const settle = new IndexSettleWake(() => wakes.push(performance.now()), SETTLE_MS);
  const arrivals: number[] = [];
  for (let i = 0; i < 4; i++) {
    settle.arrived();
    arrivals.push(performance.now());
    await sleep(25);
  }
  await sleep(SETTLE_MS * 3);
  const last = arrivals.at(-1)!;
  expect(wakes.some((at) => at >= last + SETTLE_MS - 2)).toBe(true);
  // One timer at a time: the first wake a settle time after the first arrival, then what the burst still owed.
  expect(wakes.length).toBeGreaterThanOrEqual(1);
  expect(wakes.length).toBeLessThanOrEqual(arrivals.length);
  expect(wakes[0]! - arrivals[0]!).toBeGreaterThanOrEqual(SETTLE_MS - 2);
  settle.cancel();
});

test('no wake after cancel()', async () => {
  let woken = 0;
  const settle = new IndexSettleWake(() => woken++, SETTLE_MS);
  settle.arrived();
  settle.cancel();
  await sleep(SETTLE_MS * 2);
  expect(woken).toBe(0);
});
