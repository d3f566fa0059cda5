import { mapLimit, Semaphore } from '../../../contracts/runtime/semaphore.js';

describe('Semaphore', () => {
  test('runs at most size tasks at once, the rest in FIFO order', async () => {
    const slots = new Semaphore(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (n: number) => async () => {
      started.push(n);
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      return n * 10;
    };
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => slots.run(task(n))));
    expect(results).toEqual([10, 20, 30, 40, 50]);
    expect(started).toEqual([1, 2, 3, 4, 5]);
    expect(peak).toBe(2);
    await slots.idle();
  });

  test('mapLimit keeps the order of the items and passes a failure on', async () => {
    await expect(mapLimit([3, 1, 2], 2, async (n) => n * 2)).resolves.toEqual([6, 2, 4]);
    await expect(mapLimit([1], 1, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
  });
});
