/**
 * The webhook outbox backlog, measured once for the whole deployment: the delivery outbox is one central
 * table (contracts/tables.ts, webhook-deliveries) in the global region, so its depth and the age of its
 * oldest undelivered item are one fact, not one per region. An EventBridge schedule of the global stack
 * invokes this function every minute; it reads the table's pending index and logs one EMF line
 * (WebhookOutboxDepth, OldestWebhookOutboxEntryAgeSeconds; dimensions Project and Region = CENTRAL_REGION)
 * to stdout, where Lambda extracts the metrics the global stack's outbox alarms watch
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html).
 *
 * The pending index holds exactly the undelivered items (pending and delivering, due or not): the same
 * query as the webhook worker's DeliveryStore.backlog() (cluster/manifest-processor/src/webhooks/store.ts).
 * It is ordered by next attempt, not by age, so every page is read for the oldest created_at.
 */
import { DynamoDBClient, paginateQuery } from '@aws-sdk/client-dynamodb';
import { awsClientConfig } from '../../contracts/runtime/aws-clients.js';
import { readWebhookOutboxMetricsConfig } from '../../contracts/env/webhook-outbox-metrics.js';
import { emfDocument } from '../../contracts/emf-document.js';
import { CENTRAL_REGION } from '../../contracts/platform-metrics.js';
import { TABLES } from '../../contracts/tables.js';
import { entryPoint, failInvocation } from '../shared/entry-point.js';
import { describeError } from '../shared/errors.js';
import { createLogger, type EdgeLogger } from '../shared/logger.js';

export const SERVICE_NAME = 'webhook-outbox-metrics';

/** The outbox's index of undelivered items and its partition value (the webhook worker writes both). */
const PENDING_INDEX = TABLES.webhookDeliveries.indexes[0].indexName;
const PENDING = 'pending';

export interface OutboxBacklog {
  readonly depth: number;
  /** Seconds since the oldest undelivered item was created; 0 when the outbox is empty. */
  readonly oldestAgeSeconds: number;
}

export interface OutboxMetricsDeps {
  readonly dynamodb: Pick<DynamoDBClient, 'send'>;
  readonly deliveriesTable: string;
  readonly project: string;
  readonly logger?: EdgeLogger;
  readonly now?: () => number;
  /** Writes one EMF line (stdout in Lambda); tests capture it. */
  readonly emitMetrics?: (line: string) => void;
}

/** Counts the undelivered items and finds the earliest created_at (ISO 8601 sorts as text). */
export async function readBacklog(
  dynamodb: Pick<DynamoDBClient, 'send'>,
  table: string,
  now: number,
): Promise<OutboxBacklog> {
  let depth = 0;
  let oldest: string | undefined;
  const pages = paginateQuery(
    { client: dynamodb as DynamoDBClient },
    {
      TableName: table,
      IndexName: PENDING_INDEX,
      KeyConditionExpression: '#pending = :pending',
      ProjectionExpression: 'created_at',
      ExpressionAttributeNames: { '#pending': 'pending' },
      ExpressionAttributeValues: { ':pending': { S: PENDING } },
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      depth++;
      const created = item.created_at?.S;
      if (created !== undefined && (oldest === undefined || created < oldest)) oldest = created;
    }
  }
  const createdMs = oldest === undefined ? Number.NaN : Date.parse(oldest);
  const oldestAgeSeconds = Number.isFinite(createdMs) ? Math.max(0, Math.floor((now - createdMs) / 1000)) : 0;
  return { depth, oldestAgeSeconds };
}

/** One run: read the backlog, log its EMF line, return it. A failed read fails the run (its Errors alarm). */
export function createHandler(deps: OutboxMetricsDeps): () => Promise<OutboxBacklog> {
  const logger = deps.logger ?? createLogger(SERVICE_NAME);
  const now = deps.now ?? Date.now;
  const emit = deps.emitMetrics ?? ((line: string) => console.log(line));
  return async () => {
    const at = now();
    let backlog: OutboxBacklog;
    try {
      backlog = await readBacklog(deps.dynamodb, deps.deliveriesTable, at);
    } catch (error) {
      logger.error({ table: deps.deliveriesTable, ...describeError(error) }, 'outbox backlog not read');
      throw error;
    }
    emit(
      JSON.stringify(
        emfDocument(
          at,
          { Project: deps.project, Region: CENTRAL_REGION },
          { webhookOutboxDepth: backlog.depth, oldestWebhookOutboxAge: backlog.oldestAgeSeconds },
        ),
      ),
    );
    return backlog;
  };
}

/** Builds the handler from the environment: its DynamoDB client works in AWS_REGION. */
export function createHandlerFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  opts: { logger?: EdgeLogger; dynamodb?: Pick<DynamoDBClient, 'send'> } = {},
): () => Promise<OutboxBacklog> {
  const config = readWebhookOutboxMetricsConfig(env);
  return createHandler({
    dynamodb:
      opts.dynamodb ??
      new DynamoDBClient(awsClientConfig({ component: SERVICE_NAME, region: config.region })),
    deliveriesTable: config.deliveriesTable,
    project: config.project,
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
}

const logger = createLogger(SERVICE_NAME);

/** Lambda entry point: a bad configuration fails every run, which the function's Errors alarm sees. */
export const handler = entryPoint(logger, createHandlerFromEnv, failInvocation);
