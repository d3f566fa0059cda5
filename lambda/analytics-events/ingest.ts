/**
 * Idempotent ingestion of one event batch with @aws-lambda-powertools/idempotency (DynamoDB persistence
 * layer). The idempotency key is the application id + the SHA-256 of the raw body bytes, so the same
 * batch sent again within the window (IDEMPOTENCY_TTL_SECONDS) gets the stored answer and writes nothing.
 *
 * Partly failed batches: the stored answer of round 0 may contain retryable failures (ThroughputExceeded,
 * InternalFailure). When a client sends the same batch again and the stored answer has such failures,
 * the next round resends exactly those events, under its own idempotency key (same batch, round n), and
 * stores the merged answer. So every event is written once however often the batch is repeated, a
 * concurrent repeat of a running round gets 409 rather than a duplicate, and a repeat after the last
 * round finished gets the last answer. Round 0 fresh in this invocation is answered as is: its retries
 * already used this invocation's deadline.
 *
 * Each round costs two DynamoDB writes (Powertools' INPROGRESS put before PutRecords, the COMPLETED record
 * after; https://docs.aws.amazon.com/powertools/typescript/latest/features/idempotency/): the first keeps a
 * concurrent repeat from writing the batch twice, the second tells a finished round from a dead one.
 * docs/analytics-api.md ("Idempotency") explains why neither can go. The round's events are validated and
 * serialised while the first is in flight (round-preparation.ts), so its round trip hides that work. The record stores the compact answer
 * (batch.ts `encodeStoredAnswer`), not a DynamoDB map of every event's result.
 */
import {
  IdempotencyConfig,
  IdempotencyPersistenceLayerError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import type { Context } from 'aws-lambda';
import { describeError } from '../shared/errors.js';
import type { EdgeLogger } from '../shared/logger.js';
import {
  batchResult,
  decodeStoredAnswer,
  encodeStoredAnswer,
  OK,
  retryableIndices,
  type BatchResult,
} from './batch.js';
import type { KinesisWriter } from './kinesis-writer.js';
import { RoundPreparation, type PreparedRound } from './round-preparation.js';

/** Prefix of idempotency keys, fixed so a redeploy (new function name) keeps recognising batches. */
const IDEMPOTENCY_KEY_PREFIX = 'analytics-events';
/** A batch can be completed by this many repeats after its first attempt; later repeats get the last answer. */
const MAX_RESEND_ROUNDS = 16;
/** Events validated between two looks at the in-progress put (~0.4 ms of work for 100 events). */
const PREPARATION_SLICE = 100;

export interface BatchInput {
  readonly applicationId: string;
  /** Lower-case hex SHA-256 of the raw body bytes. */
  readonly bodySha256: string;
  readonly events: readonly unknown[];
  /** Epoch ms the request arrived. */
  readonly receivedAt: number;
  /** Epoch ms by which stream writes must be finished. */
  readonly deadline: number;
  /** The invocation's context: an in-progress record expires when the invocation would have ended. */
  readonly lambdaContext: Context;
}

export interface IngestOutcome {
  readonly result: BatchResult;
  /** Rounds that wrote to the stream in this invocation (0: the answer came from the store). */
  readonly roundsRun: number;
}

interface IdempotencyKey {
  applicationId: string;
  bodySha256: string;
  round: number;
  [k: string]: string | number;
}

export interface BatchIngestorDeps {
  persistence: BasePersistenceLayer;
  writer: KinesisWriter;
  logger: EdgeLogger;
  expiresAfterSeconds: number;
}

export class BatchIngestor {
  constructor(private readonly deps: BatchIngestorDeps) {}

  async ingest(input: BatchInput): Promise<IngestOutcome> {
    let roundsRun = 0;
    let result: BatchResult | undefined;
    for (let round = 0; round <= MAX_RESEND_ROUNDS; round++) {
      const previous = result;
      const toWrite = previous === undefined ? undefined : retryableIndices(previous);
      if (toWrite !== undefined && toWrite.length === 0) break;
      const preparation = new RoundPreparation(
        input.events,
        input.applicationId,
        input.receivedAt,
        previous,
        toWrite ?? input.events.map((_, i) => i),
      );
      const step = await this.once(input, round, preparation, () => this.send(input, preparation.all()));
      result = step.result;
      if (step.fresh) {
        roundsRun++;
        break;
      }
    }
    return { result: result ?? batchResult([]), roundsRun };
  }

  /**
   * Runs `fn` once per (batch, round) within the window; a repeat returns the stored answer. `preparation`
   * (pure CPU work `fn` needs, without side effects) advances while the in-progress put is on its way to
   * DynamoDB, so that round trip hides it; it stops when the call is answered (a repeat drops it).
   */
  private async once(
    input: BatchInput,
    round: number,
    preparation: Pick<RoundPreparation, 'step'>,
    fn: () => Promise<BatchResult>,
  ): Promise<{ result: BatchResult; fresh: boolean }> {
    let fresh: BatchResult | undefined;
    const config = new IdempotencyConfig({
      expiresAfterSeconds: this.deps.expiresAfterSeconds,
      hashFunction: 'sha256',
    });
    config.registerLambdaContext(input.lambdaContext);
    // The function's return value is what the record stores: the compact form (batch.ts).
    const run = makeIdempotent(
      async (_key: IdempotencyKey): Promise<string> => {
        fresh = await fn();
        return encodeStoredAnswer(fresh);
      },
      { persistenceStore: this.deps.persistence, config, keyPrefix: IDEMPOTENCY_KEY_PREFIX },
    );
    const key: IdempotencyKey = { applicationId: input.applicationId, bodySha256: input.bodySha256, round };
    try {
      let answered = false;
      const pending = run(key);
      // Also keeps a rejection during the slices from counting as unhandled; awaited below.
      void pending.then(
        () => (answered = true),
        () => (answered = true),
      );
      // A macrotask turn before each slice: the SDK has written the put to the socket after the first (it
      // runs on microtasks and next ticks), and an answer that came in is handled before the next slice.
      // Once the put succeeds, `fn` prepares the rest at once, which ends this loop too.
      for (;;) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (answered || preparation.step(PREPARATION_SLICE)) break;
      }
      const stored: unknown = await pending;
      // Fresh in this invocation: the answer itself, not its round trip through the encoding.
      if (fresh !== undefined) return { result: fresh, fresh: true };
      return { result: decodeStoredAnswer(stored), fresh: false };
    } catch (error) {
      // The events are in the stream but the answer could not be stored: still answer what happened.
      if (fresh !== undefined && error instanceof IdempotencyPersistenceLayerError) {
        this.deps.logger.error(
          {
            application_id: input.applicationId,
            round,
            ...describeError(error),
          },
          'batch written but its idempotency record was not saved',
        );
        return { result: fresh, fresh: true };
      }
      throw error;
    }
  }

  /** Writes the prepared records and merges their outcomes into the answer. */
  private async send(input: BatchInput, { results, records }: PreparedRound): Promise<BatchResult> {
    const outcomes = await this.deps.writer.write(records, input.deadline);
    for (const record of records) {
      const outcome = outcomes.get(record.index);
      results[record.index] =
        outcome === undefined || !outcome.ok
          ? { Result: 'Error', ErrorCode: outcome?.code ?? 'InternalFailure' }
          : OK;
    }
    return batchResult(results);
  }
}
