/**
 * What the idempotency record stores (lambda/analytics-events/batch.ts): the compact answer round-trips
 * exactly, the whole-answer object of earlier records is still read, and anything else is refused rather
 * than guessed. And the stream record serialised during validation is exactly JSON.stringify(record).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import {
  batchResult,
  decodeStoredAnswer,
  encodeStoredAnswer,
  OK,
  type EventResult,
} from '../../../lambda/analytics-events/batch.js';
import { checkForStream, validateEvent } from '../../../lambda/analytics-events/event-validation.js';
import { mixedBatch } from '../../integration/analytics/fixtures.js';

const invalid: EventResult = {
  Result: 'Error',
  ErrorCode: 'InvalidEvent',
  ErrorMessage: 'event_name is required',
};
const throttled: EventResult = { Result: 'Error', ErrorCode: 'ThroughputExceeded' };

describe('stored answer', () => {
  test.each([
    ['all Ok', Array.from({ length: 500 }, () => OK)],
    [
      'failures first, last and between',
      [invalid, OK, throttled, OK, { Result: 'Error', ErrorCode: 'InternalFailure' }],
    ],
    ['one event', [throttled]],
  ] as [string, EventResult[]][])('%s: decode(encode(answer)) is the answer', (_name, events) => {
    const answer = batchResult(events);
    const stored = encodeStoredAnswer(answer);
    expect(decodeStoredAnswer(stored)).toEqual(answer);
  });

  test('only the failures are stored: 500 Ok events are a few bytes', () => {
    const stored = encodeStoredAnswer(batchResult(Array.from({ length: 500 }, () => OK)));
    expect(stored).toBe('{"Total":500,"Errors":{}}');
  });

  test('a record of the previous version (the whole answer as an object) is still read', () => {
    const answer = batchResult([OK, invalid, throttled]);
    expect(decodeStoredAnswer(JSON.parse(JSON.stringify(answer)))).toEqual(answer);
  });

  test.each([
    ['not JSON', '{"Total":'],
    ['no Total', '{"Errors":{}}'],
    ['negative Total', '{"Total":-1,"Errors":{}}'],
    ['fractional Total', '{"Total":1.5,"Errors":{}}'],
    ['no Errors', '{"Total":2}'],
    ['index out of range', '{"Total":2,"Errors":{"2":{"Result":"Error","ErrorCode":"InvalidEvent"}}}'],
    ['index not a number', '{"Total":2,"Errors":{"x":{"Result":"Error","ErrorCode":"InvalidEvent"}}}'],
    ['unknown code', '{"Total":2,"Errors":{"0":{"Result":"Error","ErrorCode":"Nope"}}}'],
    ['result neither Ok nor Error', '{"Total":2,"Errors":{"0":{"Result":"Maybe"}}}'],
    ['a number', 42],
    ['null', null],
    ['an object without Events', { Total: 1 }],
    ['Events with a bad entry', { Events: [{ Result: 'Error' }] }],
  ])('%s is refused', (_name, stored) => {
    expect(() => decodeStoredAnswer(stored)).toThrow(/stored batch answer is malformed|JSON/);
  });
});

describe('stream record serialised during validation', () => {
  test('is JSON.stringify of the validated record, with and without event_data', () => {
    const now = Date.now();
    const app = randomUUID();
    const events = [
      ...mixedBatch(60, 7, now).map((f) => f.event),
      { event_id: randomUUID(), event_type: 't', event_name: 'n', event_timestamp: now },
      {
        event_id: randomUUID(),
        event_type: 'ünïcödé 🎮',
        event_name: 'n',
        event_timestamp: now,
        event_data: { nested: { list: [1, 'two', { three: null }] }, emoji: '🎮' },
      },
    ];
    let valid = 0;
    for (const e of events) {
      const check = checkForStream(e, app, now);
      const plain = validateEvent(e, app, now);
      if (!check.ok) {
        expect(plain).toEqual(check);
        continue;
      }
      valid++;
      expect(plain).toEqual({ ok: true, record: check.record });
      expect(check.json).toBe(JSON.stringify(check.record));
    }
    expect(valid).toBeGreaterThan(50);
  });
});
