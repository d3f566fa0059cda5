/**
 * The game-analytics API as `npm start` runs it (local/analytics.ts: the emulator at `/live`, the four
 * real handlers, the REQUEST authorizer, dynalite, kinesalite), with the authorizer cache off so every
 * request is decided afresh and `application/octet-stream` as a binary media type, so generated bodies
 * of that type arrive base64-encoded. Administrative calls are SigV4-signed; events carry an API key.
 * The observers read what the handlers stored: table item counts and the stream's new records.
 */
import { ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetRecordsCommand, GetShardIteratorCommand, ListShardsCommand } from '@aws-sdk/client-kinesis';
import { ANALYTICS_TABLES } from '../../../../contracts/analytics-resources.js';
import { aggregatorRoleName } from '../../../../lib/names.js';
import { tableName } from '../../../../contracts/tables.js';
import { startLocalAnalytics } from '../../../../local/analytics.js';
import { createLocalCredentials } from '../../../../local/credentials.js';
import { LOCAL_ACCOUNT_ID, localConfig } from '../../../../local/platform.js';
import { rawRequest, signedRequest, type Reply } from '../../../integration/local/support.js';
import type { EdgeCall } from './edge-under-test.js';

export const ANALYTICS_BINARY_TYPE = 'application/octet-stream';

interface StreamRecord {
  partitionKey: string;
  record: Record<string, unknown>;
}

export interface AnalyticsUnderTest {
  readonly url: string;
  /** A SigV4-signed call (the administrative routes). */
  admin(call: EdgeCall): Promise<Reply>;
  /** POST …/events with `Authorization: <key>` (no SigV4), or without the header. */
  sendEvents(
    applicationId: string,
    key: string | undefined,
    body: Buffer,
    contentType: string,
  ): Promise<Reply>;
  /** Items in one of the analytics tables. */
  countItems(table: keyof typeof ANALYTICS_TABLES): Promise<number>;
  /** Stream records written since the previous call. */
  newRecords(): Promise<StreamRecord[]>;
  close(): Promise<void>;
}

export async function startAnalyticsUnderTest(): Promise<AnalyticsUnderTest> {
  const config = localConfig(['us-east-1'], { analytics_api: { authorizer_cache_ttl_seconds: 0 } });
  const credentials = createLocalCredentials({
    partition: config.partition.partition,
    accountId: LOCAL_ACCOUNT_ID,
    aggregatorRoleName: aggregatorRoleName(config),
  });
  const analytics = await startLocalAnalytics({
    config,
    accountId: LOCAL_ACCOUNT_ID,
    credentials,
    logs: 'silent',
    binaryMediaTypes: [ANALYTICS_BINARY_TYPE],
  });
  const dynamodb = analytics.clients.dynamodb();
  const kinesis = analytics.clients.kinesis();
  const StreamName = analytics.streamName;
  // One shard (local/analytics.ts); read from its start, then on from where the last read ended.
  const { Shards = [] } = await kinesis.send(new ListShardsCommand({ StreamName }));
  let iterator = (
    await kinesis.send(
      new GetShardIteratorCommand({
        StreamName,
        ShardId: Shards[0]?.ShardId,
        ShardIteratorType: 'TRIM_HORIZON',
      }),
    )
  ).ShardIterator;

  return {
    url: analytics.api.url,
    admin: (call) =>
      signedRequest(analytics.api.url, {
        ...call,
        region: config.analyticsApi.region,
        credentials: credentials.developer,
      }),
    sendEvents: (applicationId, key, body, contentType) =>
      rawRequest(`${analytics.api.url}/applications/${applicationId}/events`, {
        method: 'POST',
        headers: [
          ['content-type', contentType],
          ...(key === undefined ? [] : [['Authorization', key] as [string, string]]),
        ],
        body,
      }),
    async countItems(table) {
      let count = 0;
      let start: Record<string, AttributeValue> | undefined;
      do {
        const page = await dynamodb.send(
          new ScanCommand({
            TableName: tableName(config.projectName, ANALYTICS_TABLES[table]),
            Select: 'COUNT',
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        count += page.Count ?? 0;
        start = page.LastEvaluatedKey;
      } while (start !== undefined);
      return count;
    },
    async newRecords() {
      const out: StreamRecord[] = [];
      for (;;) {
        const page = await kinesis.send(new GetRecordsCommand({ ShardIterator: iterator }));
        iterator = page.NextShardIterator;
        const records = page.Records ?? [];
        for (const r of records) {
          out.push({
            partitionKey: r.PartitionKey ?? '',
            record: JSON.parse(Buffer.from(r.Data ?? new Uint8Array()).toString('utf8')) as Record<
              string,
              unknown
            >,
          });
        }
        if (records.length === 0) return out;
      }
    },
    close: () => analytics.close(),
  };
}
