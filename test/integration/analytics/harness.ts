/**
 * Test harness for the analytics handlers: dynalite with the analytics tables and kinesalite with the
 * events stream (real servers on loopback), the four handlers built with createHandlerFromEnv exactly as
 * Lambda builds them, API Gateway-shaped events, a capturing logger, and a reader that drains the stream.
 */
import {
  BatchWriteItemCommand,
  DynamoDBClient,
  type BatchWriteItemCommandInput,
  type BatchWriteItemCommandOutput,
  type QueryCommandInput,
  type QueryCommandOutput,
} from '@aws-sdk/client-dynamodb';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import {
  GetRecordsCommand,
  GetShardIteratorCommand,
  ListShardsCommand,
  type PutRecordsCommandInput,
  type PutRecordsCommandOutput,
  type PutRecordsResultEntry,
} from '@aws-sdk/client-kinesis';
import { expect } from '@jest/globals';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { ANALYTICS_TABLES, analyticsStreamName } from '../../../contracts/analytics-resources.js';
import { API_KEY_ID_PARAM, APPLICATION_ID_PARAM } from '../../../contracts/api-routes.js';
import { startLocalDynamo, type LocalDynamo } from '../../../local/dynamodb.js';
import { startLocalKinesis, type LocalKinesis } from '../../../local/kinesis.js';
import { tableName } from '../../../contracts/tables.js';
import * as admin from '../../../lambda/analytics-admin/index.js';
import * as authorizer from '../../../lambda/analytics-authorizer/index.js';
import * as events from '../../../lambda/analytics-events/index.js';
import type { EdgeLogger, LogFields } from '../../../lambda/shared/logger.js';
import { lambdaContext } from '../../support/lambda-context.js';

export const PROJECT = 'test';
export const STREAM = analyticsStreamName(PROJECT);
const SHARDS = 4;
export const METHOD_ARN_PREFIX = 'arn:aws:execute-api:us-east-2:111122223333:a1b2c3d4e5/live';

/** Every log entry as the raw JSON of its fields (no redaction), to prove what was never logged. */
export interface CapturingLogger extends EdgeLogger {
  readonly lines: string[];
  entries(): { level: string; message: string; fields: LogFields }[];
}

export function capturingLogger(): CapturingLogger {
  const entries: { level: string; message: string; fields: LogFields }[] = [];
  const lines: string[] = [];
  const at =
    (level: string) =>
    (fields: LogFields, message: string): void => {
      entries.push({ level, message, fields });
      lines.push(JSON.stringify({ level, message, ...fields }));
    };
  return {
    lines,
    entries: () => entries,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  };
}

export interface AnalyticsEnv {
  readonly dynamo: LocalDynamo;
  readonly kinesis: LocalKinesis;
  readonly env: Record<string, string>;
  readonly logger: CapturingLogger;
  readonly admin: admin.AdminHandler;
  readonly authorizer: authorizer.AuthorizerHandler;
  readonly events: events.EventsHandler;
  close(): Promise<void>;
}

export async function startAnalyticsEnv(
  opts: {
    kinesisClient?: (local: LocalKinesis) => KinesisClient;
    dynamodbClient?: (local: LocalDynamo) => DynamoDBClient;
    env?: Record<string, string>;
    keyIndexWaitMs?: number;
  } = {},
): Promise<AnalyticsEnv> {
  const dynamo = await startLocalDynamo({ project: PROJECT, tables: Object.values(ANALYTICS_TABLES) });
  const kinesis = await startLocalKinesis({ streams: [{ name: STREAM, shardCount: SHARDS }] });
  const env = {
    ...Object.fromEntries(Object.values(ANALYTICS_TABLES).map((t) => [t.envVar, tableName(PROJECT, t)])),
    EVENTS_STREAM_NAME: STREAM,
    ...opts.env,
  };
  const logger = capturingLogger();
  const dynamodb = opts.dynamodbClient?.(dynamo) ?? dynamo.client();
  return {
    dynamo,
    kinesis,
    env,
    logger,
    admin: admin.createHandlerFromEnv(env, {
      dynamodb,
      logger,
      ...(opts.keyIndexWaitMs !== undefined ? { keyIndexWaitMs: opts.keyIndexWaitMs } : {}),
    }),
    authorizer: authorizer.createHandlerFromEnv(env, { dynamodb, logger }),
    events: events.createHandlerFromEnv(env, {
      dynamodb,
      kinesis: opts.kinesisClient?.(kinesis) ?? kinesis.client(),
      logger,
    }),
    async close() {
      await kinesis.close();
      await dynamo.close();
    },
  };
}

export const CONTEXT = lambdaContext({
  awsRequestId: 'test-invocation',
  getRemainingTimeInMillis: () => 28_000,
});

export interface Answer {
  statusCode: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON shapes
  body: any;
  headers: Record<string, string[]>;
}

