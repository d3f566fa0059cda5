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
