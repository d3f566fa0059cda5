/**
 * Generated event batches for `POST /applications/{APPLICATION_ID}/events`, with every verdict known by
 * construction (docs/analytics-api.md, "Events"): each event is valid — and then says the stream record
 * it must become — or broken in one known way; each batch is well-formed under `Events` or the game-
 * analytics pipeline's `events`, or malformed in one known way with its 400.
 */
import fc from 'fast-check';
import { ANALYTICS_BINARY_TYPE } from './analytics-under-test.js';
import type { Verdict } from './analytics-inputs.js';

/** The clock the generated timestamps are relative to (the handler's is later, never earlier). */
const NOW = Date.now();
const EARLIEST = Date.UTC(2000, 0, 1);
const DAY = 24 * 60 * 60 * 1000;

/** The stream record a valid event must become (without application_id and received_at). */
type ExpectedRecord = Record<string, unknown>;

interface GeneratedEvent {
  event: unknown;
  /** Present when the event is valid. */
  record?: ExpectedRecord;
}

const REPLACEMENT = '\uFFFD';
const nonBlank = (maxCodePoints: number) =>
  fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 12 })
    .filter((s) => s.trim() !== '' && !s.includes(REPLACEMENT) && [...s].length <= maxCodePoints);

/** A timestamp as epoch seconds, epoch milliseconds or RFC 3339 (Z or an offset), and its milliseconds. */
const timestamp: fc.Arbitrary<{ value: number | string; ms: number }> = fc
  .tuple(fc.integer({ min: EARLIEST + 1000, max: NOW }), fc.nat(3))
  .map(([ms, form]) => {
    switch (form) {
      case 0:
        return { value: Math.floor(ms / 1000), ms: Math.floor(ms / 1000) * 1000 };
      case 1:
        return { value: ms, ms };
      case 2:
        return { value: new Date(ms).toISOString(), ms };
      default: {
        // The same instant two hours east of UTC.
        const local = new Date(ms + 2 * 60 * 60 * 1000).toISOString().replace('Z', '+02:00');
        return { value: local, ms };
      }
    }
  });

const validEvent: fc.Arbitrary<GeneratedEvent> = fc
  .record(
    {
      id: fc.uuid({ version: [1, 4, 7] }),
      upperCaseId: fc.boolean(),
      type: nonBlank(256),
      name: nonBlank(256),
      time: timestamp,
      eventVersion: nonBlank(64),
      appVersion: nonBlank(64),
      data: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
    },
    { requiredKeys: ['id', 'upperCaseId', 'type', 'name', 'time'] },
  )
  .map((g) => {
    const optional = {
      ...(g.eventVersion !== undefined ? { event_version: g.eventVersion } : {}),
      ...(g.appVersion !== undefined ? { app_version: g.appVersion } : {}),
      // As JSON carries it (-0 becomes 0).
      ...(g.data !== undefined ? { event_data: JSON.parse(JSON.stringify(g.data)) as unknown } : {}),
    };
    const common = { event_type: g.type, event_name: g.name, ...optional };
    return {
      event: {
        event_id: g.upperCaseId ? g.id.toUpperCase() : g.id,
        event_timestamp: g.time.value,
        ...common,
      },
      record: { event_id: g.id.toLowerCase(), event_timestamp: g.time.ms, ...common },
    };
  });

type Event = Record<string, unknown>;

/** Ways to break a valid event, by name (a failing run prints the name); each is an InvalidEvent. */
const BREAKAGES: Readonly<Record<string, (event: Event) => unknown>> = {
  'no event_id': (e) => ({ ...e, event_id: undefined }),
  'event_id not a UUID': (e) => ({ ...e, event_id: 'not-a-uuid' }),
  'Nil UUID': (e) => ({ ...e, event_id: '00000000-0000-0000-0000-000000000000' }),
  'blank event_type': (e) => ({ ...e, event_type: '   ' }),
  'event_name of 257 characters': (e) => ({ ...e, event_name: 'n'.repeat(257) }),
  'event_name a number': (e) => ({ ...e, event_name: 7 }),
  'timestamp before 2000': (e) => ({ ...e, event_timestamp: Date.UTC(1999, 11, 31) }),
  'timestamp two days ahead': (e) => ({ ...e, event_timestamp: NOW + 2 * DAY }),
  'timestamp in words': (e) => ({ ...e, event_timestamp: 'yesterday' }),
  'negative timestamp': (e) => ({ ...e, event_timestamp: -5 }),
  'timestamp 1e308': (e) => ({ ...e, event_timestamp: 1e308 }),
  'empty event_version': (e) => ({ ...e, event_version: '' }),
  'app_version of 65 characters': (e) => ({ ...e, app_version: 'v'.repeat(65) }),
  'event_data an array': (e) => ({ ...e, event_data: ['not', 'an', 'object'] }),
  'event_data nested 33 deep': (e) => ({
    ...e,
    event_data: { a: JSON.parse(`${'['.repeat(32)}${']'.repeat(32)}`) as unknown },
  }),
  'event_data nested 5000 deep': (e) => ({ ...e, event_data: { a: DEEP } }),
  'misspelt field': (e) => ({ ...e, evnt_name: 'typo' }),
  'a __proto__ field': (e) => JSON.parse(`{"__proto__":1,${JSON.stringify(e).slice(1)}`) as unknown,
  'a number': () => 42,
  null: () => null,
  'an array': () => [1, 2],
};

