import { DescribeTableCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
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
