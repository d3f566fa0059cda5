/**
 * The local web ACL's rate rule (local/api-gateway-emulator/waf.ts) as a sliding-window counter: the
 * state per IP is one fixed-size ring of counts however many requests arrive — the blocked ones
 * included — and IPs with nothing left in the 300 s window are forgotten. Structure sizes are asserted,
 * never timings. A controllable clock drives the window.
 */
import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { LocalWaf } from '../../local/api-gateway-emulator/waf.js';

const WINDOW_MS = 300_000;

function waf(rateLimitPerIp: number, start = 1_000_000_000) {
  let clock = start;
  const instance = new LocalWaf({
    waf: { rateLimitPerIp, maxBodySizeBytes: 1_000 },
    stage: 'prod',
    now: () => clock,
  });
  return { instance, advance: (ms: number) => (clock += ms) };
}

describe('rate rule state', () => {
  test('20,000 requests from one IP, almost all blocked, leave one fixed-size counter', () => {
    const { instance, advance } = waf(100);
    instance.inspect('198.51.100.7', '/prod/api/v1/jobs', 0);
    const initial = instance.rateState();
    expect(initial.trackedIps).toBe(1);
    let blocked = 0;
    for (let i = 0; i < 20_000; i++) {
      if (instance.inspect('198.51.100.7', '/prod/api/v1/jobs', 0) === 'RateLimitPerIp') blocked++;
      if (i % 100 === 0) advance(7); // the requests spread over a little time, within one window
    }
    expect(blocked).toBe(20_000 - 99);
    expect(instance.rateState()).toEqual(initial);
  });

  test('the state is the same size whatever the rate and however the requests spread over windows', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 0, max: 2 * WINDOW_MS })), {
          minLength: 1,
          maxLength: 30,
        }),
        (bursts) => {
          const { instance, advance } = waf(50);
          for (const [requests, gap] of bursts) {
            for (let i = 0; i < requests; i++) instance.inspect('203.0.113.9', '/prod/x', 0);
            advance(gap);
          }
          const state = instance.rateState();
          expect(state.trackedIps).toBeLessThanOrEqual(1);
          for (const size of state.countsPerIp) expect(size).toBe(31);
        },
      ),
      { numRuns: 60, seed: 25 },
    );
  });

  test('IPs with nothing left in the window are forgotten', () => {
    const { instance, advance } = waf(10);
    for (let i = 0; i < 1_000; i++) instance.inspect(`10.0.${i >> 8}.${i & 255}`, '/prod/x', 0);
    expect(instance.rateState().trackedIps).toBe(1_000);
    advance(WINDOW_MS + 20_000);
    instance.inspect('192.0.2.1', '/prod/x', 0);
    expect(instance.rateState().trackedIps).toBe(1);
  });
});

describe('rate rule decisions', () => {
  test('more than the limit within 300 s is blocked; the blocked requests keep counting', () => {
    const { instance, advance } = waf(3);
    const verdicts = Array.from({ length: 5 }, () => instance.inspect('192.0.2.5', '/prod/x', 0));
    expect(verdicts).toEqual([undefined, undefined, undefined, 'RateLimitPerIp', 'RateLimitPerIp']);
    // Another IP has its own count.
    expect(instance.inspect('192.0.2.6', '/prod/x', 0)).toBeUndefined();
    advance(WINDOW_MS - 1_000);
    expect(instance.inspect('192.0.2.5', '/prod/x', 0)).toBe('RateLimitPerIp');
    // Once every counted request is older than the window (plus at most one 10 s slot), it passes.
    advance(WINDOW_MS + 10_000);
    expect(instance.inspect('192.0.2.5', '/prod/x', 0)).toBeUndefined();
  });

  test('never undercounts: any limit + 1 requests within 300 s of each other, the last is blocked', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 21, maxLength: 21 }),
        fc.integer({ min: 0, max: 9_999 }),
        (limit, gaps, phase) => {
          const { instance, advance } = waf(limit, 1_000_000_000 + phase);
          // limit + 1 requests whose spread is at most 300 s.
          const used = gaps.slice(0, limit);
          const spread = used.reduce((a, b) => a + b, 0);
          const scale = spread > WINDOW_MS - 1 ? (WINDOW_MS - 1) / spread : 1;
          let last: string | undefined;
          last = instance.inspect('192.0.2.9', '/prod/x', 0);
          for (const gap of used) {
            advance(Math.floor(gap * scale));
            last = instance.inspect('192.0.2.9', '/prod/x', 0);
          }
          expect(last).toBe('RateLimitPerIp');
        },
      ),
      { numRuns: 100, seed: 25 },
    );
  });
});
