/**
 * `gco analytics send`: events in batches (at most 500 events and 4 MiB per request, under the API's
 * 500-event and 5 MiB limits) to `POST /applications/{id}/events` with the API key.
 * What is retried (docs/analytics-api.md, "Idempotency"): the whole batch, byte for byte, after a 409
 * (the same batch is being written), a 429/5xx, or an answer with `ThroughputExceeded`/`InternalFailure`
 * events — the API then resends exactly those events and merges the answer. `InvalidEvent` is never
 * retried: it needs a fixed event.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { apiErrorOf } from './api-errors.js';
import type { SourcedEvent, UnreadableEvent } from './event-files.js';
import { pathOf, type ApiClient, type ApiReply } from './http.js';
import { backoffMs, retryAfterMs, DEFAULT_RETRY_POLICY } from './retry.js';

const MAX_BATCH_EVENTS = 500;
const MAX_BATCH_BYTES = 4 * 1024 * 1024;
const MAX_ROUNDS = 6;
const RETRYABLE_CODES: ReadonlySet<string> = new Set(['ThroughputExceeded', 'InternalFailure']);

interface EventFailure {
  readonly position: string;
  readonly eventId?: string;
  readonly code: string;
  readonly message: string;
}

export interface SendSummary {
  /** Events read from the input (unreadable lines included). */
  readonly total: number;
  readonly accepted: number;
  readonly batches: number;
  readonly failures: EventFailure[];
}

interface EventResult {
  Result?: unknown;
  ErrorCode?: unknown;
  ErrorMessage?: unknown;
}

/** Consecutive batches of at most `maxEvents` events and `maxBytes` of JSON. */
export function batchesOf(
  events: readonly SourcedEvent[],
  maxEvents = MAX_BATCH_EVENTS,
  maxBytes = MAX_BATCH_BYTES,
): SourcedEvent[][] {
  const batches: SourcedEvent[][] = [];
  let current: SourcedEvent[] = [];
  let bytes = 0;
  for (const item of events) {
    const size = Buffer.byteLength(JSON.stringify(item.event)) + 1;
    if (current.length > 0 && (current.length >= maxEvents || bytes + size > maxBytes)) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

const eventIdOf = (event: unknown): string | undefined => {
  const id = (event as { event_id?: unknown } | null)?.event_id;
  return typeof id === 'string' ? id : undefined;
};

/** Sends one batch until no retryable failure is left (or the rounds run out); returns its last answer. */
async function sendBatch(client: ApiClient, path: string, batch: readonly SourcedEvent[]): Promise<ApiReply> {
  const body = JSON.stringify({ Events: batch.map((e) => e.event) });
  for (let round = 1; ; round++) {
    // idempotent: the API keys a batch by its bytes, so resending them never writes an event twice.
    const reply = await client.send({ method: 'POST', path, body, idempotent: true });
    if (reply.status === 409 && round < MAX_ROUNDS) {
      await sleep(retryAfterMs(reply.headers['retry-after'], DEFAULT_RETRY_POLICY) ?? 1000);
      continue;
    }
    if (reply.status !== 200) throw apiErrorOf(reply);
    const results = (reply.json as { Events?: EventResult[] } | undefined)?.Events ?? [];
    const retryable = results.some((r) => RETRYABLE_CODES.has(String(r.ErrorCode)));
    if (!retryable || round >= MAX_ROUNDS) return reply;
    await sleep(backoffMs(round, DEFAULT_RETRY_POLICY));
  }
}

export interface SendOptions {
  applicationId: string;
  /** Called after each batch (progress, `-o json` output). */
  onBatch?: (reply: ApiReply, sentSoFar: number) => void;
}

export async function sendEvents(
  client: ApiClient,
  events: readonly SourcedEvent[],
  unreadable: readonly UnreadableEvent[],
  opts: SendOptions,
): Promise<SendSummary> {
  const path = `${pathOf('applications', opts.applicationId)}/events`;
  const failures: EventFailure[] = unreadable.map((u) => ({
    position: u.position,
    code: 'Unreadable',
    message: u.message,
  }));
  let accepted = 0;
  let sent = 0;
  const batches = batchesOf(events);
  for (const batch of batches) {
    const reply = await sendBatch(client, path, batch);
    const results = (reply.json as { Events?: EventResult[] } | undefined)?.Events ?? [];
    batch.forEach((item, i) => {
      const result = results[i];
      if (result?.Result === 'Ok') {
        accepted++;
        return;
      }
      const eventId = eventIdOf(item.event);
      failures.push({
        position: item.position,
        ...(eventId !== undefined ? { eventId } : {}),
        code: typeof result?.ErrorCode === 'string' ? result.ErrorCode : 'NoResult',
        message: typeof result?.ErrorMessage === 'string' ? result.ErrorMessage : '',
      });
    });
    sent += batch.length;
    opts.onBatch?.(reply, sent);
  }
  failures.sort((a, b) => positionNumber(a.position) - positionNumber(b.position));
  return { total: events.length + unreadable.length, accepted, batches: batches.length, failures };
}

const positionNumber = (position: string) => Number(position.split(' ')[1] ?? 0);
