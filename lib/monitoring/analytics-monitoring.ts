/**
 * Monitoring of the analytics stack `<project>-analytics`: the alarm topic, the alarms of the analytics
 * API and its four functions (the API-key authorizer's errors among them), the events stream (consumer
 * iterator age, write throttles) and the events route's failed-record rate, the composite
 * `<project>-analytics-health` and the `<project>-analytics` dashboard.
 *
 * The failed-record rate comes from the events function's own answer: it logs one `events batch` line per
 * answered batch with `total` and `failed` (FailedRecordCount after its retries), which two metric
 * filters turn into metrics of the namespace `GCO/Analytics/<project>`.
 */
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { analyticsStreamName } from '../../contracts/analytics-resources.js';
import { analyticsApiDefinition } from '../../contracts/api-routes.js';
import type { PlatformConfig } from '../config.js';
import type { AnalyticsStack } from '../stacks/analytics-stack.js';
import { AlarmSet } from './alarm-set.js';
import type { AlarmSpec } from './alarm-set.js';
import { AlarmTopic } from './alarm-topic.js';
import { apiAlarmSpecs } from './api-alarms.js';
import { addDashboard, alarmWidgets } from './dashboards.js';
import { addFunctionAlarms } from './function-alarms.js';

/** The analytics REST API's name (lib/stacks/analytics-stack.ts names it so). */
export const analyticsApiName = (project: string): string => `${project}-analytics`;

/** Namespace of the events function's record counts (metric filters on its log group). */
export const eventsMetricsNamespace = (project: string): string => `GCO/Analytics/${project}`;
export const EVENTS_METRICS = { total: 'EventsTotalRecords', failed: 'EventsFailedRecords' } as const;

/** The analytics alarms whose metrics have synth-time dimensions (API by name, stream by name). */
export function portableAnalyticsAlarms(config: PlatformConfig): {
  readonly api: AlarmSpec[];
  readonly stream: AlarmSpec[];
} {
  const p = config.projectName;
  const streamMetric = (metricName: string): Metric =>
    new Metric({
      namespace: 'AWS/Kinesis',
      metricName,
      dimensionsMap: { StreamName: analyticsStreamName(p, config.resourceGeneration) },
    });
  const events = (metricName: string): Metric =>
    new Metric({ namespace: eventsMetricsNamespace(p), metricName });
  const api = apiAlarmSpecs({
    id: 'analytics-api',
    title: 'Analytics API',
    apiName: analyticsApiName(p),
    definition: analyticsApiDefinition(config),
  });
  const stream: AlarmSpec[] = [
    {
      id: 'events-stream-iterator-age',
      title: 'Events stream: consumer iterator age (ms)',
      policy: 'kinesisIteratorAge',
      metric: streamMetric('GetRecords.IteratorAgeMilliseconds'),
    },
    {
      id: 'events-stream-write-throttles',
      title: 'Events stream: throttled writes',
      policy: 'kinesisWriteThrottles',
      metric: streamMetric('WriteProvisionedThroughputExceeded'),
    },
    {
      id: 'events-failed-record-rate',
      title: 'Events route: failed record rate',
      policy: 'eventsFailedRecordRate',
      metric: new MathExpression({
        expression: 'failed / total',
        usingMetrics: { failed: events(EVENTS_METRICS.failed), total: events(EVENTS_METRICS.total) },
        label: 'FailedRecordCount / Total',
      }),
    },
  ];
  return { api, stream };
}

export class AnalyticsMonitoring extends Construct {
  readonly topic: AlarmTopic;
  readonly alarms: AlarmSet;

  constructor(stack: AnalyticsStack, id: string) {
    super(stack, id);
    const { config, stackName } = stack;
    const p = config.projectName;
    if (stack.restApi.api.restApiName !== analyticsApiName(p)) {
      throw new Error(`${stackName}: the analytics API is not named ${analyticsApiName(p)}`);
    }
    this.topic = AlarmTopic.forStack(this, stackName, config.monitoring);

    // `events batch` lines of answered batches (a failed request logs no `total`).
    const answered = FilterPattern.all(
      FilterPattern.stringValue('$.message', '=', 'events batch'),
      FilterPattern.numberValue('$.total', '>=', 0),
    );
    for (const [key, field] of [
      ['total', '$.total'],
      ['failed', '$.failed'],
    ] as const) {
      new MetricFilter(this, `Events${key === 'total' ? 'Total' : 'Failed'}Records`, {
        logGroup: stack.functions.events.logGroup,
        filterPattern: answered,
        metricNamespace: eventsMetricsNamespace(p),
        metricName: EVENTS_METRICS[key],
        metricValue: field,
      });
    }

    const set = new AlarmSet(this, 'Alarms', stackName);
    this.alarms = set;
    const portable = portableAnalyticsAlarms(config);
    portable.api.forEach((s) => set.add(s));
    const fns = stack.functions;
    addFunctionAlarms(set, { id: 'admin', title: 'Analytics admin function', fn: fns.admin });
    addFunctionAlarms(set, { id: 'authorizer', title: 'Analytics API-key authorizer', fn: fns.authorizer });
    addFunctionAlarms(set, { id: 'events', title: 'Analytics events function', fn: fns.events });
    addFunctionAlarms(set, {
      id: 'warehouse-setup',
      title: 'Analytics warehouse setup function',
      fn: fns.warehouseSetup,
    });
    const apiAndFunctions = set.entries.length;
    portable.stream.forEach((s) => set.add(s));
    const composite = set.compose(this.topic.topic);

    const widgets = alarmWidgets(set.entries);
    addDashboard(this, 'Dashboard', {
      name: stackName,
      composite,
      entries: set.entries,
      sections: [
        { title: 'Analytics API and functions', widgets: widgets.slice(0, apiAndFunctions) },
        { title: 'Events stream and records', widgets: widgets.slice(apiAndFunctions) },
      ],
    });
  }
}
