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
import type { RequestAuthorizer } from 'aws-cdk-lib/aws-apigateway';
import { Stream, StreamEncryption, StreamMode } from 'aws-cdk-lib/aws-kinesis';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { ANALYTICS_TABLES, analyticsStreamName } from '../../contracts/analytics-resources.js';
import { analyticsApiDefinition } from '../../contracts/api-routes.js';
import { warehouseName } from '../names.js';
import { dataRemovalPolicy } from '../retention.js';
import { tableName } from '../../contracts/tables.js';
import { AnalyticsWarehouse } from '../constructs/analytics-warehouse.js';
import type { PlatformRestApi } from '../constructs/platform-rest-api.js';
import { PlatformTable } from '../constructs/platform-table.js';
import { AnalyticsMonitoring } from '../monitoring/analytics-monitoring.js';
import { addAnalyticsApi } from './analytics/api.js';
import { addAnalyticsFunctions } from './analytics/functions.js';
import type { AnalyticsFunctions } from './analytics/functions.js';
import { grantAnalyticsFunctions } from './analytics/grants.js';
import { PlatformStack } from './platform-stack.js';
import type { PlatformStackProps } from './platform-stack.js';

export { GATEWAY_RESPONSES } from './analytics/api.js';

/**
 * Stream retention. The stream is the only copy of an event until the warehouse has ingested it, so a
 * stalled consumer (a paused workgroup, a failing materialized-view refresh) loses data once records
 * expire; 7 days covers a long weekend of that at a small per-GB cost over the 24-hour default.
 */
const EVENTS_RETENTION = Duration.days(7);

/** Deploys to analytics_api.region (default the global region). */
export type AnalyticsStackProps = PlatformStackProps;

type AnalyticsTableId = keyof typeof ANALYTICS_TABLES;

export class AnalyticsStack extends PlatformStack {
  readonly restApi: PlatformRestApi;
  readonly authorizer: RequestAuthorizer;
  readonly tables: Readonly<Record<AnalyticsTableId, TableV2>>;
  readonly eventsStream: Stream;
  readonly functions: AnalyticsFunctions;
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
    // Every part is created in the stack itself (no wrapping construct): the logical IDs stay as they were.

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
    this.eventsStream = new Stream(this, 'EventsStream', {
      streamName: analyticsStreamName(project, generation),
      streamMode: StreamMode.ON_DEMAND,
      encryption: StreamEncryption.MANAGED,
      retentionPeriod: EVENTS_RETENTION,
      removalPolicy,
    });
    if (config.analyticsApi.warehouseEnabled) {
      this.warehouse = new AnalyticsWarehouse(this, 'Warehouse', {
        name: warehouseName(config),
        stream: this.eventsStream,
        removalPolicy,
      });
    }

    // ---- functions, each allowed exactly what its handler does, and the API ------------------------
    const definition = analyticsApiDefinition(config);
    this.functions = addAnalyticsFunctions(this, {
      config,
      definition,
      streamName: this.eventsStream.streamName,
      ...(this.warehouse ? { warehouse: this.warehouse } : {}),
    });
    grantAnalyticsFunctions(this.functions, this);
    const api = addAnalyticsApi(this, { config, definition, functions: this.functions, removalPolicy });
    this.authorizer = api.authorizer;
    this.restApi = api.restApi;

    this.addNagSuppressions();
    this.addOutputs();
    // ---- monitoring (docs/operations.md): topic, alarms, composite, dashboard ---------------------
    if (config.monitoring.enabled) {
      this.monitoring = new AnalyticsMonitoring(this, 'Monitoring', {
        config,
        api: this.restApi.api,
        functions: this.functions,
      });
    }
  }

  private addOutputs(): void {
    const { applications, authorizations, idempotency } = this.tables;
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
    if (this.warehouse) {
      new CfnOutput(this, 'RedshiftWorkgroupName', { value: this.warehouse.workgroup.workgroupName });
      new CfnOutput(this, 'RedshiftStreamRoleArn', { value: this.warehouse.streamRole.roleArn });
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