const invalidEvent: fc.Arbitrary<GeneratedEvent & { breakage: string }> = fc
  .tuple(validEvent, fc.constantFrom(...Object.keys(BREAKAGES)))
  .map(([valid, breakage]) => ({ breakage, event: BREAKAGES[breakage]?.(valid.event as Event) }));

export interface GeneratedBatch {
  label: string;
  /** The body, as a JSON text (or raw text for a malformed one). */
  text: string;
  contentType: string;
  verdict: Verdict;
  /** For a 200: each event in order. */
  events: GeneratedEvent[];
}

/**
 * Stands for a value nested 5000 levels deep in a generated event. JSON.stringify cannot write such a
 * value (it overflows the stack near that depth — why the handler bounds event_data's nesting), so
 * batchOf writes it out by hand where this marker is.
 */
const DEEP = '<nested 5000 deep>';
const DEEP_TEXT = `${'['.repeat(5000)}${']'.repeat(5000)}`;

const batchOf = (key: 'Events' | 'events', events: GeneratedEvent[]): GeneratedBatch => ({
  label: `${key}: ${events.length} events`,
  // JSON.stringify drops `undefined` fields, as a client would.
  text: JSON.stringify({ [key]: events.map((e) => e.event) }).replaceAll(JSON.stringify(DEEP), DEEP_TEXT),
  contentType: 'application/json',
  verdict: { status: 200 },
  events,
});

const refused = (label: string, text: string, message: RegExp): GeneratedBatch => ({
  label,
  text,
  contentType: 'application/json',
  verdict: { status: 400, message },
  events: [],
});

const someEvents = fc.array(
  fc.oneof({ weight: 3, arbitrary: validEvent }, { weight: 1, arbitrary: invalidEvent }),
  {
    minLength: 1,
    maxLength: 12,
  },
);

/** A batch under either key, now and then sent as a binary media type (base64 to the function). */
export const eventsBatch: fc.Arbitrary<GeneratedBatch> = fc
  .tuple(
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .tuple(fc.constantFrom('Events' as const, 'events' as const), someEvents)
          .map(([k, e]) => batchOf(k, e)),
      },
      // An event that is an array nested 5000 deep is one InvalidEvent, not a crash.
      { weight: 1, arbitrary: fc.constant(batchOf('events', [{ event: DEEP }])) },
      {
        weight: 4,
        arbitrary: fc.oneof(
          someEvents.map((e) =>
            refused(
              'both keys',
              JSON.stringify({ Events: e.map((x) => x.event), events: [] }),
              /^Send the events as Events or as events, not both$/,
            ),
          ),
          fc
            .tuple(
              fc.constantFrom('Events', 'events'),
              fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'Event')),
            )
            .filter(([key, extra]) => extra !== key && extra !== 'Events' && extra !== 'events')
            .map(([key, extra]) =>
              refused(
                'unknown field',
                `{"${key}":[],${JSON.stringify(extra)}:1}`,
                new RegExp(`^Unknown field .* \\(allowed: ${key}\\)$`),
              ),
            ),
          fc
            .constantFrom('Events', 'events')
            .map((key) => refused('not an array', `{"${key}":{}}`, new RegExp(`^${key} must be an array$`))),
          fc
            .constantFrom('Events', 'events')
            .map((key) =>
              refused('no events', `{"${key}":[]}`, new RegExp(`^${key} must contain 1 to 500 events$`)),
            ),
          fc.constant(
            refused(
              '501 events',
              JSON.stringify({ events: Array.from({ length: 501 }, () => ({})) }),
              /^events must contain 1 to 500 events$/,
            ),
          ),
          fc.constant(refused('Events missing', '{}', /^Events is required$/)),
          fc.constant(refused('empty body', '', /^Request body is required/)),
          fc.constant(refused('not JSON', '{"Events": [', /^Request body is not valid JSON$/)),
          fc
            .oneof(fc.integer(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }))
            .map((v) => refused('not an object', JSON.stringify(v), /^Request body must be a JSON object$/)),
        ),
      },
    ),
    fc.nat(5),
  )
  .map(([batch, n]) =>
    n === 0 ? { ...batch, contentType: ANALYTICS_BINARY_TYPE, label: `${batch.label} (binary)` } : batch,
  );
