/**
 * Configuration of the analytics handlers (docs/analytics-api.md, "Environment"): every problem named at
 * once. Their Lambda entry points without configuration: test/unit/lambda/entry-points.test.ts.
 */
import { describe, expect, test } from '@jest/globals';
import * as admin from '../../../lambda/analytics-admin/index.js';
import * as events from '../../../lambda/analytics-events/index.js';
import { backoffDelayMs } from '../../../contracts/runtime/backoff.js';
import { chunkRecords } from '../../../lambda/analytics-events/kinesis-writer.js';

describe('createHandlerFromEnv', () => {
  test('admin needs both table names', () => {
    expect(() => admin.createHandlerFromEnv({})).toThrow(
      /APPLICATIONS_TABLE: required[\s\S]*AUTHORIZATIONS_TABLE: required/,
    );
  });

  test('events needs its tables and stream; the idempotency window is 60 s – 7 days', () => {
    expect(() => events.createHandlerFromEnv({})).toThrow(
      /APPLICATIONS_TABLE: required[\s\S]*IDEMPOTENCY_TABLE: required[\s\S]*EVENTS_STREAM_NAME: required/,
    );
    const base = { APPLICATIONS_TABLE: 'a', IDEMPOTENCY_TABLE: 'i', EVENTS_STREAM_NAME: 's' };
    expect(() => events.createHandlerFromEnv({ ...base, IDEMPOTENCY_TTL_SECONDS: '30' })).toThrow(
      /IDEMPOTENCY_TTL_SECONDS: expected a value in 60..604800/,
    );
    expect(() => events.createHandlerFromEnv({ ...base, EVENTS_STREAM_NAME: 'bad name!' })).toThrow(
      /EVENTS_STREAM_NAME: expected a Kinesis stream name/,
    );
    expect(typeof events.createHandlerFromEnv({ ...base, IDEMPOTENCY_TTL_SECONDS: '86400' })).toBe(
      'function',
    );
  });
});

describe('helpers', () => {
  test('backoff: full jitter within min(cap, base·2^n)', () => {
    const policy = { baseMs: 50, capMs: 2_000 };
    expect(backoffDelayMs(1, policy, () => 0)).toBe(0);
    expect(backoffDelayMs(1, policy, () => 0.999)).toBe(99);
    expect(backoffDelayMs(3, policy, () => 0.5)).toBe(200);
    expect(backoffDelayMs(10, policy, () => 0.999)).toBe(1_998);
  });

  test('chunking keeps record order and both limits', () => {
    const rec = (index: number, bytes: number) => ({ index, partitionKey: 'p', data: new Uint8Array(bytes) });
    expect(
      chunkRecords([rec(0, 10), rec(1, 10), rec(2, 10)], 2, 1_000).map((c) => c.map((r) => r.index)),
    ).toEqual([[0, 1], [2]]);
    expect(
      chunkRecords([rec(0, 600), rec(1, 398), rec(2, 1)], 500, 1_000).map((c) => c.map((r) => r.index)),
    ).toEqual([[0, 1], [2]]);
    expect(chunkRecords([], 500, 1_000)).toEqual([]);
  });
});
