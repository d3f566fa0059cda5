/**
 * Validation of one game event and its stream record: the API's event fields (docs/analytics-api.md,
 * "Events"):
 *
 * - event_id: an RFC 9562 UUID (any version 1–8, e.g. v4 or time-ordered v7); the record's partition key;
 * - event_type, event_name: non-empty strings of at most 256 characters;
 * - event_timestamp: epoch seconds or milliseconds (a number; below 10^11 it is read as seconds), or an
 *   RFC 3339 date-time with an explicit offset; from 2000-01-01T00:00:00Z to one day after receipt;
 * - event_version, app_version: optional non-empty strings of at most 64 characters;
 * - event_data: optional JSON object of at most 64 KiB serialised, nested at most 32 levels deep;
 * - nothing else (a misspelt field is reported rather than silently dropped).
 *
 * A valid event becomes the stream record: the event's fields (event_timestamp normalised to epoch
 * milliseconds) plus application_id and received_at (epoch milliseconds). The warehouse views read it.
 */
import { isUuid } from '../shared/analytics/ids.js';
import { isPlainObject, quoteName } from '../shared/analytics/http.js';

export const EVENT_LIMITS = {
  textMax: 256,
  versionMax: 64,
  eventDataMaxBytes: 64 * 1024,
  /** Levels of objects and arrays in event_data: JSON.stringify overflows the stack near 5,000. */
  eventDataMaxDepth: 32,
  /** Clock skew tolerated for events stamped in the future. */
  futureToleranceMs: 24 * 60 * 60 * 1000,
  earliestMs: Date.UTC(2000, 0, 1),
  /** Numbers below this are epoch seconds (10^11 s is the year 5138; 10^11 ms is 1973). */
  secondsBelow: 1e11,
} as const;

const EVENT_FIELDS = [
  'event_id',
  'event_type',
  'event_name',
  'event_timestamp',
  'event_version',
  'app_version',
  'event_data',
] as const;

/** The stream record (JSON, UTF-8). Optional fields are absent when the event did not carry them. */
export interface EventRecord {
  application_id: string;
  event_id: string;
  event_type: string;
  event_name: string;
  /** Epoch milliseconds (UTC). */
  event_timestamp: number;
  event_version?: string;
  app_version?: string;
  event_data?: Record<string, unknown>;
  /** Epoch milliseconds at which the events handler accepted the batch. */
  received_at: number;
}

export type EventCheck = { ok: true; record: EventRecord } | { ok: false; message: string };
/** A valid event with its stream record already serialised (event_data is serialised once, for both). */
export type StreamCheck = { ok: true; record: EventRecord; json: string } | { ok: false; message: string };

const RFC3339_RE = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

class Invalid extends Error {}

function text(
  event: Record<string, unknown>,
  field: string,
  max: number,
  required: boolean,
): string | undefined {
  const value = event[field];
  if (value === undefined && !required) return undefined;
  if (value === undefined) throw new Invalid(`${field} is required`);
  if (typeof value !== 'string' || value.trim() === '')
    throw new Invalid(`${field} must be a non-empty string`);
  // Characters are code points; a string of at most `max` UTF-16 units has at most `max` of them.
  if (value.length > max && [...value].length > max) {
    throw new Invalid(`${field} must be at most ${max} characters`);
  }
  return value;
}

function isRealDate(year: number, month: number, day: number): boolean {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** event_timestamp as epoch milliseconds, or Invalid. */
function timestampMs(value: unknown, receivedAt: number): number {
  let ms: number;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value <= 0) throw new Invalid('event_timestamp must be a positive number');
    ms = Math.round(value < EVENT_LIMITS.secondsBelow ? value * 1000 : value);
  } else if (typeof value === 'string') {
    const m = RFC3339_RE.exec(value);
    ms = m === null ? Number.NaN : Date.parse(value);
    if (m === null || Number.isNaN(ms) || !isRealDate(Number(m[1]), Number(m[2]), Number(m[3]))) {
      throw new Invalid('event_timestamp must be epoch seconds, epoch milliseconds or an RFC 3339 date-time');
    }
  } else if (value === undefined) {
    throw new Invalid('event_timestamp is required');
  } else {
    throw new Invalid('event_timestamp must be a number or a string');
  }
  if (ms < EVENT_LIMITS.earliestMs) throw new Invalid('event_timestamp is before 2000-01-01T00:00:00Z');
  if (ms > receivedAt + EVENT_LIMITS.futureToleranceMs) {
    throw new Invalid('event_timestamp is more than one day in the future');
  }
  return ms;
}

