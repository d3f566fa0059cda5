import { backoffDelayMs } from '../../../contracts/runtime/backoff.js';

describe('backoffDelayMs', () => {
  const policy = { baseMs: 100, capMs: 1_000 };

  test('doubles per exponent up to the cap', () => {
    const ceiling = (n: number) => backoffDelayMs(n, { ...policy, jitter: 'none' });
    expect([0, 1, 2, 3, 4, 10].map(ceiling)).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  test('full jitter is uniform below the ceiling, equal jitter keeps half of it', () => {
    expect(backoffDelayMs(2, policy, () => 0)).toBe(0);
    expect(backoffDelayMs(2, policy, () => 0.5)).toBe(200);
    expect(backoffDelayMs(2, { ...policy, jitter: 'equal' }, () => 0)).toBe(200);
    expect(backoffDelayMs(2, { ...policy, jitter: 'equal' }, () => 1)).toBe(400);
  });
});
