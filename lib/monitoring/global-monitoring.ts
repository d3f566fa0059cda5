/**
 * Monitoring of the global stack `<project>-global`: the alarm topic, the alarms of the global API and
 * its functions, the WAF web ACL and the central tables, the composite `<project>-global-health`, and
 * the global dashboard: this stack's alarms, then per deployment region (and for the analytics API) the
 * cross-region graphs of that stack's alarms whose metrics have synth-time dimensions.
 */
import { Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import type { ApiDefinition, RouteHandler } from '../../contracts/api-routes.js';
import { TABLES } from '../../contracts/tables.js';
import type { TableId } from '../../contracts/tables.js';
import type { PlatformConfig } from '../config.js';
import type { AlarmSet, AlarmSpec } from './alarm-set.js';
import { platformMetric } from './metrics.js';
import { CENTRAL_REGION } from '../../contracts/platform-metrics.js';
import { StackMonitoring } from './stack-monitoring.js';
import { addApiAlarms } from './api-alarms.js';
import { portableAnalyticsAlarms } from './analytics-monitoring.js';
import { crossRegionWidgets } from './dashboards.js';
import type { DashboardSection } from './dashboards.js';
import { addFunctionAlarms, addScheduledFunctionAlarm } from './function-alarms.js';
import { internalCaHandlerOf } from '../constructs/internal-ca.js';
import { portableRegionalAlarms } from './regional-monitoring.js';

export interface GlobalMonitoringProps {
  readonly config: PlatformConfig;
  /** The global REST API and the definition it was built from. */
  readonly api: RestApi;
  readonly definition: ApiDefinition;
  /** The functions behind the global API's routes, by handler. */
  readonly functions: Partial<Record<RouteHandler, LambdaFunction>>;
  /** The web ACL of the global API; only when `waf.enabled`. */
  readonly webAcl?: CfnWebACL;
  /** The central tables, by id. */
  readonly tables: ReadonlyMap<TableId, ITableV2>;
  /** The signing-key rotation function (its failed runs are alarmed). */
  readonly signingKeyRotation: LambdaFunction;
  /** The function that publishes the webhook outbox backlog (its failed runs are alarmed). */
  readonly outboxMetrics: LambdaFunction;
}

/** The global API's functions that get alarms, in dashboard order: handler, title, streaming. */
const MONITORED_FUNCTIONS: readonly (readonly [RouteHandler, string, boolean])[] = [
  ['aggregator', 'Aggregator', false],
  ['control-plane-proxy', 'Global control-plane proxy', false],
  ['inference-stream-proxy', 'Global inference stream proxy', true],
  ['studio-login', 'Studio login', false],
];

export class GlobalMonitoring extends StackMonitoring {
  constructor(scope: Construct, id: string, props: GlobalMonitoringProps) {
    super(scope, id, props.config.monitoring);
    const { config } = props;
    const { region } = Stack.of(this);
    const { alarms: set, stackName } = this;

    addApiAlarms(set, {
      id: 'global-api',
      title: 'Global API',
      apiName: props.api.restApiName,
      definition: props.definition,
    });
    for (const [handler, title, streaming] of MONITORED_FUNCTIONS) {
      const fn = props.functions[handler];
      if (fn) addFunctionAlarms(set, { id: handler, title, fn, ...(streaming ? { streaming } : {}) });
    }
    addScheduledFunctionAlarm(set, {
      id: 'signing-key-rotation',
      title: 'Signing-key rotation',
      fn: props.signingKeyRotation,
    });
    const internalCa = internalCaHandlerOf(this);
    if (internalCa)
      addScheduledFunctionAlarm(set, { id: 'internal-ca', title: 'Internal CA', fn: internalCa });
    addFunctionAlarms(set, {
      id: 'webhook-outbox-metrics',
      title: 'Webhook outbox metrics',
      fn: props.outboxMetrics,
    });
    if (props.webAcl) addWafAlarm(set, props.webAcl, stackName, region);
    addTableAlarms(set, props.tables);
    centralOutboxAlarms(config).forEach((s) => set.add(s));

    this.addDashboard([{ title: `Global stack (${region})` }], otherStackSections(config, region));
  }
}

/**
 * The webhook outbox (one central table) alarms, on the backlog the global stack publishes once
 * (Region = CENTRAL_REGION): one backlog, one alarm pair, whatever the number of regions.
 */
function centralOutboxAlarms(config: PlatformConfig): AlarmSpec[] {
  const metric = (id: 'webhookOutboxDepth' | 'oldestWebhookOutboxAge'): Metric =>
    platformMetric(id, config.projectName, CENTRAL_REGION);
  return [
    {
      id: 'webhook-outbox-age',
      title: 'Oldest undelivered webhook event (s)',
      policy: 'webhookOutboxAge',
      metric: metric('oldestWebhookOutboxAge'),
    },
    {
      id: 'webhook-outbox-depth',
      title: 'Undelivered webhook events',
      policy: 'webhookOutboxDepth',
      metric: metric('webhookOutboxDepth'),
    },
  ];
}

function addWafAlarm(set: AlarmSet, webAcl: CfnWebACL, stackName: string, region: string): void {
  const webAclName = webAcl.name;
  if (webAclName === undefined) throw new Error(`${stackName}: the web ACL has no name`);
  set.add({
    id: 'waf-blocked-requests',
    title: 'WAF: blocked requests',
    policy: 'wafBlockedRequests',
    metric: new Metric({
      namespace: 'AWS/WAFV2',
      metricName: 'BlockedRequests',
      dimensionsMap: { WebACL: webAclName, Rule: 'ALL', Region: region },
    }),
  });
}

function addTableAlarms(set: AlarmSet, tables: ReadonlyMap<TableId, ITableV2>): void {
  for (const [tableId, table] of tables) {
    const name = TABLES[tableId].id;
    for (const [op, metricName] of [
      ['read', 'ReadThrottleEvents'],
      ['write', 'WriteThrottleEvents'],
    ] as const) {
      set.add({
        id: `${name}-${op}-throttles`,
        title: `Table ${name}: ${op} throttles`,
        policy: 'dynamoThrottles',
        metric: new Metric({
          namespace: 'AWS/DynamoDB',
          metricName,
          dimensionsMap: { TableName: table.tableName },
        }),
      });
    }
  }
}

/** Per deployment region, and for the analytics API, the graphs of that stack's portable alarms. */
function otherStackSections(config: PlatformConfig, dashboardRegion: string): DashboardSection[] {
  const sections: DashboardSection[] = config.regions.map((region) => ({
    title: `${config.regionalStackName(region)} (its own dashboard adds the ALB and functions)`,
    widgets: crossRegionWidgets(
      Object.values(portableRegionalAlarms(config, region)).flat(),
      region,
      dashboardRegion,
    ),
  }));
  if (config.analyticsApi.enabled) {
    sections.push({
      title: `${config.analyticsStackName} (its own dashboard adds the functions)`,
      widgets: crossRegionWidgets(
        Object.values(portableAnalyticsAlarms(config)).flat(),
        config.analyticsApi.region,
        dashboardRegion,
      ),
    });
  }
  return sections;
}
