/**
 * `POST /applications/{APPLICATION_ID}/events`, behind the API-key REQUEST authorizer.
 *
 * Order of checks: the authorizer's applicationId must equal the path's (403); the raw body must be at
 * most 5 MiB (413, before parsing); the application must still exist (403): read consistently, and an
 * existing one remembered per instance for at most the authorizer cache's TTL (application-cache.ts), so a
 * deleted application's batches stop no later than API Gateway's cached Allow would; the body must be
 * `{"Events":[…]}` (or the game-analytics pipeline's `{"events":[…]}`) with 1–500 events (400). Then each event is validated and the valid ones are written
 * to the stream (ingest.ts: idempotent per batch; kinesis-writer.ts: retries within the deadline). The answer is
 * 200 with one result per event in input order. Rules and record shape: docs/analytics-api.md.
 */
import { awsClientConfig } from '../../contracts/runtime/aws-clients.js';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { IdempotencyAlreadyInProgressError } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { BasePersistenceLayer } from '@aws-lambda-powertools/idempotency/persistence';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { APPLICATION_ID_PARAM } from '../../contracts/api-routes.js';
import { answerInternalError, entryPoint } from '../shared/entry-point.js';
import { EdgeHttpError, errorResult, MESSAGES, requestFailure } from '../shared/errors.js';
import { jsonResult } from '../shared/json-result.js';
import { createLogger, type EdgeLogger } from '../shared/logger.js';
import { pathId } from '../shared/analytics/admin-input.js';
import { ApplicationStore } from '../shared/analytics/applications-store.js';
import { isPlainObject, rejectUnknownFields } from '../shared/analytics/http.js';
import { canonicalUuid } from '../shared/analytics/ids.js';
import type { BackoffPolicy } from '../../contracts/runtime/backoff.js';
import { DEFAULT_IDEMPOTENCY_TTL_SECONDS, readEventsConfig } from '../../contracts/env/analytics-events.js';
import { ApplicationExistenceCache } from './application-cache.js';
import { BatchIngestor } from './ingest.js';
import { KinesisWriter } from './kinesis-writer.js';
import { requestBody } from './request-body.js';
import { withoutSdkLogFilter } from '../../contracts/runtime/sdk-log-filter.js';

export const SERVICE_NAME = 'analytics-events';
export const MAX_EVENTS = 500;
export const MAX_BODY_BYTES = 5 * 1024 * 1024;
/** Stream writes stop this long before the function's remaining time runs out (answer + record save). */
export const DEADLINE_MARGIN_MS = 2_000;
/** And never run past this, whatever the function timeout: the REST integration gives up at 29 s. */
export const MAX_WRITE_WINDOW_MS = 26_000;

export type EventsEvent = Pick<
  APIGatewayProxyEvent,
  'httpMethod' | 'pathParameters' | 'body' | 'isBase64Encoded'
