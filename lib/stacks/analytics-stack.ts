/**
 * The game-analytics ingestion API: `<project>-analytics`, created when analytics_api.enabled.
 * docs/analytics-stack.md describes the resources and decisions; docs/analytics-api.md the handlers.
 *
 * - REST API (REGIONAL) from analyticsApiDefinition(): administrative routes are IAM (SigV4) authorized;
 *   `POST /applications/{APPLICATION_ID}/events` uses a REQUEST Lambda authorizer on `Authorization`
 *   whose decisions are cached for analytics_api.authorizer_cache_ttl_seconds (0 = no cache).
 * - DynamoDB tables of ANALYTICS_TABLES, the Kinesis Data Stream the events go to, one function per
 *   handler with its own role allowed exactly what its handler does.
 * - Optional Redshift Serverless warehouse (AnalyticsWarehouse) behind analytics_api.warehouse_enabled.
 */
import { Aws, CfnOutput, Duration, Fn, Token } from 'aws-cdk-lib';
import { IdentitySource, RequestAuthorizer, ResponseType } from 'aws-cdk-lib/aws-apigateway';
import { AccountPrincipal, AnyPrincipal, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Stream, StreamEncryption, StreamMode } from 'aws-cdk-lib/aws-kinesis';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { eventsEnvironment } from '../../contracts/env/analytics-events.js';
import { warehouseSetupEnvironment } from '../../contracts/env/analytics-warehouse-setup.js';
import { keyStoresEnvironment } from '../../contracts/env/key-stores.js';
import { ANALYTICS_TABLES, analyticsStreamName } from '../../contracts/analytics-resources.js';
import { analyticsApiDefinition } from '../../contracts/api-routes.js';
import { analyticsApiName, warehouseName } from '../names.js';
import { dataRemovalPolicy } from '../retention.js';
import { tableName } from '../../contracts/tables.js';
import { AnalyticsWarehouse } from '../constructs/analytics-warehouse.js';
import { PlatformFunction, routeFunctionTimeout } from '../constructs/platform-function.js';
import { PlatformRestApi } from '../constructs/platform-rest-api.js';
import { PlatformTable } from '../constructs/platform-table.js';
import { AnalyticsMonitoring } from '../monitoring/analytics-monitoring.js';
import { PlatformStack } from './platform-stack.js';
import type { PlatformStackProps } from './platform-stack.js';

/**
 * Stream retention. The stream is the only copy of an event until the warehouse has ingested it, so a
 * stalled consumer (a paused workgroup, a failing materialized-view refresh) loses data once records
 * expire; 7 days covers a long weekend of that at a small per-GB cost over the 24-hour default.
 */
const EVENTS_RETENTION = Duration.days(7);

/**
 * The authorizer serves no route of its own (the route functions' timeouts follow their routes): a key
 * lookup is two reads, and a slow authorizer delays every uncached events request.
 */
const AUTHORIZER_TIMEOUT = Duration.seconds(10);

/** Events: batches up to 5 MiB are parsed, validated and hashed; more memory is more CPU. */
const EVENTS_MEMORY_MB = 1024;

/** Gateway responses with messages that say what to do; every 4XX/5XX body is JSON `{"message":…}`. */
export const GATEWAY_RESPONSES = {
  [ResponseType.DEFAULT_4XX.responseType]: '{"message":$context.error.messageString}',
  [ResponseType.DEFAULT_5XX.responseType]: '{"message":$context.error.messageString}',
  [ResponseType.UNAUTHORIZED.responseType]:
    '{"message":"Unauthorized: send an enabled API key of this application in the Authorization header"}',
  [ResponseType.ACCESS_DENIED.responseType]:
    '{"message":"Forbidden: the caller may not perform this operation on this application"}',
} as const;

/** Deploys to analytics_api.region (default the global region). */
export type AnalyticsStackProps = PlatformStackProps;

type AnalyticsTableId = keyof typeof ANALYTICS_TABLES;

export class AnalyticsStack extends PlatformStack {
  readonly restApi: PlatformRestApi;
  readonly authorizer: RequestAuthorizer;
  readonly tables: Readonly<Record<AnalyticsTableId, TableV2>>;
  readonly eventsStream: Stream;
  readonly functions: {
    readonly admin: PlatformFunction;
    readonly authorizer: PlatformFunction;
    readonly events: PlatformFunction;
    readonly warehouseSetup: PlatformFunction;
  };
  /** Only when the warehouse is enabled. */
  readonly warehouse?: AnalyticsWarehouse;
  /** Only when `monitoring.enabled`. */
  readonly monitoring?: AnalyticsMonitoring;

