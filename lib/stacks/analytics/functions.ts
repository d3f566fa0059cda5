// The analytics API's four functions, each with its own role (grants.ts gives each exactly what its
// handler does). Created directly in the stack, so their logical IDs stay `AdminFunction…` and so on.
import { Duration } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ANALYTICS_TABLES } from '../../../contracts/analytics-resources.js';
import type { ApiDefinition } from '../../../contracts/api-routes.js';
import { eventsEnvironment } from '../../../contracts/env/analytics-events.js';
import { warehouseSetupEnvironment } from '../../../contracts/env/analytics-warehouse-setup.js';
import { keyStoresEnvironment } from '../../../contracts/env/key-stores.js';
import { tableName } from '../../../contracts/tables.js';
import type { PlatformConfig } from '../../config.js';
import type { AnalyticsWarehouse } from '../../constructs/analytics-warehouse.js';
import { PlatformFunction, routeFunctionTimeout } from '../../constructs/platform-function.js';

/**
 * The authorizer serves no route of its own (the route functions' timeouts follow their routes): a key
 * lookup is two reads, and a slow authorizer delays every uncached events request.
 */
const AUTHORIZER_TIMEOUT = Duration.seconds(10);

/** Events: batches up to 5 MiB are parsed, validated and hashed; more memory is more CPU. */
const EVENTS_MEMORY_MB = 1024;

// API Gateway calls every one of them synchronously, as a route's integration or as the authorizer.
const invokedBy = 'api-gateway-integration-or-authorizer';

export interface AnalyticsFunctions {
  readonly admin: PlatformFunction;
  readonly authorizer: PlatformFunction;
  readonly events: PlatformFunction;
  readonly warehouseSetup: PlatformFunction;
}

export interface AnalyticsFunctionsProps {
  readonly config: PlatformConfig;
  readonly definition: ApiDefinition;
  /** The events stream's name (a token: the stream is in the same stack). */
  readonly streamName: string;
  /** Only when the warehouse is enabled. */
  readonly warehouse?: AnalyticsWarehouse;
}

export function addAnalyticsFunctions(stack: Construct, props: AnalyticsFunctionsProps): AnalyticsFunctions {
  const { config, definition, streamName, warehouse } = props;
  // Each handler's environment contract writes its variables; table names are literals.
  const nameOf = (key: keyof typeof ANALYTICS_TABLES): string =>
    tableName(config.projectName, ANALYTICS_TABLES[key], config.resourceGeneration);
  const keyStores = (): Record<string, string> =>
    keyStoresEnvironment({
      applicationsTable: nameOf('applications'),
      authorizationsTable: nameOf('authorizations'),
    });

  const admin = new PlatformFunction(stack, 'AdminFunction', {
    entryName: 'analytics-admin',
    description: 'Analytics API: applications and API keys (IAM-authorized administrative routes)',
    timeout: routeFunctionTimeout(definition, 'analytics-admin'),
    invokedBy,
    environment: keyStores(),
  });
  const authorizer = new PlatformFunction(stack, 'AuthorizerFunction', {
    entryName: 'analytics-authorizer',
    description: 'Analytics API: REQUEST authorizer of the events route (API key in Authorization)',
    timeout: AUTHORIZER_TIMEOUT,
    invokedBy,
    environment: keyStores(),
  });
  const events = new PlatformFunction(stack, 'EventsFunction', {
    entryName: 'analytics-events',
    description: 'Analytics API: validates event batches and writes them to the events stream',
    timeout: routeFunctionTimeout(definition, 'analytics-events'),
    invokedBy,
    memorySize: EVENTS_MEMORY_MB,
    environment: eventsEnvironment({
      applicationsTable: nameOf('applications'),
      idempotencyTable: nameOf('idempotency'),
      streamName,
    }),
  });
  const warehouseSetup = new PlatformFunction(stack, 'WarehouseSetupFunction', {
    entryName: 'analytics-warehouse-setup',
    description: 'Analytics API: creates the warehouse external schema and materialized views',
    timeout: routeFunctionTimeout(definition, 'analytics-warehouse-setup'),
    invokedBy,
    environment: warehouseSetupEnvironment({
      streamName,
      ...(warehouse
        ? {
            warehouse: {
              workgroupName: warehouse.workgroup.workgroupName,
              database: warehouse.database,
              streamRoleArn: warehouse.streamRole.roleArn,
            },
          }
        : {}),
    }),
  });
  return { admin, authorizer, events, warehouseSetup };
}
