/**
 * The events handler's SDK clients run without the SDK's logger middleware
 * (contracts/runtime/sdk-log-filter.ts): that middleware filters every call's whole input and output
 * for a logger, and by default the logger is a no-op. Proven against kinesalite and dynalite with a
 * recording SDK logger: an untouched client does log each call through it (so the middleware exists under
 * the name removed, and a rename in the SDK would fail here rather than silently keep the cost); the
 * handler's clients log nothing through it while the batch still reaches the stream and its idempotency
 * record still answers a repeat.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KinesisClient, ListShardsCommand } from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { LOCAL_CREDENTIALS } from '../../../local/dynamodb.js';
import * as events from '../../../lambda/analytics-events/index.js';
import { SDK_LOGGER_MIDDLEWARE, withoutSdkLogFilter } from '../../../contracts/runtime/sdk-log-filter.js';
import { batchBody, validFixture } from './fixtures.js';
import {
  capturingLogger,
  createApplication,
  readStream,
  sendEvents,
  startAnalyticsEnv,
  STREAM,
  type AnalyticsEnv,
} from './harness.js';

let env: AnalyticsEnv;
beforeAll(async () => void (env = await startAnalyticsEnv()));
afterAll(() => env.close());

/**
 * An SDK client logger that records what the logger middleware hands it: one entry per call with its
 * `commandName`, `input` and `output`. (The SDK's other debug lines, endpoint rules and config lookups, are
 * not per-call filtering work and are left out.)
 */
function recordingSdkLogger() {
  const calls: unknown[] = [];
  const record = (entry: unknown) => {
    if (typeof entry === 'object' && entry !== null && 'commandName' in entry) calls.push(entry);
  };
  return { calls, logger: { trace: record, debug: record, info: record, warn: record, error: record } };
}

function kinesisClient(logger: ReturnType<typeof recordingSdkLogger>['logger']): KinesisClient {
  return new KinesisClient({
    endpoint: env.kinesis.endpoint,
    region: env.kinesis.region,
    credentials: LOCAL_CREDENTIALS,
    // HTTP/1.1, as local/kinesis.ts: kinesalite does not speak the client's default HTTP/2.
    requestHandler: new NodeHttpHandler(),
    logger,
  });
}

const hasLoggerMiddleware = (client: { middlewareStack: { identify(): string[] } }) =>
  client.middlewareStack.identify().some((entry) => entry.startsWith(`${SDK_LOGGER_MIDDLEWARE} `));

describe('withoutSdkLogFilter', () => {
  test('an untouched client logs every call through its logger middleware, under the name removed', async () => {
    const sdk = recordingSdkLogger();
    const client = kinesisClient(sdk.logger);
    expect(hasLoggerMiddleware(client)).toBe(true);
    await client.send(new ListShardsCommand({ StreamName: STREAM }));
    expect(sdk.calls).toContainEqual(
      expect.objectContaining({ commandName: 'ListShardsCommand', input: { StreamName: STREAM } }),
    );
    client.destroy();
  });

  test('a client without it still works and logs nothing per call; removing it twice is harmless', async () => {
    const sdk = recordingSdkLogger();
    const client = withoutSdkLogFilter(withoutSdkLogFilter(kinesisClient(sdk.logger)));
    expect(hasLoggerMiddleware(client)).toBe(false);
    const shards = await client.send(new ListShardsCommand({ StreamName: STREAM }));
    expect(shards.Shards?.length).toBeGreaterThan(0);
    expect(sdk.calls).toEqual([]);
    client.destroy();
  });
});

test('the handler strips its clients, and a batch still reaches the stream once and replays from its record', async () => {
  const app = await createApplication(env);
  const sdk = recordingSdkLogger();
  const kinesis = kinesisClient(sdk.logger);
  const dynamodb = new DynamoDBClient({
    endpoint: env.dynamo.endpoint,
    region: env.kinesis.region,
    credentials: LOCAL_CREDENTIALS,
    logger: sdk.logger,
  });
  const handler = events.createHandlerFromEnv(env.env, { dynamodb, kinesis, logger: capturingLogger() });
  expect(hasLoggerMiddleware(kinesis)).toBe(false);
  expect(hasLoggerMiddleware(dynamodb)).toBe(false);

  const fixtures = [validFixture(0), validFixture(1), validFixture(2)];
  const body = batchBody(fixtures);
  const envWithHandler = { ...env, events: handler };
  const first = await sendEvents(envWithHandler, app, body);
  const repeat = await sendEvents(envWithHandler, app, body);
  expect(first.statusCode).toBe(200);
  expect(first.body).toMatchObject({ Total: 3, FailedRecordCount: 0 });
  expect(repeat.statusCode).toBe(200);
  expect(repeat.body).toEqual(first.body);
  // The application read, the idempotency put and update, PutRecords, the repeat's put: none logged.
  expect(sdk.calls).toEqual([]);
  const ids = new Set(fixtures.flatMap((f) => (f.valid ? [String(f.event['event_id']).toLowerCase()] : [])));
  const written = (await readStream(env.kinesis.client())).filter((e) => ids.has(e.partitionKey));
  expect(written).toHaveLength(3);
  expect(written.every((e) => e.record.application_id === app)).toBe(true);
  kinesis.destroy();
  dynamodb.destroy();
});