> & {
  requestContext: { requestId?: string; authorizer?: Record<string, unknown> | null };
};
/** The whole Lambda context: idempotency records how long the invocation has left. */
export type EventsHandler = (event: EventsEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface EventsDeps {
  applications: ApplicationStore;
  kinesis: Pick<KinesisClient, 'send'>;
  streamName: string;
  persistence: BasePersistenceLayer;
  idempotencyTtlSeconds?: number;
  /** How long an instance remembers that an application exists (application-cache.ts); 0: read every time. */
  applicationCacheTtlMs?: number;
  logger?: EdgeLogger;
  now?: () => Date;
  /** Backoff of stream retries (tests shorten it). */
  backoff?: BackoffPolicy;
}

const forbidden = (reason: string) => new EdgeHttpError(403, 'Forbidden', reason);

/**
 * The key a batch's events are under: the API's `Events`, or `events` as the game clients of the
 * existing game-analytics pipeline send them (the same event objects). Both in one body is refused.
 */
const BATCH_KEYS = ['Events', 'events'] as const;

/** `{"Events":[…]}` or `{"events":[…]}` with 1–500 entries; the entries are judged one by one later. */
function eventsOf(body: unknown): unknown[] {
  if (!isPlainObject(body))
    throw new EdgeHttpError(400, 'Request body must be a JSON object', 'body_not_object');
  const present = BATCH_KEYS.filter((k) => Object.hasOwn(body, k));
  if (present.length > 1) {
    throw new EdgeHttpError(400, 'Send the events as Events or as events, not both', 'both_batch_keys');
  }
  const key = present[0] ?? 'Events';
  rejectUnknownFields(body, [key]);
  const events = body[key];
  if (events === undefined) throw new EdgeHttpError(400, `${key} is required`, 'invalid_field');
  if (!Array.isArray(events)) throw new EdgeHttpError(400, `${key} must be an array`, 'invalid_field');
  if (events.length < 1 || events.length > MAX_EVENTS) {
    throw new EdgeHttpError(400, `${key} must contain 1 to ${MAX_EVENTS} events`, 'invalid_field');
  }
  return events;
}

export function createHandler(deps: EventsDeps): EventsHandler {
  const logger = deps.logger ?? createLogger(SERVICE_NAME);
  const now = deps.now ?? (() => new Date());
  const applications = new ApplicationExistenceCache(deps.applications, deps.applicationCacheTtlMs);
  const ingestor = new BatchIngestor({
    persistence: deps.persistence,
    writer: new KinesisWriter(
      deps.kinesis,
      deps.streamName,
      logger,
      deps.backoff ? { backoff: deps.backoff } : {},
    ),
    logger,
    expiresAfterSeconds: deps.idempotencyTtlSeconds ?? DEFAULT_IDEMPOTENCY_TTL_SECONDS,
  });

  return async (event, context) => {
    const started = Date.now();
    const deadline =
      started + Math.min(MAX_WRITE_WINDOW_MS, context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS);
    const log: Record<string, unknown> = { request_id: event.requestContext.requestId };
    try {
      if (event.httpMethod !== 'POST')
        throw new EdgeHttpError(405, MESSAGES.methodNotAllowed, 'method_not_allowed');
      const applicationId = pathId(event.pathParameters, APPLICATION_ID_PARAM);
      log['application_id'] = applicationId;
      const authorized = event.requestContext.authorizer?.['applicationId'];
      if (typeof authorized !== 'string' || canonicalUuid(authorized) !== applicationId) {
        throw forbidden('authorizer_application_mismatch');
      }
      log['api_key_id'] = event.requestContext.authorizer?.['apiKeyId'];
      const body = requestBody(event);
      if (body.byteLength > MAX_BODY_BYTES) {
        throw new EdgeHttpError(
          413,
          `Request body too large (at most ${MAX_BODY_BYTES} bytes)`,
          'body_too_large',
        );
      }
      if (!(await applications.exists(applicationId))) throw forbidden('application_deleted');
      const events = eventsOf(body.json());
      const { result, roundsRun } = await ingestor.ingest({
        applicationId,
        bodySha256: body.sha256Hex(),
        events,
        receivedAt: now().getTime(),
        deadline,
        lambdaContext: context,
      });
      logger.info(
        {
          ...log,
          status: 200,
          total: result.Total,
          failed: result.FailedRecordCount,
          rounds_run: roundsRun,
          replayed: roundsRun === 0,
          duration_ms: Date.now() - started,
        },
        'events batch',
      );
      return jsonResult(200, result);
    } catch (error) {
      const failure = error instanceof IdempotencyAlreadyInProgressError ? inProgress(error) : error;
      return errorResult(requestFailure(failure, { logger, label: 'events batch', started, fields: log }));
    }
  };
}

/** The same batch is being written by another invocation right now: the caller should retry shortly. */
function inProgress(cause: IdempotencyAlreadyInProgressError): EdgeHttpError {
  return new EdgeHttpError(
    409,
    'An identical batch is being processed; retry later',
    'batch_in_progress',
    { 'retry-after': '1' },
    { cause },
  );
}

export interface EventsFromEnvOptions {
  dynamodb?: DynamoDBClient;
  applicationCacheTtlMs?: number;
  kinesis?: KinesisClient;
  logger?: EdgeLogger;
  now?: () => Date;
}

export function createHandlerFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  options: EventsFromEnvOptions = {},
): EventsHandler {
  const config = readEventsConfig(env);
  // Given clients too (tests, the bench): this is the production wiring, pointed elsewhere. A client shared
  // with other handlers loses only the SDK's per-call log filtering for a logger none of them configures.
  const dynamodb = withoutSdkLogFilter(
    options.dynamodb ?? new DynamoDBClient(awsClientConfig({ component: 'analytics-events' })),
  );
  const kinesis = withoutSdkLogFilter(
    options.kinesis ?? new KinesisClient(awsClientConfig({ component: 'analytics-events' })),
  );
  return createHandler({
    applications: new ApplicationStore(DynamoDBDocumentClient.from(dynamodb), config.applicationsTable),
    kinesis,
    streamName: config.streamName,
    persistence: new DynamoDBPersistenceLayer({
      tableName: config.idempotencyTable,
      awsSdkV3Client: dynamodb,
    }),
    idempotencyTtlSeconds: config.idempotencyTtlSeconds,
    ...(options.applicationCacheTtlMs !== undefined
      ? { applicationCacheTtlMs: options.applicationCacheTtlMs }
      : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
}

const logger = createLogger(SERVICE_NAME);

/** Lambda entry point (lambda/shared/entry-point.ts). */
export const handler = entryPoint(logger, createHandlerFromEnv, answerInternalError);
