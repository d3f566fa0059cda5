/**
 * The events handler validates and serialises a batch while its in-progress idempotency record is being
 * put (lambda/analytics-events/ingest.ts), so that round trip hides the work. That must not let anything
 * reach the stream early: PutRecords starts only after DynamoDB has accepted the in-progress put, a batch
 * whose put fails writes nothing, and a repeat drops its prepared records. Powertools' order (put, then the
 * function, then the completed record):
 * https://docs.powertools.aws.dev/lambda/typescript/latest/utilities/idempotency/
 */
import { afterEach, expect, test } from '@jest/globals';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { ANALYTICS_TABLES } from '../../../contracts/analytics-resources.js';
import { tableName } from '../../../contracts/tables.js';
import { batchBody, mixedBatch } from './fixtures.js';
import {
  createApplication,
  PROJECT,
  readStream,
  sendEvents,
  startAnalyticsEnv,
  type AnalyticsEnv,
} from './harness.js';

const IDEMPOTENCY_TABLE = tableName(PROJECT, ANALYTICS_TABLES.idempotency);

let env: AnalyticsEnv | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

/** Names of the steps, in the order they happened. */
type Journal = string[];

/** PutItem calls on the idempotency table: journaled when sent and answered; optionally held or failed. */
function idempotencyPuts(
  client: DynamoDBClient,
  journal: Journal,
  behaviour: { fail?: () => boolean; hold?: Promise<void> },
): DynamoDBClient {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const table = (args.input as { TableName?: string } | undefined)?.TableName;
      // Only the in-progress record put: the completed record is an UpdateItem, a repeat's read a GetItem.
      if (context.commandName !== 'PutItemCommand' || table !== IDEMPOTENCY_TABLE) return next(args);
      journal.push('record put sent');
      await behaviour.hold;
      if (behaviour.fail?.() === true) {
        throw Object.assign(new Error('DynamoDB is unavailable'), { $fault: 'server' });
      }
      const out = await next(args);
      journal.push('record put answered');
      return out;
    },
    { step: 'initialize', name: 'journalRecordPuts' },
  );
  return client;
}

function journaledKinesis(client: KinesisClient, journal: Journal): KinesisClient {
  client.middlewareStack.add(
    (next) => async (args) => {
      journal.push('PutRecords sent');
      return next(args);
    },
    { step: 'initialize', name: 'journalPutRecords' },
  );
  return client;
}

const recordsOf = async (target: AnalyticsEnv, app: string) =>
  (await readStream(target.kinesis.client())).filter((e) => e.record.application_id === app);

test('PutRecords starts only after the in-progress put was answered, even when the put is slow', async () => {
  const journal: Journal = [];
  let release: () => void = () => undefined;
  const hold = new Promise<void>((resolve) => (release = resolve));
  env = await startAnalyticsEnv({
    dynamodbClient: (d) => idempotencyPuts(d.client(), journal, { hold }),
    kinesisClient: (k) => journaledKinesis(k.client(), journal),
  });
  const app = await createApplication(env);
  const fixtures = mixedBatch(40, 6);
  const pending = sendEvents(env, app, batchBody(fixtures));
  // Let the handler validate everything it can while the put is held: still nothing in the stream.
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(journal).toEqual(['record put sent']);
  expect(await recordsOf(env, app)).toHaveLength(0);
  release();
  const first = await pending;
  expect(first.statusCode).toBe(200);
  expect(journal).toEqual(['record put sent', 'record put answered', 'PutRecords sent']);
  const valid = fixtures.filter((f) => f.valid).length;
  expect(first.body.FailedRecordCount).toBe(fixtures.length - valid);
  expect(await recordsOf(env, app)).toHaveLength(valid);
});

test('a batch whose in-progress put fails writes nothing to the stream (500), and is written once later', async () => {
  const journal: Journal = [];
  let failing = true;
  env = await startAnalyticsEnv({
    dynamodbClient: (d) => idempotencyPuts(d.client(), journal, { fail: () => failing }),
    kinesisClient: (k) => journaledKinesis(k.client(), journal),
  });
  const app = await createApplication(env);
  const fixtures = mixedBatch(25, 5);
  const body = batchBody(fixtures);
  const failed = await sendEvents(env, app, body);
  expect(failed.statusCode).toBe(500);
  expect(journal).toEqual(['record put sent']);
  expect(await recordsOf(env, app)).toHaveLength(0);
  // Once DynamoDB is back the same batch is written, once; a repeat then writes nothing more.
  failing = false;
  const written = await sendEvents(env, app, body);
  expect(written.statusCode).toBe(200);
  const valid = fixtures.filter((f) => f.valid).length;
  expect(await recordsOf(env, app)).toHaveLength(valid);
  expect(await sendEvents(env, app, body)).toEqual(written);
  expect(await recordsOf(env, app)).toHaveLength(valid);
  expect(journal.filter((step) => step === 'PutRecords sent')).toHaveLength(1);
});
