/**
 * cluster/shared/dynamo.ts over dynalite: the conditional-write check against the SDK's real exceptions,
 * paging through LastEvaluatedKey within bounds, null fields written as absent attributes, and the
 * opaque cursor codec.
 */
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  decodeOpaqueCursor,
  documentClient,
  encodeOpaqueCursor,
  isConditionalCheckFailed,
  queryItems,
  scanItems,
  unlessConditionFailed,
  withoutNulls,
} from '../../cluster/shared/dynamo.js';
import { TABLES } from '../../contracts/tables.js';
import { startLocalDynamo, type LocalDynamo } from '../../local/dynamodb.js';

let dynamo: LocalDynamo;
let client: DynamoDBClient;
let doc: DynamoDBDocumentClient;
let table: string;

beforeAll(async () => {
  dynamo = await startLocalDynamo({ tables: [TABLES.jobQueue] });
  client = dynamo.client();
  doc = documentClient(client);
  table = dynamo.env[TABLES.jobQueue.envVar] ?? '';
  for (let i = 0; i < 7; i++) {
    await doc.send(
      new PutCommand({
        TableName: table,
        Item: { pk: `job-${i}`, record_type: 'job', created_at: `2025-01-0${i + 1}T00:00:00Z` },
      }),
    );
  }
});

afterAll(async () => {
  await dynamo.close();
});

describe('isConditionalCheckFailed', () => {
  test('is true for a failed ConditionExpression and false for any other failure', async () => {
    const failed = await doc
      .send(
        new PutCommand({
          TableName: table,
          Item: { pk: 'job-0' },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      )
      .catch((error: unknown) => error);
    expect(isConditionalCheckFailed(failed)).toBe(true);

    const missingTable = await doc
      .send(new GetCommand({ TableName: 'no-such-table', Key: { pk: 'x' } }))
      .catch((error: unknown) => error);
    expect(missingTable).toBeInstanceOf(Error);
    expect(isConditionalCheckFailed(missingTable)).toBe(false);

    // The name alone does not make one: only the SDK's exception class counts.
    const lookalike = Object.assign(new Error('x'), { name: 'ConditionalCheckFailedException' });
    expect(isConditionalCheckFailed(lookalike)).toBe(false);
  });
});

describe('unlessConditionFailed', () => {
  const putNew = (pk: string) =>
    doc.send(
      new PutCommand({
        TableName: table,
        Item: { pk },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );

  test('gives the output of a write whose condition held, undefined when it failed', async () => {
    expect(await unlessConditionFailed(putNew('fresh'))).toMatchObject({
      $metadata: { httpStatusCode: 200 },
    });
    expect(await unlessConditionFailed(putNew('fresh'))).toBeUndefined();
  });

  test('throws any other failure', async () => {
    await expect(
      unlessConditionFailed(doc.send(new GetCommand({ TableName: 'no-such-table', Key: { pk: 'x' } }))),
    ).rejects.toThrow(/non-existent table|not found/i);
  });
});

describe('paging', () => {
  // Two items a page, so seven items take four pages.
  const byRecordType = () => ({
    TableName: table,
    IndexName: 'all-created-index',
    KeyConditionExpression: 'record_type = :t',
    ExpressionAttributeValues: { ':t': 'job' },
    Limit: 2,
  });

  test('queryItems follows LastEvaluatedKey to the end', async () => {
    const items = await queryItems(doc, byRecordType());
    expect(items.map((i) => i.pk)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `job-${i}`));
  });

  test('queryItems stops at the item limit or the page limit', async () => {
    const limited = await queryItems(doc, byRecordType(), { limit: 3 });
    expect(limited.map((i) => i.pk)).toEqual(['job-0', 'job-1', 'job-2']);
    const twoPages = await queryItems(doc, byRecordType(), { maxPages: 2 });
    expect(twoPages).toHaveLength(4);
  });

  test('scanItems reads every page', async () => {
    // Limit counts items read before the filter, so the jobs come over several pages.
    const items = await scanItems(doc, {
      TableName: table,
      FilterExpression: 'record_type = :t',
      ExpressionAttributeValues: { ':t': 'job' },
      Limit: 3,
    });
    expect(items.map((i) => i.pk).sort()).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `job-${i}`));
  });
});

test('withoutNulls writes null fields as absent attributes, nested maps included, list elements kept', async () => {
  const item = withoutNulls({
    pk: 'nulls',
    gone: null,
    empty: '',
    zero: 0,
    list: [null, { kept: 'k', dropped: null }],
    map: { dropped: null, kept: false },
  });
  await doc.send(new PutCommand({ TableName: table, Item: item }));
  const raw = await client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'nulls' } } }));
  expect(raw.Item).toEqual({
    pk: { S: 'nulls' },
    empty: { S: '' },
    zero: { N: '0' },
    list: { L: [{ NULL: true }, { M: { kept: { S: 'k' } } }] },
    map: { M: { kept: { BOOL: false } } },
  });
});

describe('opaque cursors', () => {
  test('round trip of a position', () => {
    const raw = encodeOpaqueCursor({ v: 1, pk: 'job-1', n: 3 });
    expect(raw).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeOpaqueCursor(raw, 512)).toEqual({ position: { v: 1, pk: 'job-1', n: 3 } });
  });

  test.each([
    ['too long', encodeOpaqueCursor({ pk: 'x'.repeat(600) }), 'not base64url'],
    ['not base64url', 'a+b/c=', 'not base64url'],
    ['not JSON', Buffer.from('hello').toString('base64url'), 'not a cursor of this listing'],
    ['an array', Buffer.from('[1]').toString('base64url'), 'malformed'],
    ['null', Buffer.from('null').toString('base64url'), 'malformed'],
  ])('names the problem of a cursor that is %s', (_name, raw, problem) => {
    expect(decodeOpaqueCursor(raw, 512)).toEqual({ problem });
  });
});
