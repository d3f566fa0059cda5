/**
 * Event batches with a known verdict per event: each fixture says whether it is valid and, if so, the
 * stream record it must become (computed here from the input, independently of the handler's code).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { EventRecord } from '../../../lambda/analytics-events/event-validation.js';

/** An RFC 9562 version 7 UUID (48-bit Unix ms timestamp, then random bits). */
export function uuidv7(ms = Date.now()): string {
  const b = randomBytes(16);
  b.writeUIntBE(ms, 0, 6);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x70;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The record an accepted event becomes, less what the handler adds (application id, receive time). */
type ExpectedRecord = Omit<EventRecord, 'application_id' | 'received_at'>;

export type Fixture =
  | { valid: true; event: Record<string, unknown>; record: ExpectedRecord }
  | { valid: false; event: unknown; message: RegExp };

const DAY = 24 * 60 * 60 * 1000;

/** The i-th valid event: ids v4/v7, timestamps in seconds, milliseconds and RFC 3339, optional fields. */
export function validFixture(i: number, now = Date.now()): Fixture {
  const id = i % 2 === 0 ? randomUUID() : uuidv7(now);
  const base = { event_id: id, event_type: 'gameplay', event_name: `level_${i % 17}` };
  const at = now - (i % 1000) * 1000;
  switch (i % 5) {
    case 0:
      return {
        valid: true,
        event: { ...base, event_timestamp: Math.floor(at / 1000) },
        record: { ...base, event_timestamp: Math.floor(at / 1000) * 1000 },
      };
    case 1:
      return {
        valid: true,
        event: { ...base, event_timestamp: at, event_version: '1.0', app_version: '3.2.1' },
        record: { ...base, event_timestamp: at, event_version: '1.0', app_version: '3.2.1' },
      };
    case 2: {
      const iso = new Date(at).toISOString();
      return {
        valid: true,
        event: {
          ...base,
          event_timestamp: iso,
          event_data: { score: i, items: ['a', 'b'], nested: { ok: true } },
        },
        record: {
          ...base,
          event_timestamp: Date.parse(iso),
          event_data: { score: i, items: ['a', 'b'], nested: { ok: true } },
        },
      };
    }
    case 3: {
      // An offset instead of Z, and an upper-case id (stored lower-case).
      const iso = new Date(at).toISOString().replace('Z', '+00:00');
      return {
        valid: true,
        event: { ...base, event_id: id.toUpperCase(), event_timestamp: iso },
        record: { ...base, event_timestamp: Date.parse(iso) },
      };
    }
    default:
      // Epoch seconds with a fraction.
      return {
        valid: true,
        event: { ...base, event_timestamp: at / 1000 + 0.25 },
        record: { ...base, event_timestamp: Math.round(at + 250) },
      };
  }
}

/** The i-th invalid event, cycling through every rule. */
function invalidFixture(i: number, now = Date.now()): Fixture {
  const good = { event_id: randomUUID(), event_type: 'gameplay', event_name: 'start', event_timestamp: now };
  const cases: [unknown, RegExp][] = [
    [{ ...good, event_name: undefined }, /^event_name is required$/],
    [{ ...good, event_id: 'not-a-uuid' }, /^event_id must be a UUID/],
    [{ ...good, event_id: '00000000-0000-0000-0000-000000000000' }, /^event_id must be a UUID/],
    [{ ...good, event_timestamp: now + 2 * DAY }, /more than one day in the future/],
    [{ ...good, event_timestamp: '1999-12-31T23:59:59Z' }, /before 2000-01-01/],
    [{ ...good, event_timestamp: '2024-02-30T00:00:00Z' }, /RFC 3339/],
    [{ ...good, event_timestamp: '2024-01-01 00:00:00' }, /RFC 3339/],
    [{ ...good, event_timestamp: true }, /must be a number or a string/],
    [{ ...good, user_id: 'u1' }, /^unknown field "user_id"$/],
    [{ ...good, event_data: [1, 2] }, /^event_data must be a JSON object$/],
    [{ ...good, event_type: 't'.repeat(257) }, /^event_type must be at most 256/],
    [{ ...good, event_type: '  ' }, /^event_type must be a non-empty string$/],
    [{ ...good, app_version: 3 }, /^app_version must be a non-empty string$/],
    [{ ...good, event_version: 'v'.repeat(65) }, /^event_version must be at most 64/],
    ['just a string', /^event must be a JSON object$/],
    [null, /^event must be a JSON object$/],
    [{ ...good, event_data: { blob: 'x'.repeat(64 * 1024) } }, /^event_data must be at most 65536 bytes/],
  ];
  const [event, message] = cases[i % cases.length] ?? ['', /./];
  return { valid: false, event, message };
}

/** `size` events; every `invalidEvery`-th (from offset 3) is invalid. */
export function mixedBatch(size: number, invalidEvery: number, now = Date.now()): Fixture[] {
  let bad = 0;
  return Array.from({ length: size }, (_, i) =>
    i % invalidEvery === 3 ? invalidFixture(bad++, now) : validFixture(i, now),
  );
}

export function batchBody(fixtures: readonly Fixture[]): string {
  return JSON.stringify({ Events: fixtures.map((f) => f.event) });
}
