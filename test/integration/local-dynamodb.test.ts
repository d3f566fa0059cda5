import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DescribeTableCommand,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { startLocalDynamo } from '../../local/dynamodb.js';
import { TABLES, tableName } from '../../contracts/tables.js';

test('dynalite on loopback holds every platform table as contracts/tables.ts declares it', async () => {
  const dynamo = await startLocalDynamo({ project: 'demo' });
  try {
    const client = dynamo.client();
    const listed = await client.send(new ListTablesCommand({}));
    expect(listed.TableNames?.sort()).toEqual(
      Object.values(TABLES)
        .map((t) => tableName('demo', t))
        .sort(),
    );
    const queue = await client.send(new DescribeTableCommand({ TableName: 'demo-job-queue' }));
    expect(queue.Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName).sort()).toEqual(
      TABLES.jobQueue.indexes.map((i) => i.indexName).sort(),
    );
    expect(dynamo.env.JOB_QUEUE_TABLE).toBe('demo-job-queue');
  } finally {
    await dynamo.close();
  }
});

test('with a path, items survive a restart and the tables are created only once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gco-dynalite-'));
  const tables = [TABLES.jobQueue];
  const key = { pk: { S: 'kept' } };
  try {
    const first = await startLocalDynamo({ project: 'demo', tables, path: dir });
    await first.client().send(new PutItemCommand({ TableName: 'demo-job-queue', Item: key }));
    await first.close();

    // CreateTable on the kept directory answers ResourceInUseException, which the start expects.
    const second = await startLocalDynamo({ project: 'demo', tables, path: dir });
    try {
      const got = await second.client().send(new GetItemCommand({ TableName: 'demo-job-queue', Key: key }));
      expect(got.Item).toEqual(key);
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('without a path, a table that already exists is still an error', async () => {
  const dynamo = await startLocalDynamo({
    project: 'demo',
    tables: [TABLES.jobQueue, TABLES.jobQueue],
  }).catch((error: unknown) => error);
  expect(dynamo).toMatchObject({ name: 'ResourceInUseException' });
});
