/**
 * The game-analytics ingestion API, locally (docs/analytics-api.md): its tables in their own dynalite, the events
 * stream in kinesalite, the four real handlers built from the environment the analytics stack gives
 * them, and the REQUEST authorizer with the configured cache TTL — behind an API Gateway emulator at
 * `/<analytics stage>` (default `/live`). No Redshift locally: the warehouse setup routes answer that
 * the warehouse is not configured, as a deployment without a workgroup does.
 */
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { createHandlerFromEnv as createAdmin } from '../lambda/analytics-admin/index.js';
import { createHandlerFromEnv as createAuthorizer } from '../lambda/analytics-authorizer/index.js';
import { eventsEnvironment } from '../contracts/env/analytics-events.js';
import { createHandlerFromEnv as createEvents } from '../lambda/analytics-events/index.js';
import { warehouseSetupEnvironment } from '../contracts/env/analytics-warehouse-setup.js';
import { createHandlerFromEnv as createSetup } from '../lambda/analytics-warehouse-setup/index.js';
import { keyStoresEnvironment } from '../contracts/env/key-stores.js';
import { silentServiceLogger } from '../cluster/shared/logger.js';
import { createLogger, type EdgeLogger } from '../lambda/shared/logger.js';
import { ANALYTICS_TABLES, analyticsStreamName } from '../contracts/analytics-resources.js';
import { analyticsApiDefinition } from '../contracts/api-routes.js';
import type { PlatformConfig } from '../lib/config.js';
import { tableName } from '../contracts/tables.js';
import {
  startApiGatewayEmulator,
  type AccessLogEntry,
  type ApiGatewayEmulator,
} from './api-gateway-emulator/index.js';
import type { CredentialStore } from './sigv4-verifier.js';
import { startLocalDynamo } from './dynamodb.js';
import { startLocalKinesis } from './kinesis.js';

/** The analytics authorizer function's timeout (docs/analytics-api.md). */
const AUTHORIZER_TIMEOUT_MS = 10_000;

export interface LocalAnalytics {
  readonly api: ApiGatewayEmulator;
  /** kinesalite endpoint holding the events stream. */
  readonly kinesis: string;
  readonly dynamodb: string;
  readonly streamName: string;
  /** Clients of the analytics tables and stream (tests read what the handlers stored). */
  readonly clients: { dynamodb(): DynamoDBClient; kinesis(): KinesisClient };
  close(): Promise<void>;
}

export async function startLocalAnalytics(opts: {
  config: PlatformConfig;
  accountId: string;
  credentials: CredentialStore;
  logs: 'json' | 'silent';
  onAccessLog?: (entry: AccessLogEntry) => void;
  /** binaryMediaTypes of the API: the stack sets none; tests set some. */
  binaryMediaTypes?: readonly string[];
  /** Keep the tables and the stream here (local/data-dir.ts); in memory otherwise. */
  dataDir?: string;
}): Promise<LocalAnalytics> {
  const { config } = opts;
  const project = config.projectName;
  const region = config.analyticsApi.region;
  const streamName = analyticsStreamName(project);
  const logger = (service: string): EdgeLogger =>
    opts.logs === 'json' ? createLogger(service) : silentServiceLogger();
  const [dynamo, kinesis] = await Promise.all([
    startLocalDynamo({
      project,
      region,
      tables: Object.values(ANALYTICS_TABLES),
      ...(opts.dataDir === undefined ? {} : { path: join(opts.dataDir, 'dynamodb') }),
    }),
    startLocalKinesis({
      streams: [{ name: streamName, shardCount: 1 }],
      region,
      ...(opts.dataDir === undefined ? {} : { path: join(opts.dataDir, 'kinesis') }),
    }),
  ]);
  try {
    // The variables the analytics stack sets (its handlers' contracts); no warehouse locally.
    const applicationsTable = tableName(project, ANALYTICS_TABLES.applications);
    const keyStoresEnv = keyStoresEnvironment({
      applicationsTable,
      authorizationsTable: tableName(project, ANALYTICS_TABLES.authorizations),
    });
    const eventsEnv = eventsEnvironment({
      applicationsTable,
      idempotencyTable: tableName(project, ANALYTICS_TABLES.idempotency),
      streamName,
    });
    const setupEnv = warehouseSetupEnvironment({ streamName });
    const fn = (name: string) => `${project}-analytics-${name}`;
    const api = await startApiGatewayEmulator({
      api: analyticsApiDefinition(config),
      region,
      accountId: opts.accountId,
      credentials: opts.credentials,
      lambdas: {
        'analytics-admin': {
          kind: 'buffered',
          handler: createAdmin(keyStoresEnv, {
            dynamodb: dynamo.client(),
            logger: logger('analytics-admin'),
          }),
        },
        'analytics-events': {
          kind: 'buffered',
          handler: createEvents(eventsEnv, {
            dynamodb: dynamo.client(),
            kinesis: kinesis.client(),
            logger: logger('analytics-events'),
          }),
        },
        'analytics-warehouse-setup': {
          kind: 'buffered',
          handler: createSetup(setupEnv, { logger: logger('analytics-warehouse-setup') }),
        },
      },
      authorizers: {
        'analytics-api-key': {
          handler: createAuthorizer(keyStoresEnv, {
            dynamodb: dynamo.client(),
            logger: logger('analytics-authorizer'),
          }),
          functionName: fn('authorizer'),
          identityHeader: 'authorization',
          ttlSeconds: config.analyticsApi.authorizerCacheTtlSeconds,
          timeoutMs: AUTHORIZER_TIMEOUT_MS,
        },
      },
      functionName: (handler) => fn(handler.replace(/^analytics-/, '')),
      ...(opts.onAccessLog ? { onAccessLog: opts.onAccessLog } : {}),
      ...(opts.binaryMediaTypes ? { binaryMediaTypes: opts.binaryMediaTypes } : {}),
    });
    return {
      api,
      kinesis: kinesis.endpoint,
      dynamodb: dynamo.endpoint,
      streamName,
      clients: { dynamodb: () => dynamo.client(), kinesis: () => kinesis.client() },
      async close() {
        await api.close();
        await Promise.all([kinesis.close(), dynamo.close()]);
      },
    };
  } catch (error) {
    await Promise.all([kinesis.close(), dynamo.close()]);
    throw error;
  }
}