export function answer(result: APIGatewayProxyResult): Answer {
  expect(result.multiValueHeaders?.['content-type']).toEqual(['application/json']);
  return {
    statusCode: result.statusCode,
    body: JSON.parse(result.body) as unknown,
    headers: (result.multiValueHeaders ?? {}) as Record<string, string[]>,
  };
}

const APP_RESOURCE = `/applications/{${APPLICATION_ID_PARAM}}`;
const KEY_RESOURCE = `${APP_RESOURCE}/authorizations/{${API_KEY_ID_PARAM}}`;

export const RESOURCES = {
  applications: '/applications',
  application: APP_RESOURCE,
  authorizations: `${APP_RESOURCE}/authorizations`,
  authorization: KEY_RESOURCE,
  events: `${APP_RESOURCE}/events`,
} as const;

/** Calls the admin handler the way API Gateway would for `method resource` with these path ids. */
export async function callAdmin(
  env: AnalyticsEnv,
  method: string,
  resource: string,
  ids: { app?: string; key?: string } = {},
  body?: unknown,
): Promise<Answer> {
  const pathParameters: Record<string, string> = {};
  if (ids.app !== undefined) pathParameters[APPLICATION_ID_PARAM] = ids.app;
  if (ids.key !== undefined) pathParameters[API_KEY_ID_PARAM] = ids.key;
  const path = resource
    .replace(`{${APPLICATION_ID_PARAM}}`, ids.app ?? '')
    .replace(`{${API_KEY_ID_PARAM}}`, ids.key ?? '');
  const result = await env.admin(
    {
      httpMethod: method,
      resource,
      path,
      pathParameters: Object.keys(pathParameters).length > 0 ? pathParameters : null,
      body: body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body),
      isBase64Encoded: false,
      requestContext: { requestId: `req-${method}-${path}` },
    },
    CONTEXT,
  );
  return answer(result);
}

export async function createApplication(env: AnalyticsEnv, name = 'Game'): Promise<string> {
  const res = await callAdmin(env, 'POST', RESOURCES.applications, {}, { Name: name });
  expect(res.statusCode).toBe(200);
  return res.body.ApplicationId as string;
}

export async function createKey(
  env: AnalyticsEnv,
  app: string,
  name = 'client key',
): Promise<{ id: string; value: string }> {
  const res = await callAdmin(env, 'POST', RESOURCES.authorizations, { app }, { Name: name });
  expect(res.statusCode).toBe(200);
  return { id: res.body.ApiKeyId as string, value: res.body.ApiKeyValue as string };
}

export const eventsMethodArn = (app: string) => `${METHOD_ARN_PREFIX}/POST/applications/${app}/events`;

/** Runs the authorizer like API Gateway (REQUEST type, identity source: the Authorization header). */
export function authorize(env: AnalyticsEnv, key: string | undefined, methodArn: string) {
  return env.authorizer(
    { methodArn, headers: key === undefined ? {} : { Authorization: key }, requestContext: undefined },
    CONTEXT,
  );
}

/** Calls the events handler with the context API Gateway passes from an Allow of the authorizer. */
export async function sendEvents(
  env: AnalyticsEnv,
  app: string,
  body: unknown,
  opts: { authorizedApp?: string; context?: Context } = {},
): Promise<Answer> {
  const result = await env.events(
    {
      httpMethod: 'POST',
      pathParameters: { [APPLICATION_ID_PARAM]: app },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      isBase64Encoded: false,
      requestContext: {
        requestId: 'req-events',
        authorizer: { applicationId: opts.authorizedApp ?? app, apiKeyId: 'key-id', principalId: 'key-id' },
      },
    },
    opts.context ?? CONTEXT,
  );
  return answer(result);
}

export interface StreamEntry {
  partitionKey: string;
  shardId: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the record JSON is asserted field by field
  record: any;
}

/** Every record in the stream, all shards, from TRIM_HORIZON. */
export async function readStream(client: KinesisClient, stream = STREAM): Promise<StreamEntry[]> {
  const out: StreamEntry[] = [];
  const { Shards } = await client.send(new ListShardsCommand({ StreamName: stream }));
  for (const shard of Shards ?? []) {
    let { ShardIterator: iterator } = await client.send(
      new GetShardIteratorCommand({
        StreamName: stream,
        ShardId: shard.ShardId,
        ShardIteratorType: 'TRIM_HORIZON',
      }),
    );
    while (iterator !== undefined) {
      const page = await client.send(new GetRecordsCommand({ ShardIterator: iterator }));
      const records = page.Records ?? [];
      for (const r of records) {
        out.push({
          partitionKey: r.PartitionKey ?? '',
          shardId: shard.ShardId ?? '',
          record: JSON.parse(Buffer.from(r.Data ?? new Uint8Array()).toString('utf8')),
        });
      }
      iterator = records.length === 0 ? undefined : page.NextShardIterator;
    }
  }
  return out;
}