/** Whether an object or array holds another object or array (looked at without allocating). */
function hasNestedValue(value: object): boolean {
  const entries = value as Record<string, unknown>;
  for (const key in entries) {
    const child = entries[key];
    if (typeof child === 'object' && child !== null) return true;
  }
  return false;
}

/**
 * Levels of objects and arrays in a parsed JSON value (a scalar is 0), counted without recursion and
 * given up on past `limit`: the value may be nested far deeper than the stack allows.
 */
export function nestingDepth(value: unknown, limit: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  // The common event_data, an object of scalars, is one level: found without the queue below.
  if (!hasNestedValue(value)) return 1;
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > limit) return deepest;
    // Scalars add no level: only objects and arrays are queued.
    for (const child of Object.values(item)) {
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
    }
  }
  return deepest;
}

const EVENT_FIELD_SET: ReadonlySet<string> = new Set(EVENT_FIELDS);

/** Checks one element of `Events`; `receivedAt` is epoch ms. */
export function validateEvent(raw: unknown, applicationId: string, receivedAt: number): EventCheck {
  const check = checkForStream(raw, applicationId, receivedAt);
  return check.ok ? { ok: true, record: check.record } : check;
}

/** validateEvent plus the record as the stream gets it (JSON, the fields in the order of EventRecord). */
export function checkForStream(raw: unknown, applicationId: string, receivedAt: number): StreamCheck {
  try {
    if (!isPlainObject(raw)) throw new Invalid('event must be a JSON object');
    for (const key in raw) {
      if (!EVENT_FIELD_SET.has(key)) throw new Invalid(`unknown field ${quoteName(key)}`);
    }
    const id = raw['event_id'];
    if (id === undefined) throw new Invalid('event_id is required');
    if (!isUuid(id)) throw new Invalid('event_id must be a UUID (RFC 9562)');
    const record: EventRecord = {
      application_id: applicationId,
      event_id: id.toLowerCase(),
      event_type: text(raw, 'event_type', EVENT_LIMITS.textMax, true) ?? '',
      event_name: text(raw, 'event_name', EVENT_LIMITS.textMax, true) ?? '',
      event_timestamp: timestampMs(raw['event_timestamp'], receivedAt),
      received_at: receivedAt,
    };
    const eventVersion = text(raw, 'event_version', EVENT_LIMITS.versionMax, false);
    if (eventVersion !== undefined) record.event_version = eventVersion;
    const appVersion = text(raw, 'app_version', EVENT_LIMITS.versionMax, false);
    if (appVersion !== undefined) record.app_version = appVersion;
    const data = raw['event_data'];
    if (data === undefined) return { ok: true, record, json: JSON.stringify(record) };
    if (!isPlainObject(data)) throw new Invalid('event_data must be a JSON object');
    if (nestingDepth(data, EVENT_LIMITS.eventDataMaxDepth) > EVENT_LIMITS.eventDataMaxDepth) {
      throw new Invalid(`event_data must be nested at most ${EVENT_LIMITS.eventDataMaxDepth} levels deep`);
    }
    const dataJson = JSON.stringify(data);
    // A UTF-16 unit is at most 3 UTF-8 bytes: count the bytes only when the limit can be reached.
    if (
      dataJson.length * 3 > EVENT_LIMITS.eventDataMaxBytes &&
      Buffer.byteLength(dataJson) > EVENT_LIMITS.eventDataMaxBytes
    ) {
      throw new Invalid(`event_data must be at most ${EVENT_LIMITS.eventDataMaxBytes} bytes as JSON`);
    }
    // JSON.stringify(record) with event_data last, without serialising event_data a second time.
    const json = `${JSON.stringify(record).slice(0, -1)},"event_data":${dataJson}}`;
    record.event_data = data;
    return { ok: true, record, json };
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, message: error.message };
    throw error;
  }
}
