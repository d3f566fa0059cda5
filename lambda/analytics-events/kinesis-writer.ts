/**
 * Writes records to a Kinesis Data Stream with PutRecords: calls of at most 500 records and 5 MiB
 * (partition keys included), records that failed with a retryable code (throttled, internal failure)
 * resent with exponential backoff and full jitter until they succeed or the deadline leaves no room
 * for another attempt. Every record ends with one outcome: Ok, ThroughputExceeded or InternalFailure.
 */
import { PutRecordsCommand, type KinesisClient, type PutRecordsResultEntry } from '@aws-sdk/client-kinesis';
import { describeError } from '../shared/errors.js';
import type { EdgeLogger } from '../shared/logger.js';
import { backoffDelayMs, sleep, type BackoffPolicy } from '../../contracts/runtime/backoff.js';

const PUT_RECORDS_MAX_RECORDS = 500;
const PUT_RECORDS_MAX_BYTES = 5 * 1024 * 1024;

export interface StreamRecord {
  /** Position of the event in the request, carried through to its outcome. */
  readonly index: number;
  readonly partitionKey: string;
  readonly data: Uint8Array;
}

type FailureCode = 'ThroughputExceeded' | 'InternalFailure';
export type WriteOutcome = { readonly ok: true } | { readonly ok: false; readonly code: FailureCode };

export interface KinesisWriterOptions {
  readonly backoff?: BackoffPolicy;
  /** Time kept for one more PutRecords call: no retry starts with less than this before the deadline. */
  readonly minCallMs?: number;
  readonly random?: () => number;
}

const THROTTLING_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'LimitExceededException',
  'ThrottlingException',
  'KMSThrottlingException',
]);

interface SdkErrorShape {
  name?: string;
  $fault?: string;
  $metadata?: { httpStatusCode?: number };
}

/** A whole-call failure: its code, and whether another attempt may succeed. */
function classifyCallError(error: unknown): { code: FailureCode; retryable: boolean } {
  const e = (error ?? {}) as SdkErrorShape;
  if (e.name !== undefined && THROTTLING_ERRORS.has(e.name))
    return { code: 'ThroughputExceeded', retryable: true };
  if (e.name === 'AbortError' || e.name === 'TimeoutError')
    return { code: 'InternalFailure', retryable: false };
  const status = e.$metadata?.httpStatusCode;
  // No status: the request never got an answer (connection reset, DNS): worth another try.
  const retryable = e.$fault === 'server' || status === undefined || status >= 500;
  return { code: 'InternalFailure', retryable };
}

function entryCode(entry: PutRecordsResultEntry | undefined): FailureCode | undefined {
  if (entry === undefined) return 'InternalFailure';
  if (entry.ErrorCode === undefined || entry.ErrorCode === null || entry.ErrorCode === '') return undefined;
  return entry.ErrorCode === 'ProvisionedThroughputExceededException'
    ? 'ThroughputExceeded'
    : 'InternalFailure';
}

const recordBytes = (r: StreamRecord) => r.data.byteLength + Buffer.byteLength(r.partitionKey, 'utf8');

/** Splits records into PutRecords calls within the record-count and payload limits. */
export function chunkRecords(
  records: readonly StreamRecord[],
  maxRecords = PUT_RECORDS_MAX_RECORDS,
  maxBytes = PUT_RECORDS_MAX_BYTES,
): StreamRecord[][] {
  if (records.length === 0) return [];
  // A whole batch in one call, the common case, without measuring each key's UTF-8: its length in UTF-16
  // units times 3 (the most UTF-8 bytes one unit takes) bounds its bytes.
  if (records.length <= maxRecords) {
    let bound = 0;
    for (const record of records) bound += record.data.byteLength + record.partitionKey.length * 3;
    if (bound <= maxBytes) return [[...records]];
  }
  const chunks: StreamRecord[][] = [];
  let current: StreamRecord[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = recordBytes(record);
    if (current.length > 0 && (current.length >= maxRecords || bytes + size > maxBytes)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(record);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

type CallResult = { record: StreamRecord; code: FailureCode | undefined; retryable: boolean }[];

export class KinesisWriter {
  private readonly backoff: BackoffPolicy;
  private readonly minCallMs: number;
  private readonly random: () => number;

  constructor(
    private readonly client: Pick<KinesisClient, 'send'>,
    private readonly streamName: string,
    private readonly logger: EdgeLogger,
    options: KinesisWriterOptions = {},
  ) {
    this.backoff = options.backoff ?? { baseMs: 50, capMs: 2_000 };
    this.minCallMs = options.minCallMs ?? 250;
    this.random = options.random ?? Math.random;
  }

  /** Outcome per record index. `deadline` is epoch ms. */
  async write(records: readonly StreamRecord[], deadline: number): Promise<Map<number, WriteOutcome>> {
    const outcomes = new Map<number, WriteOutcome>();
    let pending = [...records];
    const lastCode = new Map<number, FailureCode>();
    let calls = 0;
    let attempts = 0;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) {
        const delay = backoffDelayMs(attempt, this.backoff, this.random);
        if (Date.now() + delay + this.minCallMs > deadline) break;
        await sleep(delay);
      }
      const chunks = chunkRecords(pending);
      attempts++;
      calls += chunks.length;
      const results = (await Promise.all(chunks.map((c) => this.put(c, deadline)))).flat();
      pending = [];
      for (const { record, code, retryable } of results) {
        if (code === undefined) {
          outcomes.set(record.index, { ok: true });
        } else if (retryable) {
          lastCode.set(record.index, code);
          pending.push(record);
        } else {
          outcomes.set(record.index, { ok: false, code });
        }
      }
    }
    for (const record of pending) {
      outcomes.set(record.index, { ok: false, code: lastCode.get(record.index) ?? 'InternalFailure' });
    }
    // Retried (a second attempt ran) or left records unwritten.
    if (pending.length > 0 || attempts > 1) {
      this.logger.warn(
        {
          stream: this.streamName,
          records: records.length,
          put_records_calls: calls,
          unwritten: pending.length,
        },
        'stream writes retried',
      );
    }
    return outcomes;
  }

  private async put(chunk: readonly StreamRecord[], deadline: number): Promise<CallResult> {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return chunk.map((record) => ({ record, code: 'InternalFailure', retryable: false }));
    try {
      const out = await this.client.send(
        new PutRecordsCommand({
          StreamName: this.streamName,
          Records: chunk.map((r) => ({ PartitionKey: r.partitionKey, Data: r.data })),
        }),
        { abortSignal: AbortSignal.timeout(remaining) },
      );
      return chunk.map((record, i) => {
        const code = entryCode(out.Records?.[i]);
        return { record, code, retryable: code !== undefined };
      });
    } catch (error) {
      const { code, retryable } = classifyCallError(error);
      const fields = { stream: this.streamName, records: chunk.length, retryable, ...describeError(error) };
      if (retryable) this.logger.warn(fields, 'PutRecords call failed');
      else this.logger.error(fields, 'PutRecords call failed');
      return chunk.map((record) => ({ record, code, retryable }));
    }
  }
}
