/** Event validation rules (docs/analytics-api.md, "Events"): ids, texts, timestamps and their range, data size and depth. */
import { randomUUID } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import {
  EVENT_LIMITS,
  nestingDepth,
  validateEvent,
} from '../../../lambda/analytics-events/event-validation.js';
import { uuidv7 } from '../../integration/analytics/fixtures.js';

const APP = randomUUID();
const NOW = Date.UTC(2025, 5, 15, 12, 0, 0);
const event = (overrides: Record<string, unknown> = {}) => ({
  event_id: randomUUID(),
  event_type: 'gameplay',
  event_name: 'start',
  event_timestamp: NOW,
  ...overrides,
});
const check = (overrides: Record<string, unknown>) => validateEvent(event(overrides), APP, NOW);
const messageOf = (overrides: Record<string, unknown>) => {
  const c = check(overrides);
  return c.ok ? undefined : c.message;
};

describe('event_id', () => {
  test.each([
    ['v1', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'],
    ['v4', 'f47ac10b-58cc-4372-a567-0e02b2c3d479'],
    ['v6', '1ec9414c-232a-6b00-b3c8-9e6bdeced846'],
    ['v7', uuidv7(NOW)],
    ['v8', '2489e9ad-2ee2-8e00-8ec9-32d5f69181c0'],
    ['upper case', 'F47AC10B-58CC-4372-A567-0E02B2C3D479'],
  ])('%s is accepted (stored lower-case)', (_name, id) => {
    const c = check({ event_id: id });
    expect(c).toEqual({ ok: true, record: expect.objectContaining({ event_id: id.toLowerCase() }) });
  });

  test.each([
    ['nil', '00000000-0000-0000-0000-000000000000'],
    ['max', 'ffffffff-ffff-ffff-ffff-ffffffffffff'],
    ['version 0', 'f47ac10b-58cc-0372-a567-0e02b2c3d479'],
    ['wrong variant', 'f47ac10b-58cc-4372-c567-0e02b2c3d479'],
    ['no dashes', 'f47ac10b58cc4372a5670e02b2c3d479'],
    ['braces', '{f47ac10b-58cc-4372-a567-0e02b2c3d479}'],
    ['number', 42],
  ])('%s is rejected', (_name, id) => {
    expect(messageOf({ event_id: id })).toBe('event_id must be a UUID (RFC 9562)');
  });
});

describe('event_timestamp', () => {
  const sec = Math.floor(NOW / 1000);
  test.each([
    ['epoch seconds', sec, sec * 1000],
    ['epoch seconds with a fraction', sec + 0.5, sec * 1000 + 500],
    ['epoch milliseconds', NOW, NOW],
    ['RFC 3339 Z', '2025-06-15T12:00:00Z', NOW],
    ['RFC 3339 with fraction', '2025-06-15T12:00:00.123456Z', NOW + 123],
    ['RFC 3339 with offset', '2025-06-15T14:00:00+02:00', NOW],
    ['exactly 2000-01-01', '2000-01-01T00:00:00Z', Date.UTC(2000, 0, 1)],
    ['a day ahead (clock skew)', NOW + EVENT_LIMITS.futureToleranceMs, NOW + EVENT_LIMITS.futureToleranceMs],
    ['leap day', '2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
  ])('%s → epoch ms', (_name, value, ms) => {
    const c = check({ event_timestamp: value });
    expect(c.ok && c.record.event_timestamp).toBe(ms);
  });

  test.each([
    ['missing', undefined, /^event_timestamp is required$/],
    ['before 2000 (seconds)', Date.UTC(1999, 11, 31) / 1000, /before 2000-01-01/],
    ['before 2000 (ms)', Date.UTC(1999, 11, 31), /before 2000-01-01/],
    ['over a day ahead', NOW + EVENT_LIMITS.futureToleranceMs + 1000, /more than one day in the future/],
    ['zero', 0, /positive number/],
    ['negative', -5, /positive number/],
    ['NaN-like string', 'soon', /RFC 3339/],
    ['date only', '2025-06-15', /RFC 3339/],
    ['no offset', '2025-06-15T12:00:00', /RFC 3339/],
    ['impossible date', '2023-02-29T00:00:00Z', /RFC 3339/],
    ['impossible hour', '2025-06-15T25:00:00Z', /RFC 3339/],
    ['numeric string', '1718452800', /RFC 3339/],
    ['object', { s: 1 }, /must be a number or a string/],
  ])('%s → rejected', (_name, value, message) => {
    expect(messageOf({ event_timestamp: value })).toMatch(message);
  });
});

describe('texts and data', () => {
  test('event_type and event_name: required, non-empty, at most 256 characters (code points)', () => {
    expect(messageOf({ event_type: undefined })).toBe('event_type is required');
    expect(messageOf({ event_name: '' })).toBe('event_name must be a non-empty string');
    expect(messageOf({ event_name: 7 })).toBe('event_name must be a non-empty string');
    expect(check({ event_name: '🎮'.repeat(256) }).ok).toBe(true);
    expect(messageOf({ event_name: '🎮'.repeat(257) })).toBe('event_name must be at most 256 characters');
  });

  test('versions are optional strings of at most 64 characters', () => {
    expect(check({ event_version: 'v'.repeat(64), app_version: '1.2.3' }).ok).toBe(true);
    expect(messageOf({ app_version: 'v'.repeat(65) })).toBe('app_version must be at most 64 characters');
    expect(messageOf({ event_version: null })).toBe('event_version must be a non-empty string');
  });

  test('event_data is an object of at most 64 KiB as JSON', () => {
    const fits = { blob: 'x'.repeat(EVENT_LIMITS.eventDataMaxBytes - 11) };
    expect(Buffer.byteLength(JSON.stringify(fits))).toBe(EVENT_LIMITS.eventDataMaxBytes);
    expect(check({ event_data: fits }).ok).toBe(true);
    expect(messageOf({ event_data: { blob: 'x'.repeat(EVENT_LIMITS.eventDataMaxBytes - 10) } })).toMatch(
      /at most 65536 bytes/,
    );
    expect(messageOf({ event_data: 'text' })).toBe('event_data must be a JSON object');
    expect(messageOf({ event_data: null })).toBe('event_data must be a JSON object');
  });

  test('event_data is nested at most 32 levels (counted without recursion, so 100 000 levels cannot crash)', () => {
    const nested = (levels: number) =>
      JSON.parse(`${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`) as Record<string, unknown>;
    expect(nestingDepth(nested(32), 32)).toBe(32);
    expect(check({ event_data: nested(32) }).ok).toBe(true);
    for (const levels of [33, 5_000, 100_000]) {
      expect(messageOf({ event_data: nested(levels) })).toBe(
        'event_data must be nested at most 32 levels deep',
      );
    }
    expect(
      messageOf({ event_data: { list: JSON.parse(`${'['.repeat(40)}${']'.repeat(40)}`) as unknown } }),
    ).toBe('event_data must be nested at most 32 levels deep');
  });

  test('unknown fields are reported, application_id included (the server sets it); long names are cut', () => {
    expect(messageOf({ application_id: APP })).toBe('unknown field "application_id"');
    expect(messageOf({ ['f'.repeat(5000)]: 1 })).toBe(`unknown field "${'f'.repeat(64)}…"`);
  });

  test('the record: the event, normalised, plus application_id and received_at; absent optionals stay absent', () => {
    const id = uuidv7(NOW);
    const c = validateEvent(
      {
        event_id: id,
        event_type: 't',
        event_name: 'n',
        event_timestamp: '2025-06-15T12:00:00Z',
        event_data: { a: 1 },
      },
      APP,
      NOW + 5,
    );
    expect(c).toEqual({
      ok: true,
      record: {
        application_id: APP,
        event_id: id,
        event_type: 't',
        event_name: 'n',
        event_timestamp: NOW,
        event_data: { a: 1 },
        received_at: NOW + 5,
      },
    });
  });
});
