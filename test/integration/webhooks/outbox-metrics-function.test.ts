/**
 * The global stack's webhook-outbox-metrics function (lambda/webhook-outbox-metrics) against dynalite
 * with the platform's tables: the undelivered items of the central outbox, counted and aged once, logged
 * as one EMF line with Region "global" — and the same backlog the webhook worker's own query finds
 * (DeliveryStore.backlog), item for item.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeliveryStore } from '../../../cluster/manifest-processor/src/webhooks/index.js';
import {
  readWebhookOutboxMetricsConfig,
  webhookOutboxMetricsEnvironment,
} from '../../../contracts/env/webhook-outbox-metrics.js';
import { TABLES, tableName } from '../../../contracts/tables.js';
import { createHandler, createHandlerFromEnv } from '../../../lambda/webhook-outbox-metrics/index.js';
import { startLocalDynamo, type LocalDynamo } from '../../../local/dynamodb.js';
import { memoryLogger } from '../../unit/lambda/events.js';

const NOW = Date.parse('2026-11-27T12:00:00.000Z');
const TABLE = tableName('gco', TABLES.webhookDeliveries);

let dynamo: LocalDynamo;
let client: DynamoDBClient;
beforeAll(async () => {
  dynamo = await startLocalDynamo({ tables: [TABLES.webhookDeliveries] });
  client = dynamo.client();
});
afterAll(async () => {
  await dynamo.close();
});

/** An outbox item as the webhook worker writes it: in the pending index only while undelivered. */
async function put(id: string, createdAgoSeconds: number, undelivered: boolean): Promise<void> {
  await client.send(
    new PutItemCommand({
      TableName: TABLE,
      Item: {
        delivery_id: { S: id },
        created_at: { S: new Date(NOW - createdAgoSeconds * 1000).toISOString() },
        // The index orders by next attempt, not by age: the oldest item is due last here.
        next_attempt_at: { N: String(NOW + (undelivered ? 1_000_000 - createdAgoSeconds : 0)) },
        ...(undelivered ? { pending: { S: 'pending' } } : {}),
      },
    }),
  );
}

describe('webhook outbox metrics function', () => {
  test('an empty outbox: depth 0, age 0, still one EMF line (silence would look like a stopped sampler)', async () => {
    const lines: string[] = [];
    const handler = createHandler({
      dynamodb: client,
      deliveriesTable: TABLE,
      project: 'gco',
      now: () => NOW,
      emitMetrics: (l) => lines.push(l),
    });
    await expect(handler()).resolves.toEqual({ depth: 0, oldestAgeSeconds: 0 });
    expect(lines).toHaveLength(1);
  });

  test('counts only the undelivered items, ages the oldest, and agrees with the worker’s backlog query', async () => {
    await put('a', 30, true);
    await put('b', 900, true);
    await put('c', 60, true);
    await put('delivered', 5000, false);
    const lines: string[] = [];
    const handler = createHandler({
      dynamodb: client,
      deliveriesTable: TABLE,
      project: 'gco',
      now: () => NOW,
      emitMetrics: (l) => lines.push(l),
    });
    await expect(handler()).resolves.toEqual({ depth: 3, oldestAgeSeconds: 900 });
    const worker = await new DeliveryStore(client, TABLE).backlog();
    expect(worker.depth).toBe(3);
    expect(Math.floor((NOW - Date.parse(worker.oldestCreatedAt ?? '')) / 1000)).toBe(900);

    // EMF: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      _aws: {
        Timestamp: NOW,
        CloudWatchMetrics: [
          {
            Namespace: 'GCO/Platform',
            Dimensions: [['Project', 'Region']],
            Metrics: [
              { Name: 'WebhookOutboxDepth', Unit: 'Count' },
              { Name: 'OldestWebhookOutboxEntryAgeSeconds', Unit: 'Seconds' },
            ],
          },
        ],
      },
      Project: 'gco',
      Region: 'global',
      WebhookOutboxDepth: 3,
      OldestWebhookOutboxEntryAgeSeconds: 900,
    });
  });

  test('an unreadable table fails the run (its Errors alarm) and publishes nothing', async () => {
    const lines: string[] = [];
    const logger = memoryLogger();
    const handler = createHandler({
      dynamodb: client,
      deliveriesTable: 'no-such-table',
      project: 'gco',
      logger,
      emitMetrics: (l) => lines.push(l),
    });
    await expect(handler()).rejects.toThrow(/non-existent table|not found/i);
    expect(lines).toEqual([]);
    expect(logger.text()).toContain('outbox backlog not read');
  });

  test('the environment contract round-trips; a missing variable is named', () => {
    const env = {
      ...webhookOutboxMetricsEnvironment({ deliveriesTable: TABLE, project: 'gco' }),
      AWS_REGION: 'us-east-2',
    };
    expect(readWebhookOutboxMetricsConfig(env)).toEqual({
      deliveriesTable: TABLE,
      project: 'gco',
      region: 'us-east-2',
    });
    expect(() => createHandlerFromEnv({ AWS_REGION: 'us-east-2' })).toThrow(
      /WEBHOOK_DELIVERIES_TABLE: required[\s\S]*PROJECT_NAME: required/,
    );
  });
});
