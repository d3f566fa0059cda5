/**
 * DynamoEndpointSource reads endpoint records as plain data over dynalite: nested maps, lists, numbers,
 * sets (as lists) and nulls, whatever attribute types the writer of the record chose.
 */
import { PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoEndpointSource } from '../../../cluster/inference-proxy/src/store.js';
import { TABLES } from '../../../contracts/tables.js';
import { startLocalDynamo, type LocalDynamo } from '../../../local/dynamodb.js';

let dynamo: LocalDynamo;
let client: DynamoDBClient;
let table: string;

beforeAll(async () => {
  dynamo = await startLocalDynamo({ tables: [TABLES.inferenceEndpoints] });
  client = dynamo.client();
  table = dynamo.env[TABLES.inferenceEndpoints.envVar] ?? '';
});

afterAll(async () => {
  await dynamo.close();
});

test('decodes nested maps, lists, numbers, sets and nulls', async () => {
  await client.send(
    new PutItemCommand({
      TableName: table,
      Item: {
        endpoint_name: { S: 'llama' },
        port: { N: '8443' },
        regions: { M: { 'us-east-1': { M: { state: { S: 'running' } } } } },
        serving_paths: { L: [{ S: '/a' }, { S: '/b/*' }] },
        tags: { SS: ['x'] },
        canary: { NULL: true },
        flag: { BOOL: false },
      },
    }),
  );
  expect(await new DynamoEndpointSource(client, table).fetch('llama')).toEqual({
    endpoint_name: 'llama',
    port: 8443,
    regions: { 'us-east-1': { state: 'running' } },
    serving_paths: ['/a', '/b/*'],
    tags: ['x'],
    canary: null,
    flag: false,
  });
});

test('number sets read as lists, binary values as absent, an unknown name as undefined', async () => {
  await client.send(
    new PutItemCommand({
      TableName: table,
      Item: {
        endpoint_name: { S: 'mixed' },
        ports: { NS: ['8443', '9000'] },
        blob: { B: Buffer.from('not part of a record') },
        nested: { L: [{ SS: ['a'] }, { M: { n: { N: '1.5' } } }] },
      },
    }),
  );
  const source = new DynamoEndpointSource(client, table);
  const record = (await source.fetch('mixed')) as Record<string, unknown>;
  expect(record).toEqual({
    endpoint_name: 'mixed',
    ports: expect.arrayContaining([8443, 9000]),
    blob: undefined,
    nested: [['a'], { n: 1.5 }],
  });
  expect(record.ports).toHaveLength(2);
  expect(await source.fetch('missing')).toBeUndefined();
});
