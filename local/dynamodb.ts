/**
 * DynamoDB on loopback for tests and the local platform: a dynalite server (in memory, or in a LevelDB
 * directory with `path`) with the platform's tables created from contracts/tables.ts, and a real
 * @aws-sdk/client-dynamodb client pointed at it.
 */
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import {
  CreateTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  type CreateTableCommandInput,
} from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import {
  TABLES,
  tableEnvironment,
  tableName,
  type KeyAttribute,
  type TableDefinition,
} from '../contracts/tables.js';

export interface LocalDynamo {
  readonly endpoint: string;
  readonly region: string;
  /** Environment variables naming every table (as a deployment sets them). */
  readonly env: Record<string, string>;
  client(): DynamoDBClient;
  close(): Promise<void>;
}

/** Static credentials for loopback servers: the SDK insists on some, and no real account is involved. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export async function startLocalDynamo(
  opts: {
    project?: string;
    region?: string;
    tables?: readonly TableDefinition[];
    /** Keep the tables in this directory (dynalite's LevelDB `path`); in memory otherwise. */
    path?: string;
  } = {},
): Promise<LocalDynamo> {
  const project = opts.project ?? 'gco';
  const region = opts.region ?? 'us-east-2';
  if (opts.path !== undefined) mkdirSync(opts.path, { recursive: true });
  const server = dynalite({
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
    ...(opts.path === undefined ? {} : { path: opts.path }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clients: DynamoDBClient[] = [];
  const client = () => {
    const c = new DynamoDBClient({ endpoint, region, credentials: LOCAL_CREDENTIALS });
    clients.push(c);
    return c;
  };
  const close = async () => {
    for (const c of clients) c.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const admin = client();
  try {
    for (const table of opts.tables ?? Object.values(TABLES)) {
      await admin
        .send(new CreateTableCommand(createTableInput(table, tableName(project, table))))
        .catch((error: unknown) => {
          // A kept directory already has its tables (CreateTable on an existing name: ResourceInUseException).
          if (!(opts.path !== undefined && error instanceof ResourceInUseException)) throw error;
        });
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { endpoint, region, env: tableEnvironment(project), client, close };
}

/** CreateTable input (on-demand) for dynalite in tests and the local platform; the stacks mirror it. */
function createTableInput(table: TableDefinition, name: string): CreateTableCommandInput {
  const attributes = new Map<string, KeyAttribute>();
  const add = (a: KeyAttribute | undefined) => a && attributes.set(a.name, a);
  add(table.partitionKey);
  add(table.sortKey);
  for (const index of table.indexes) {
    add(index.partitionKey);
    add(index.sortKey);
  }
  const keySchema = (pk: KeyAttribute, sk: KeyAttribute | undefined) => [
    { AttributeName: pk.name, KeyType: 'HASH' as const },
    ...(sk ? [{ AttributeName: sk.name, KeyType: 'RANGE' as const }] : []),
  ];
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes.values()].map((a) => ({
      AttributeName: a.name,
      AttributeType: a.type,
    })),
    KeySchema: keySchema(table.partitionKey, table.sortKey),
    ...(table.indexes.length > 0
      ? {
          GlobalSecondaryIndexes: table.indexes.map((i) => ({
            IndexName: i.indexName,
            KeySchema: keySchema(i.partitionKey, i.sortKey),
            Projection: { ProjectionType: 'ALL' as const },
          })),
        }
      : {}),
  };
}