/**
 * A real kinesalite client that answers ProvisionedThroughputExceededException for the records
 * `throttle` picks (those never reach the server), as Kinesis does for a hot shard; the rest are written.
 * `calls` records the partition keys of every PutRecords call, in order.
 */
export function throttlingClient(
  local: LocalKinesis,
  throttle: (partitionKey: string) => boolean,
): { client: KinesisClient; calls: string[][] } {
  const client = local.client();
  const calls: string[][] = [];
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as PutRecordsCommandInput;
      if (!Array.isArray(input.Records)) return next(args);
      calls.push(input.Records.map((r) => r.PartitionKey ?? ''));
      const throttled = input.Records.map((r) => throttle(r.PartitionKey ?? ''));
      const passed = input.Records.filter((_, i) => !throttled[i]);
      const written: PutRecordsResultEntry[] = [];
      let base = { output: { $metadata: {} } as PutRecordsCommandOutput, response: {} as unknown };
      if (passed.length > 0) {
        const result = await next({ ...args, input: { ...input, Records: passed } });
        base = result as typeof base;
        written.push(...(base.output.Records ?? []));
      }
      let j = 0;
      const records = throttled.map((t) =>
        t
          ? {
              ErrorCode: 'ProvisionedThroughputExceededException',
              ErrorMessage: 'Rate exceeded for shard in stream under account 111122223333.',
            }
          : (written[j++] ?? {}),
      );
      return {
        ...base,
        output: {
          ...base.output,
          Records: records,
          FailedRecordCount: records.filter((r) => 'ErrorCode' in r).length,
        },
      };
    },
    { step: 'initialize', name: 'throttleSomeRecords' },
  );
  return { client, calls };
}

/** A DynamoDB client pointed at a port nobody listens on (an infrastructure failure), without retries. */
export function unreachableDynamo(): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: 'http://127.0.0.1:9',
    region: 'us-east-2',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
}

/** Writes items straight into a table (BatchWriteItem, 25 at a time), bypassing the handlers. */
export async function seedItems(
  client: DynamoDBClient,
  table: string,
  items: Record<string, string | boolean>[],
): Promise<void> {
  for (let i = 0; i < items.length; i += 25) {
    const requests = items.slice(i, i + 25).map((item) => ({
      PutRequest: {
        Item: Object.fromEntries(
          Object.entries(item).map(([k, v]) => [k, typeof v === 'boolean' ? { BOOL: v } : { S: v }]),
        ),
      },
    }));
    let pending: typeof requests | undefined = requests;
    while (pending !== undefined && pending.length > 0) {
      const out = await client.send(new BatchWriteItemCommand({ RequestItems: { [table]: pending } }));
      pending = out.UnprocessedItems?.[table] as typeof requests | undefined;
    }
  }
}

/**
 * A real dynalite client whose BatchWriteItem calls process only the first `take` requests and hand the
 * rest back as UnprocessedItems, as DynamoDB does under throttling. `batchCalls` counts those calls.
 */
export function partialBatchWriteClient(
  local: LocalDynamo,
  take: number,
): { client: DynamoDBClient; batchCalls: number[] } {
  const client = local.client();
  const batchCalls: number[] = [];
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as BatchWriteItemCommandInput;
      if (input.RequestItems === undefined) return next(args);
      const [table, requests] = Object.entries(input.RequestItems)[0] ?? ['', []];
      batchCalls.push(requests.length);
      const result = await next({
        ...args,
        input: { ...input, RequestItems: { [table]: requests.slice(0, take) } },
      });
      const rest = requests.slice(take);
      const output = result.output as BatchWriteItemCommandOutput;
      return { ...result, output: { ...output, UnprocessedItems: rest.length > 0 ? { [table]: rest } : {} } };
    },
    { step: 'initialize', name: 'partialBatchWrite' },
  );
  return { client, batchCalls };
}

/**
 * A real dynalite client whose index Queries (IndexName set) find nothing until `visibleAfter` of them
 * have been answered, as a DynamoDB GSI does while it catches up with a fresh write. `indexQueries`
 * counts them. Base-table reads are untouched.
 */
export function laggingIndexClient(
  local: LocalDynamo,
  visibleAfter: number,
): { client: DynamoDBClient; indexQueries: () => number } {
  const client = local.client();
  let count = 0;
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as QueryCommandInput;
      if (input.IndexName === undefined) return next(args);
      count += 1;
      const result = await next(args);
      if (count > visibleAfter) return result;
      const output = result.output as QueryCommandOutput;
      return { ...result, output: { ...output, Items: [], Count: 0 } };
    },
    { step: 'initialize', name: 'laggingIndex' },
  );
  return { client, indexQueries: () => count };
}
