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
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, MetricFilter } from 'aws-cdk-lib/aws-logs';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { analyticsStreamName } from '../../contracts/analytics-resources.js';
import { analyticsApiDefinition } from '../../contracts/api-routes.js';
import type { PlatformConfig } from '../config.js';
import { analyticsApiName } from '../names.js';
import type { AlarmSpec } from './alarm-set.js';
import { StackMonitoring } from './stack-monitoring.js';
import { apiAlarmSpecs } from './api-alarms.js';
import { addFunctionAlarms } from './function-alarms.js';

/** Namespace of the events function's record counts (metric filters on its log group). */
const eventsMetricsNamespace = (project: string): string => `GCO/Analytics/${project}`;
const EVENTS_METRICS = { total: 'EventsTotalRecords', failed: 'EventsFailedRecords' } as const;

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
    apiName: analyticsApiName(config),
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

export interface AnalyticsMonitoringProps {
  readonly config: PlatformConfig;
  /** The analytics REST API: named `analyticsApiName()`, the name its portable alarms watch. */
  readonly api: RestApi;
  /** The API's four functions; the events function's log lines become the record-count metrics. */
  readonly functions: {
    readonly admin: LambdaFunction;
    readonly authorizer: LambdaFunction;
    readonly events: LambdaFunction;
    readonly warehouseSetup: LambdaFunction;
  };
}

export class AnalyticsMonitoring extends StackMonitoring {
  constructor(scope: Construct, id: string, props: AnalyticsMonitoringProps) {
    super(scope, id, props.config.monitoring);
    const { config, functions: fns } = props;
    const { alarms: set, stackName } = this;
    if (props.api.restApiName !== analyticsApiName(config)) {
      throw new Error(`${stackName}: the analytics API is not named ${analyticsApiName(config)}`);
    }
    addEventsRecordMetrics(this, fns.events.logGroup, config.projectName);
    const portable = portableAnalyticsAlarms(config);
    portable.api.forEach((s) => set.add(s));
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

    this.addDashboard([
      { title: 'Analytics API and functions', end: apiAndFunctions },
      { title: 'Events stream and records' },
    ]);
  }
}

/** The metric filters that count the records of answered `events batch` lines (EVENTS_METRICS). */
function addEventsRecordMetrics(scope: Construct, logGroup: ILogGroup, project: string): void {
  // `events batch` lines of answered batches (a failed request logs no `total`).
  const answered = FilterPattern.all(
    FilterPattern.stringValue('$.message', '=', 'events batch'),
    FilterPattern.numberValue('$.total', '>=', 0),
  );
  for (const [key, field] of [
    ['total', '$.total'],
    ['failed', '$.failed'],
  ] as const) {
    new MetricFilter(scope, `Events${key === 'total' ? 'Total' : 'Failed'}Records`, {
      logGroup,
      filterPattern: answered,
      metricNamespace: eventsMetricsNamespace(project),
      metricName: EVENTS_METRICS[key],
      metricValue: field,
    });
  }
}
