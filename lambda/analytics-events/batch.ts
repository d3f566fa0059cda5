/**
 * The answer to an event batch (docs/analytics-api.md): Total, FailedRecordCount and one result per event in input
 * order. Error codes: InvalidEvent (with a short ErrorMessage), ThroughputExceeded and InternalFailure
 * (the stream did not take the record; both are retryable).
 */
type ErrorCode = 'InvalidEvent' | 'ThroughputExceeded' | 'InternalFailure';

export type EventResult = { Result: 'Ok' } | { Result: 'Error'; ErrorCode: ErrorCode; ErrorMessage?: string };

export interface BatchResult {
  Total: number;
  FailedRecordCount: number;
  Events: EventResult[];
}

/** Codes a client may resend (the same batch again resends exactly those events). */
const RETRYABLE_CODES: ReadonlySet<ErrorCode> = new Set(['ThroughputExceeded', 'InternalFailure']);

export const OK: EventResult = Object.freeze({ Result: 'Ok' });

export function batchResult(events: EventResult[]): BatchResult {
  return {
    Total: events.length,
    FailedRecordCount: events.filter((e) => e.Result === 'Error').length,
    Events: events,
  };
}

/** Indices of events whose failure another attempt may fix. */
export function retryableIndices(result: BatchResult): number[] {
  const out: number[] = [];
  result.Events.forEach((e, i) => {
    if (e.Result === 'Error' && RETRYABLE_CODES.has(e.ErrorCode)) out.push(i);
  });
  return out;
}

/**
 * The answer as the idempotency record stores it: a JSON string with the total and only the failed
 * events by index (`{"Total":500,"Errors":{"12":{"Result":"Error",…}}}`). A 500-event answer is ~8 KiB as
 * a DynamoDB map of 500 maps but a few bytes here when every event is Ok, and a string attribute costs
 * neither side any per-element marshalling.
 */
export function encodeStoredAnswer(result: BatchResult): string {
  const errors: Record<number, EventResult> = {};
  result.Events.forEach((e, i) => {
    if (e.Result === 'Error') errors[i] = e;
  });
  return JSON.stringify({ Total: result.Total, Errors: errors });
}

const RETRYABLE_OR_INVALID: ReadonlySet<string> = new Set([...RETRYABLE_CODES, 'InvalidEvent']);

function isEventResult(value: unknown): value is EventResult {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    v['Result'] === 'Ok' ||
    (v['Result'] === 'Error' &&
      typeof v['ErrorCode'] === 'string' &&
      RETRYABLE_OR_INVALID.has(v['ErrorCode']))
  );
}

/**
 * The answer back from a stored record: the compact string above, or the whole BatchResult object that
 * the handler stored before (records written by the previous version during a deploy stay usable).
 * Anything else is refused: answering a guess would break the exactly-once promise either way.
 */
export function decodeStoredAnswer(stored: unknown): BatchResult {
  if (typeof stored === 'string') {
    const parsed = JSON.parse(stored) as { Total?: unknown; Errors?: unknown };
    const total = parsed.Total;
    const errors = parsed.Errors;
    if (typeof total !== 'number' || !Number.isInteger(total) || total < 0) throw storedAnswerError();
    if (typeof errors !== 'object' || errors === null) throw storedAnswerError();
    const events = new Array<EventResult>(total).fill(OK);
    for (const [index, e] of Object.entries(errors)) {
      const i = Number(index);
      if (!Number.isInteger(i) || i < 0 || i >= total || !isEventResult(e)) throw storedAnswerError();
      events[i] = e;
    }
    return batchResult(events);
  }
  if (typeof stored === 'object' && stored !== null) {
    const events = (stored as { Events?: unknown }).Events;
    if (Array.isArray(events) && events.every(isEventResult)) return batchResult(events);
  }
  throw storedAnswerError();
}

const storedAnswerError = () => new Error('stored batch answer is malformed');
