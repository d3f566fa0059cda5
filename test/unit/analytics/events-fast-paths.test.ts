/**
 * The events handler's CPU shortcuts give what the general paths give (docs/analytics-api.md, "Where the
 * handler's CPU goes"): record bytes packed into shared slabs are each exactly the UTF-8 of the record
 * JSON, wherever a slab ends; an event_data of scalars is one level deep without the queue; a batch that
 * fits one PutRecords call is chunked as before, and one whose keys' UTF-8 decides is measured exactly.
 */
import { describe, expect, test } from '@jest/globals';
import { checkForStream, nestingDepth } from '../../../lambda/analytics-events/event-validation.js';
import { chunkRecords } from '../../../lambda/analytics-events/kinesis-writer.js';
import { RoundPreparation } from '../../../lambda/analytics-events/round-preparation.js';

const APP = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';
const NOW = Date.now();

test('record bytes in shared slabs are each exactly the UTF-8 of the record JSON, past a slab', () => {
  // ~200 KiB of records (more than three 64 KiB slabs), with 2-, 3- and 4-byte characters, and one
  // record larger than a slab on its own.
  const events = Array.from({ length: 24 }, (_, i) => ({
    event_id: `${i.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`,
    event_type: 'gameplay',
    event_name: `niveau_${i}_réussi_完成_🎮`,
    event_timestamp: Math.floor(NOW / 1000) - i,
    event_data: { note: 'é完🎮x'.repeat(i === 5 ? 6_000 : 1_500), i },
  }));
  const all = events.map((_, i) => i);
  const { records } = new RoundPreparation(events, APP, NOW, undefined, all).all();
  expect(records.map((r) => r.index)).toEqual(all);
  records.forEach((record, i) => {
    const check = checkForStream(events[i], APP, NOW);
    if (!check.ok) throw new Error(check.message);
    expect(Buffer.from(record.data).equals(Buffer.from(check.json, 'utf8'))).toBe(true);
  });
  // Views never overlap: every record kept its own bytes while the later ones were written.
  const texts = records.map((r) => Buffer.from(r.data).toString('utf8'));
  expect(new Set(texts).size).toBe(events.length);
  expect(texts.map((t) => (JSON.parse(t) as { event_data: { i: number } }).event_data.i)).toEqual(all);
});

test('a lone surrogate in event_data reaches the stream escaped, the same bytes as Buffer.from', () => {
  // JSON.stringify writes a lone surrogate as the escape \ud800, so the record text is well formed.
  const event = {
    event_id: '00000001-0000-4000-8000-000000000000',
    event_type: 'gameplay',
    event_name: 'lone',
    event_timestamp: Math.floor(NOW / 1000),
    event_data: { text: 'a\ud800b' },
  };
  const [record] = new RoundPreparation([event], APP, NOW, undefined, [0]).all().records;
  const check = checkForStream(event, APP, NOW);
  if (!check.ok || record === undefined) throw new Error('expected a record');
  expect(Buffer.from(record.data).equals(Buffer.from(check.json, 'utf8'))).toBe(true);
  expect((JSON.parse(Buffer.from(record.data).toString('utf8')) as typeof event).event_data.text).toBe(
    'a\ud800b',
  );
});

describe('nestingDepth', () => {
  test('scalars are 0, an object or array of scalars is 1, one nested level more is 2', () => {
    expect(nestingDepth('text', 32)).toBe(0);
    expect(nestingDepth(null, 32)).toBe(0);
    expect(nestingDepth({}, 32)).toBe(1);
    expect(nestingDepth({ a: 1, b: 'x', c: null, d: true }, 32)).toBe(1);
    expect(nestingDepth([1, 'x', null], 32)).toBe(1);
    expect(nestingDepth({ a: 1, b: { c: 2 } }, 32)).toBe(2);
    expect(nestingDepth({ a: 1, b: [] }, 32)).toBe(2);
    expect(nestingDepth([[1]], 32)).toBe(2);
  });

  test('a flat object past a limit of 0 is still reported as 1 level (more than the limit)', () => {
    expect(nestingDepth({ a: 1 }, 0)).toBe(1);
  });
});

describe('chunkRecords', () => {
  const rec = (index: number, key: string, bytes: number) => ({
    index,
    partitionKey: key,
    data: new Uint8Array(bytes),
  });
  const ids = (chunks: { index: number }[][]) => chunks.map((c) => c.map((r) => r.index));

  test('a batch within both limits is one call, a copy of the input in order', () => {
    const input = [rec(0, 'p', 10), rec(1, 'p', 10), rec(2, 'p', 10)];
    const chunks = chunkRecords(input, 500, 1_000);
    expect(ids(chunks)).toEqual([[0, 1, 2]]);
    expect(chunks[0]).not.toBe(input);
    expect(ids(chunkRecords([rec(0, 'p', 999)], 500, 1_000))).toEqual([[0]]);
  });

  test('partition keys count in UTF-8 bytes when the bound is reached (é is 2 bytes)', () => {
    // 'éé' (4 bytes) + 496 and 'p' + 499: exactly 1,000 bytes, one call, though 3 bytes a unit bounds 1,004.
    expect(ids(chunkRecords([rec(0, 'éé', 496), rec(1, 'p', 499)], 500, 1_000))).toEqual([[0, 1]]);
    expect(ids(chunkRecords([rec(0, 'éé', 497), rec(1, 'p', 499)], 500, 1_000))).toEqual([[0], [1]]);
  });

  test('the record limit splits too, and a record over the byte limit goes alone', () => {
    expect(ids(chunkRecords([rec(0, 'p', 1), rec(1, 'p', 1), rec(2, 'p', 1)], 2, 1_000))).toEqual([
      [0, 1],
      [2],
    ]);
    expect(ids(chunkRecords([rec(0, 'p', 2_000), rec(1, 'p', 1)], 500, 1_000))).toEqual([[0], [1]]);
    expect(chunkRecords([], 500, 1_000)).toEqual([]);
  });
});