  constructor(scope: Construct, id: string, props: AnalyticsStackProps) {
    const { config } = props;
    super(scope, id, props, {
      region: config.analyticsApi.region,
      description: `${config.projectName} game-analytics ingestion API`,
    });
    const project = config.projectName;
    const generation = config.resourceGeneration;
    // Tables, stream and warehouse namespace outlive `cdk destroy` under removal_policy "retain".
    const removalPolicy = dataRemovalPolicy(config);

    // ---- data ------------------------------------------------------------------------------------
    const table = (key: AnalyticsTableId, construct: string): TableV2 =>
      new PlatformTable(this, construct, {
        definition: ANALYTICS_TABLES[key],
        tableName: tableName(project, ANALYTICS_TABLES[key], generation),
        settings: config.tables,
        removalPolicy,
      }).table;
    this.tables = {
      applications: table('applications', 'ApplicationsTable'),
      authorizations: table('authorizations', 'AuthorizationsTable'),
      idempotency: table('idempotency', 'IdempotencyTable'),
    };
    const { applications, authorizations, idempotency } = this.tables;

    this.eventsStream = new Stream(this, 'EventsStream', {
      streamName: analyticsStreamName(project, generation),
      streamMode: StreamMode.ON_DEMAND,
      encryption: StreamEncryption.MANAGED,
      retentionPeriod: EVENTS_RETENTION,
      removalPolicy,
    });

    const warehouse = config.analyticsApi.warehouseEnabled
      ? new AnalyticsWarehouse(this, 'Warehouse', {
          name: warehouseName(config),
          stream: this.eventsStream,
          removalPolicy,
        })
      : undefined;
    if (warehouse) this.warehouse = warehouse;

    // ---- functions -------------------------------------------------------------------------------
    // Each handler's environment contract writes its variables; table names are literals, as above.
    const nameOf = (key: AnalyticsTableId): string => tableName(project, ANALYTICS_TABLES[key], generation);
    const streamName = this.eventsStream.streamName;

    const definition = analyticsApiDefinition(config);
    // API Gateway calls every one of them synchronously, as a route's integration or as the authorizer.
    const invokedBy = 'api-gateway-integration-or-authorizer';

    const admin = new PlatformFunction(this, 'AdminFunction', {
      entryName: 'analytics-admin',
      description: 'Analytics API: applications and API keys (IAM-authorized administrative routes)',
      timeout: routeFunctionTimeout(definition, 'analytics-admin'),
      invokedBy,
      environment: keyStoresEnvironment({
        applicationsTable: nameOf('applications'),
        authorizationsTable: nameOf('authorizations'),
      }),
    });
    const authorizerFn = new PlatformFunction(this, 'AuthorizerFunction', {
      entryName: 'analytics-authorizer',
      description: 'Analytics API: REQUEST authorizer of the events route (API key in Authorization)',
      timeout: AUTHORIZER_TIMEOUT,
      invokedBy,
      environment: keyStoresEnvironment({
        applicationsTable: nameOf('applications'),
        authorizationsTable: nameOf('authorizations'),
      }),
    });
    const events = new PlatformFunction(this, 'EventsFunction', {
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
    const warehouseSetup = new PlatformFunction(this, 'WarehouseSetupFunction', {
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
    this.functions = { admin, authorizer: authorizerFn, events, warehouseSetup };

    // ---- least privilege -------------------------------------------------------------------------
    // The authorizer finds a key by the hash of the presented value: that index, no other.
    const keyHashIndex = `${authorizations.tableArn}/index/${ANALYTICS_TABLES.authorizations.indexes[0].indexName}`;
    const dynamo = (sid: string, actions: readonly string[], resources: string[]): PolicyStatement =>
      new PolicyStatement({ sid, actions: actions.map((a) => `dynamodb:${a}`), resources });

    // docs/analytics-api.md "What each function needs". Applications: create (PutItem), list (Scan),
    // get, delete; a key is created by a TransactWriteItems of a condition check on its application and
    // a put. Keys: create, list (Query), get, enable/disable (UpdateItem), delete one, and delete every
    // key of a deleted application (Query + BatchWriteItem).
    admin.addToRolePolicy(
      dynamo(
        'Applications',
        ['PutItem', 'GetItem', 'Scan', 'DeleteItem', 'ConditionCheckItem'],
        [applications.tableArn],
      ),
    );
    admin.addToRolePolicy(
      dynamo(
        'Authorizations',
        ['PutItem', 'GetItem', 'Query', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
        [authorizations.tableArn],
      ),
    );
    // Read only: find the key by the hash of the presented value (the index), re-read it consistently
    // (the table), and confirm its application still exists.
    authorizerFn.addToRolePolicy(dynamo('FindKeyByHash', ['Query'], [keyHashIndex]));
    authorizerFn.addToRolePolicy(dynamo('ReadKey', ['GetItem'], [authorizations.tableArn]));
    authorizerFn.addToRolePolicy(dynamo('ApplicationExists', ['GetItem'], [applications.tableArn]));
    // Events: the stream (write only), the application check, the idempotency records.
    events.addToRolePolicy(
      new PolicyStatement({
        sid: 'WriteEvents',
        actions: ['kinesis:PutRecords'],
        resources: [this.eventsStream.streamArn],
      }),
    );
    if (this.eventsStream.encryptionKey) this.eventsStream.encryptionKey.grantEncrypt(events);
    events.addToRolePolicy(dynamo('ApplicationExists', ['GetItem'], [applications.tableArn]));
    events.addToRolePolicy(
      dynamo(
        'IdempotencyRecords',
        ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
        [idempotency.tableArn],
      ),
    );
    if (warehouse) warehouse.grantDataApi(warehouseSetup.role ?? fail('the setup function role'));

    // ---- API -------------------------------------------------------------------------------------
    this.authorizer = new RequestAuthorizer(this, 'ApiKeyAuthorizer', {
      authorizerName: `${project}-analytics-api-key`,
      handler: authorizerFn,
      identitySources: [IdentitySource.header('Authorization')],
      resultsCacheTtl: Duration.seconds(config.analyticsApi.authorizerCacheTtlSeconds),
    });

    this.restApi = new PlatformRestApi(this, 'Api', {
      definition,
      restApiName: analyticsApiName(config),
      functions: {
        'analytics-admin': admin,
        'analytics-events': events,
        'analytics-warehouse-setup': warehouseSetup,
      },
      authorizers: { 'analytics-api-key': this.authorizer },
      accessLogsRemovalPolicy: removalPolicy,
      policy: new PolicyDocument({
        statements: [
          // The account delegates: an account principal may call any route its IAM policies allow
          // (execute-api:Invoke), as the administrative routes are SigV4 authorized.
          new PolicyStatement({
            sid: 'AccountPrincipals',
            principals: [new AccountPrincipal(Aws.ACCOUNT_ID)],
            actions: ['execute-api:Invoke'],
            resources: ['execute-api:/*'],
          }),
          // Games are not IAM principals: anyone may reach the events route, where the API-key
          // authorizer decides.
          new PolicyStatement({
            sid: 'GamesSendEvents',
            principals: [new AnyPrincipal()],
            actions: ['execute-api:Invoke'],
            resources: [`execute-api:/${definition.stage}/POST/applications/*/events`],
          }),
        ],
      }),
    });
    for (const [type, template] of Object.entries(GATEWAY_RESPONSES)) {
      this.restApi.api.addGatewayResponse(`Response${pascal(type)}`, {
        type: ResponseType.of(type),
        templates: { 'application/json': template },
      });
    }

    this.addNagSuppressions();

    // ---- outputs ---------------------------------------------------------------------------------
    new CfnOutput(this, 'Partition', { value: Aws.PARTITION, description: 'Partition the stack runs in' });
    new CfnOutput(this, 'AnalyticsApiUrl', {
      value: this.restApi.api.url,
      description: 'Base URL of the analytics API (ends with the stage)',
    });
    new CfnOutput(this, 'EventsStreamName', {
      value: this.eventsStream.streamName,
      description: 'Kinesis Data Stream the events are written to',
    });
    new CfnOutput(this, 'ApplicationsTableName', { value: applications.tableName });
    new CfnOutput(this, 'AuthorizationsTableName', { value: authorizations.tableName });
    new CfnOutput(this, 'IdempotencyTableName', { value: idempotency.tableName });
    if (warehouse) {
      new CfnOutput(this, 'RedshiftWorkgroupName', { value: warehouse.workgroup.workgroupName });
      new CfnOutput(this, 'RedshiftStreamRoleArn', { value: warehouse.streamRole.roleArn });
    }

    // ---- monitoring (docs/operations.md): topic, alarms, composite, dashboard ---------------------
    if (config.monitoring.enabled) {
      this.monitoring = new AnalyticsMonitoring(this, 'Monitoring', {
        config,
        api: this.restApi.api,
        functions: this.functions,
      });
    }
  }

  /**
   * Env-agnostic synth (no account): the stack's AZs would be the region's first two. The warehouse
   * wants three, so CloudFormation picks the region's first three at deploy time.
   */
  override get availabilityZones(): string[] {
    const zones = super.availabilityZones;
    if (!Token.isUnresolved(this.account)) return zones;
    return [0, 1, 2].map((i) => Fn.select(i, Fn.getAzs()));
  }

  private addNagSuppressions(): void {
    NagSuppressions.addResourceSuppressions(this.restApi.api.deploymentStage, [
      {
        id: 'AwsSolutions-APIG3',
        reason:
          "No web ACL: the platform's (PlatformWebAcl) caps bodies at WAF's 64 KiB inspection limit and the " +
          'common rule set blocks bodies over 8 KiB, while event batches are up to 5 MiB; per-IP rate limits ' +
          'would throttle players behind carrier-grade NAT. Stage throttling, SigV4 and the API-key authorizer ' +
          'protect the routes',
      },
    ]);
    if (this.warehouse && this.functions.warehouseSetup.role) {
      NagSuppressions.addResourceSuppressions(
        this.functions.warehouseSetup.role,
        [
          {
            id: 'AwsSolutions-IAM5',
            reason:
              'redshift-data:DescribeStatement takes no resource (a statement id is not an ARN); the statement ' +
              'is limited to statements this role ran by redshift-data:statement-owner-iam-userid',
            appliesTo: ['Resource::*'],
          },
        ],
        true,
      );
    }
  }
}

function pascal(type: string): string {
  return type
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

function fail(what: string): never {
  throw new Error(`analytics stack: missing ${what}`);
}
