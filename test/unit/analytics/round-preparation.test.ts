/**
 * A round's events prepared in slices (lambda/analytics-events/round-preparation.ts, advanced while the
 * in-progress put is in flight) must give exactly what preparing them at once gives: the same answers in
 * input order, the same records in the same order, whatever the slice size and wherever it stops.
 */
import { describe, expect, test } from '@jest/globals';
import { batchResult, OK, type EventResult } from '../../../lambda/analytics-events/batch.js';
import { RoundPreparation } from '../../../lambda/analytics-events/round-preparation.js';
import { mixedBatch } from '../../integration/analytics/fixtures.js';

const APP = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';
const NOW = Date.now();

const records = (p: RoundPreparation) =>
  p.all().records.map((r) => ({
    index: r.index,
    partitionKey: r.partitionKey,
    data: Buffer.from(r.data).toString(),
  }));

describe('slices give the answer of one pass', () => {
  const fixtures = mixedBatch(57, 4, NOW);
  const events = fixtures.map((f) => f.event);
  const all = events.map((_, i) => i);
  const once = new RoundPreparation(events, APP, NOW, undefined, all);
  const expected = { results: once.all().results, records: records(once) };

  test('the one pass answers the invalid events and keeps the valid ones, in order', () => {
    expect(expected.records.map((r) => r.index)).toEqual(fixtures.flatMap((f, i) => (f.valid ? [i] : [])));
    fixtures.forEach((f, i) => {
      if (f.valid) expect(expected.results[i]).toBeUndefined();
      else expect(expected.results[i]).toMatchObject({ Result: 'Error', ErrorCode: 'InvalidEvent' });
    });
  });

  test.each([1, 7, 56, 57, 100])('slices of %i, then the rest at once', (size) => {
    const sliced = new RoundPreparation(events, APP, NOW, undefined, all);
    // As ingest.ts does: a few slices while the put is out, then all() when the function runs.
    sliced.step(size);
    sliced.step(size);
    expect(sliced.all().results).toEqual(expected.results);
    expect(records(sliced)).toEqual(expected.records);
  });

  test('step reports done only when every event is prepared, and all() after done changes nothing', () => {
    const sliced = new RoundPreparation(events, APP, NOW, undefined, all);
    const done: boolean[] = [];
    for (let i = 0; i < 4; i++) done.push(sliced.step(20));
    expect(done).toEqual([false, false, true, true]);
    expect(records(sliced)).toEqual(expected.records);
  });
});

test('a resend round prepares only its indices and keeps the earlier answers of the others', () => {
  const fixtures = mixedBatch(10, 3, NOW);
  const events = fixtures.map((f) => f.event);
  const throttled: EventResult = { Result: 'Error', ErrorCode: 'ThroughputExceeded' };
  const previous = batchResult(events.map((_, i) => (i === 1 || i === 4 ? throttled : OK)));
  const round = new RoundPreparation(events, APP, NOW, previous, [1, 4]);
  round.step(1);
  const { results, records: out } = round.all();
  expect(out.map((r) => r.index)).toEqual([1, 4].filter((i) => fixtures[i]?.valid));
  results.forEach((r, i) => {
    if (i !== 1 && i !== 4) expect(r).toBe(OK);
  });
  // The earlier answer object is not changed in place.
  expect(previous.Events[1]).toBe(throttled);
});
