/**
 * The idempotency record of a batch (dynalite): the COMPLETED record holds the compact answer
 * (lambda/analytics-events/batch.ts), a repeat is answered from it, a record in the previous version's
 * shape (the whole answer as a map) is still answered from, and an unreadable one fails the repeat.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
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

let env: AnalyticsEnv;
beforeAll(async () => void (env = await startAnalyticsEnv()));
afterAll(() => env.close());

const TABLE = () => tableName(PROJECT, ANALYTICS_TABLES.idempotency);

async function records() {
  const { Items = [] } = await env.dynamo.client().send(new ScanCommand({ TableName: TABLE() }));
  return Items;
}

test('the completed record holds the compact answer: the total and the failed events only', async () => {
  const app = await createApplication(env);
  const fixtures = mixedBatch(30, 7);
  const body = batchBody(fixtures);
  const first = await sendEvents(env, app, body);
  expect(first.statusCode).toBe(200);
  const items = await records();
  expect(items).toHaveLength(1);
  const item = items[0] ?? {};
  // Powertools' attributes (DynamoDBPersistenceLayer defaults); no event data.
  expect(Object.keys(item).sort()).toEqual(['data', 'expiration', 'id', 'in_progress_expiration', 'status']);
  expect(item['status']).toEqual({ S: 'COMPLETED' });
  const errors = Object.fromEntries(
    (first.body.Events as unknown[]).flatMap((e, i) =>
      (e as { Result: string }).Result === 'Error' ? [[String(i), e]] : [],
    ),
  );
  expect(Object.keys(errors).length).toBeGreaterThan(0);
  expect(JSON.parse(item['data']?.S ?? 'null')).toEqual({ Total: 30, Errors: errors });
  // A repeat is answered from it and writes nothing.
  const before = (await readStream(env.kinesis.client())).length;
  expect(await sendEvents(env, app, body)).toEqual(first);
  expect((await readStream(env.kinesis.client())).length).toBe(before);
});

test("a completed record in the previous version's shape (the answer as a map) is still answered from", async () => {
  const app = await createApplication(env);
  const body = batchBody(mixedBatch(3, 2));
  const first = await sendEvents(env, app, body);
  const [item] = await records().then((all) =>
    all.filter((i) => i['data']?.S !== undefined && i['data'].S.startsWith('{"Total":3,')),
  );
  expect(item).toBeDefined();
  // Rewrite it as Powertools' DynamoDB layer stored the previous version's answer: the result as a map.
  await DynamoDBDocumentClient.from(env.dynamo.client()).send(
    new PutCommand({
      TableName: TABLE(),
      Item: {
        id: item?.['id']?.S,
        status: 'COMPLETED',
        expiration: Number(item?.['expiration']?.N),
        data: first.body as Record<string, unknown>,
      },
    }),
  );
  const before = (await readStream(env.kinesis.client())).length;
  expect(await sendEvents(env, app, body)).toEqual(first);
  expect((await readStream(env.kinesis.client())).length).toBe(before);
});

test('a record whose answer is unreadable fails the repeat (500) instead of guessing, and writes nothing', async () => {
  const app = await createApplication(env);
  const body = batchBody(mixedBatch(2, 5));
  expect((await sendEvents(env, app, body)).statusCode).toBe(200);
  const [item] = await records().then((all) =>
    all.filter((i) => i['data']?.S !== undefined && i['data'].S.startsWith('{"Total":2,')),
  );
  expect(item).toBeDefined();
  await env.dynamo
    .client()
    .send(
      new PutItemCommand({ TableName: TABLE(), Item: { ...item, data: { S: `garbage-${randomUUID()}` } } }),
    );
  const before = (await readStream(env.kinesis.client())).length;
  expect((await sendEvents(env, app, body)).statusCode).toBe(500);
  expect((await readStream(env.kinesis.client())).length).toBe(before);
});
