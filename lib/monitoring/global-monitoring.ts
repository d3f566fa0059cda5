/**
 * Monitoring of the global stack `<project>-global`: the alarm topic, the alarms of the global API and
 * its functions, the WAF web ACL and the central tables, the composite `<project>-global-health`, and
 * the global dashboard: this stack's alarms, then per deployment region (and for the analytics API) the
 * cross-region graphs of that stack's alarms whose metrics have synth-time dimensions.
 */
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { GlobalStack } from '../stacks/global-stack.js';
import { TABLES } from '../../contracts/tables.js';
import { AlarmSet } from './alarm-set.js';
import { AlarmTopic } from './alarm-topic.js';
import { addApiAlarms } from './api-alarms.js';
import { portableAnalyticsAlarms } from './analytics-monitoring.js';
import { addDashboard, alarmWidgets, crossRegionWidgets } from './dashboards.js';
import type { DashboardSection } from './dashboards.js';
import { addFunctionAlarms } from './function-alarms.js';
import { portableRegionalAlarms } from './regional-monitoring.js';

export class GlobalMonitoring extends Construct {
  readonly topic: AlarmTopic;
  readonly alarms: AlarmSet;

  constructor(stack: GlobalStack, id: string) {
    super(stack, id);
    const { config, stackName } = stack;
    this.topic = AlarmTopic.forStack(this, stackName, config.monitoring);
    const set = new AlarmSet(this, 'Alarms', stackName);
    this.alarms = set;

    addApiAlarms(set, {
      id: 'global-api',
      title: 'Global API',
      apiName: stack.api.api.restApiName,
      definition: stack.apiDefinition,
    });
    const fns = stack.functions;
    if (fns.aggregator) addFunctionAlarms(set, { id: 'aggregator', title: 'Aggregator', fn: fns.aggregator });
    const controlPlane = fns['control-plane-proxy'];
    if (controlPlane) {
      addFunctionAlarms(set, {
        id: 'control-plane-proxy',
        title: 'Global control-plane proxy',
        fn: controlPlane,
      });
    }
    const inference = fns['inference-stream-proxy'];
    if (inference) {
      addFunctionAlarms(set, {
        id: 'inference-stream-proxy',
        title: 'Global inference stream proxy',
        fn: inference,
        streaming: true,
      });
    }
    const studioLogin = fns['studio-login'];
    if (studioLogin) addFunctionAlarms(set, { id: 'studio-login', title: 'Studio login', fn: studioLogin });

    if (stack.waf) {
      const webAclName = stack.waf.webAcl.name;
      if (webAclName === undefined) throw new Error(`${stackName}: the web ACL has no name`);
      set.add({
        id: 'waf-blocked-requests',
        title: 'WAF: blocked requests',
        policy: 'wafBlockedRequests',
        metric: new Metric({
          namespace: 'AWS/WAFV2',
          metricName: 'BlockedRequests',
          dimensionsMap: { WebACL: webAclName, Rule: 'ALL', Region: stack.region },
        }),
      });
    }

    for (const [tableId, table] of stack.tables) {
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
    const composite = set.compose(this.topic.topic);

    const sections: DashboardSection[] = [
      { title: `Global stack (${stack.region})`, widgets: alarmWidgets(set.entries) },
      ...config.regions.map((region) => ({
        title: `${config.regionalStackName(region)} (its own dashboard adds the ALB and functions)`,
        widgets: crossRegionWidgets(
          Object.values(portableRegionalAlarms(config, region)).flat(),
          region,
          stack.region,
        ),
      })),
    ];
    if (config.analyticsApi.enabled) {
      const region = config.analyticsApi.region;
      sections.push({
        title: `${config.analyticsStackName} (its own dashboard adds the functions)`,
        widgets: crossRegionWidgets(
          Object.values(portableAnalyticsAlarms(config)).flat(),
          region,
          stack.region,
        ),
      });
    }
    addDashboard(this, 'Dashboard', { name: stackName, composite, entries: set.entries, sections });
  }
}
