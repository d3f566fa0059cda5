/**
 * PollingLoop.wake(): new work runs the next pass at once when the loop is healthy, and shortens a
 * failure back-off to its first step (never to zero) so work queued during a long back-off does not
 * wait for all of it. Jest's fake timers drive setTimeout and performance.now() together.
 */
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { PollingLoop } from '../../../cluster/shared/polling-loop.js';

const INTERVAL = 5_000;
const FIRST_STEP = 1_000;
const LONG_BACKOFF = 60_000;

/** A loop whose passes fail while `failing` is set; counts the passes it ran. */
function loop(opts: { failing: boolean }) {
  const state = { passes: 0, failing: opts.failing };
  const l = new PollingLoop({
    name: 'test',
    intervalMs: INTERVAL,
    pass: () => {
      state.passes += 1;
      return state.failing ? Promise.reject(new Error('table unavailable')) : Promise.resolve(false);
    },
    backoffMs: (failures) => (failures === 1 ? FIRST_STEP : LONG_BACKOFF),
  });
  return { l, state };
}

/** Runs due timers and the promise callbacks they start, `ms` of fake time. */
async function advance(ms: number): Promise<void> {
  await jest.advanceTimersByTimeAsync(ms);
}

describe('PollingLoop.wake', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('runs the next pass at once while the loop waits out its interval', async () => {
    const { l, state } = loop({ failing: false });
    l.start();
    await advance(0);
    expect(state.passes).toBe(1);
    l.wake();
    await advance(0);
    expect(state.passes).toBe(2);
    await l.stop();
  });

  it('does nothing once stopped', async () => {
    const { l, state } = loop({ failing: false });
    l.start();
    await advance(0);
    await l.stop();
    l.wake();
    await advance(INTERVAL * 2);
    expect(state.passes).toBe(1);
  });

  it('shortens a long back-off to its first step from when the pause began, not to zero', async () => {
    const { l, state } = loop({ failing: true });
    l.start();
    await advance(0); // pass 1 fails: pause FIRST_STEP
    await advance(FIRST_STEP); // pass 2 fails: pause LONG_BACKOFF
    expect(state.passes).toBe(2);
    expect(l.consecutiveFailures).toBe(2);

    await advance(200);
    l.wake();
    await advance(FIRST_STEP - 201);
    expect(state.passes).toBe(2); // not before the first step
    state.failing = false;
    await advance(1);
    expect(state.passes).toBe(3); // at the first step, not after LONG_BACKOFF
    expect(l.consecutiveFailures).toBe(0);
    await l.stop();
  });

  it('lets a failing dependency see at most one pass per first step however many wakes come', async () => {
    const { l, state } = loop({ failing: true });
    l.start();
    await advance(0);
    await advance(FIRST_STEP); // two failures: now in the long back-off
    for (let t = 0; t < 10 * FIRST_STEP; t += 100) {
      l.wake();
      await advance(100);
    }
    // 10 first steps of waking: one pass per step at most (each failed pass starts a new pause).
    expect(state.passes).toBeGreaterThan(2);
    expect(state.passes - 2).toBeLessThanOrEqual(10);
    await l.stop();
  });

  it('a wake during a failing pass leaves the first back-off step after it, not the long one', async () => {
    let release: () => void = () => undefined;
    const state = { passes: 0 };
    const l = new PollingLoop({
      name: 'test',
      intervalMs: INTERVAL,
      pass: () => {
        state.passes += 1;
        if (state.passes === 2) {
          return new Promise<boolean>((_, reject) => {
            release = () => reject(new Error('still unavailable'));
          });
        }
        return state.passes === 1 ? Promise.reject(new Error('unavailable')) : Promise.resolve(false);
      },
      backoffMs: (failures) => (failures === 1 ? FIRST_STEP : LONG_BACKOFF),
    });
    l.start();
    await advance(0); // pass 1 fails
    await advance(FIRST_STEP); // pass 2 starts and hangs
    expect(state.passes).toBe(2);
    l.wake();
    release(); // pass 2 fails: the back-off would be LONG_BACKOFF
    await advance(FIRST_STEP);
    expect(state.passes).toBe(3);
    await l.stop();
  });
});
