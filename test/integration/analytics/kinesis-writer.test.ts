/**
 * KinesisWriter against kinesalite: PutRecords calls within 500 records / 5 MiB, whole-call failures
 * (unknown stream: not retried; unreachable endpoint: retried until the deadline), and the idempotency
 * records the events handler leaves (expiry from IDEMPOTENCY_TTL_SECONDS).
 */
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { KinesisClient, PutRecordsCommand, type PutRecordsCommandInput } from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ANALYTICS_TABLES } from '../../../contracts/analytics-resources.js';
import { LOCAL_CREDENTIALS } from '../../../local/dynamodb.js';
import { tableName } from '../../../contracts/tables.js';
import { KinesisWriter, type StreamRecord } from '../../../lambda/analytics-events/kinesis-writer.js';
import { validFixture, batchBody } from './fixtures.js';
import {
  capturingLogger,
  createApplication,
  PROJECT,
  readStream,
  sendEvents,
  startAnalyticsEnv,
  STREAM,
  type AnalyticsEnv,
} from './harness.js';

let env: AnalyticsEnv;
beforeAll(async () => {
  env = await startAnalyticsEnv({ env: { IDEMPOTENCY_TTL_SECONDS: '120' } });
});
afterAll(async () => {
  await env.close();
});

/**
 * The writer's deadline in these tests: they check how records are batched and classified, not latency,
 * and on a loaded two-core CI machine a 5 MiB call to kinesalite has taken longer than 10 s.
 */
const CALL_WINDOW_MS = 25_000;

/** A JSON record of exactly `bytes` bytes (the stream is shared with the handler test below). */
const record = (index: number, bytes: number): StreamRecord => ({
  index,
  partitionKey: randomUUID(),
  data: Buffer.from(JSON.stringify({ pad: 'a'.repeat(bytes - 11) })),
});

function countingClient(): { client: KinesisClient; calls: number[] } {
  const client = env.kinesis.client();
  const calls: number[] = [];
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as PutRecordsCommandInput;
      if (Array.isArray(input.Records)) calls.push(input.Records.length);
      return next(args);
    },
    { step: 'initialize', name: 'countPutRecords' },
  );
  return { client, calls };
}

describe('PutRecords calls', () => {
  test('600 records → calls of 500 and 100', async () => {
    const { client, calls } = countingClient();
    const writer = new KinesisWriter(client, STREAM, capturingLogger());
    const out = await writer.write(
      Array.from({ length: 600 }, (_, i) => record(i, 20)),
      Date.now() + CALL_WINDOW_MS,
    );
    expect(calls).toEqual([500, 100]);
    expect([...out.values()].every((o) => o.ok)).toBe(true);
    expect(out.size).toBe(600);
  });

  test('6 records of 1,000,000 bytes → calls of at most 5 MiB (5 + 1)', async () => {
    const { client, calls } = countingClient();
    const writer = new KinesisWriter(client, STREAM, capturingLogger());
    const out = await writer.write(
      Array.from({ length: 6 }, (_, i) => record(i, 1_000_000)),
      Date.now() + CALL_WINDOW_MS,
    );
    expect(calls).toEqual([5, 1]);
    expect([...out.values()].every((o) => o.ok)).toBe(true);
  });
});

describe('whole-call failures', () => {
  test('an unknown stream is not retried: InternalFailure for every record, logged as an error', async () => {
    const { client, calls } = countingClient();
    const logger = capturingLogger();
    const writer = new KinesisWriter(client, 'no-such-stream', logger);
    const out = await writer.write([record(0, 20), record(1, 20)], Date.now() + CALL_WINDOW_MS);
    expect([...out.entries()]).toEqual([
      [0, { ok: false, code: 'InternalFailure' }],
      [1, { ok: false, code: 'InternalFailure' }],
    ]);
    expect(calls).toEqual([2]);
    expect(logger.entries()[0]).toMatchObject({
      level: 'error',
      message: 'PutRecords call failed',
      fields: { retryable: false, error_name: 'ResourceNotFoundException' },
    });
  });

  test('an unreachable endpoint is retried until the deadline, then InternalFailure', async () => {
    const client = new KinesisClient({
      endpoint: 'http://127.0.0.1:9',
      region: 'us-east-2',
      credentials: LOCAL_CREDENTIALS,
      requestHandler: new NodeHttpHandler(),
      maxAttempts: 1,
    });
    // The client's first call loads and resolves its middleware; under a busy machine that alone can
    // take most of the 600 ms window, leaving no room for a second attempt. Pay it before the clock.
    await client.send(new PutRecordsCommand({ StreamName: STREAM, Records: [] })).catch(() => undefined);
    const logger = capturingLogger();
    const writer = new KinesisWriter(client, STREAM, logger, { backoff: { baseMs: 20, capMs: 100 } });
    const started = Date.now();
    const out = await writer.write([record(0, 20)], started + 600);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(out.get(0)).toEqual({ ok: false, code: 'InternalFailure' });
    const attempts = logger.entries().filter((e) => e.message === 'PutRecords call failed');
    expect(attempts.length).toBeGreaterThan(1);
    expect(attempts.every((e) => e.fields['retryable'] === true)).toBe(true);
    client.destroy();
  });
});

test('the idempotency record of a batch expires after IDEMPOTENCY_TTL_SECONDS and holds the answer', async () => {
  const app = await createApplication(env);
  const before = Math.floor(Date.now() / 1000);
  const res = await sendEvents(env, app, batchBody([validFixture(0)]));
  expect(res.statusCode).toBe(200);
  const { Items } = await env.dynamo
    .client()
    .send(new ScanCommand({ TableName: tableName(PROJECT, ANALYTICS_TABLES.idempotency) }));
  expect(Items).toHaveLength(1);
  const item = Items?.[0] ?? {};
  expect(item['id']?.S).toMatch(/^analytics-events#/);
  expect(item['status']?.S).toBe('COMPLETED');
  const expiration = Number(item['expiration']?.N);
  expect(expiration).toBeGreaterThanOrEqual(before + 120);
  expect(expiration).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 120);
  // The stored answer is the answer, not the events.
  expect(JSON.stringify(item)).not.toContain('event_name');
  expect(
    (await readStream(env.kinesis.client())).filter((e) => e.record.application_id === app),
  ).toHaveLength(1);
});
