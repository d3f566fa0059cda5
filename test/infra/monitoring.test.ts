/**
 * Monitoring (docs/operations.md "Alarms and runbook", "Dashboards"): every alarm of the global, a
 * regional and the analytics stack with its metric, statistic, threshold, period, evaluation, missing-data
 * treatment and actions (each notifies the stack's topic on ALARM and OK); the status-only composite per
 * stack; the webhook outbox backlog published and alarmed once, by the global stack; the alarm topics
 * (KMS key and policies, SSL-only, subscriptions from config); the dashboards' widgets;
 * monitoring.enabled=false; and cdk-nag. That no alarm can silence another is proved by
 * alarm-evaluation.test.ts.
 *
 * Three configurations, each built once, bundling and CloudFormation validation skipped (as in
 * regional-stack.test.ts): `full` (analytics API and environment, two email and one HTTPS subscription,
 * cdk-nag), the repository's `cdk.json` as is, and monitoring off.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import type { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { PlatformApp } from '../../lib/app-builder.js';
import { ALARM_POLICIES } from '../../lib/monitoring/thresholds.js';
import type { AlarmPolicyId } from '../../lib/monitoring/thresholds.js';
import { TABLES } from '../../contracts/tables.js';
import { buildForAssertions } from '../support/platform-app.js';
import { nagErrors } from '../support/stack-templates.js';

type Json = Record<string, unknown>;
interface Resource {
  Type: string;
  Properties: Json;
}

const EMAILS = ['oncall@example.com', 'platform@example.com'];
const HTTPS = ['https://hooks.example.com/alarms'];
const FULL = {
  analytics_api: { enabled: true },
  analytics_environment: { enabled: true },
  monitoring: { enabled: true, alarm_email_addresses: EMAILS, alarm_https_endpoints: HTTPS },
};
const REGION = 'us-east-1';
const GLOBAL_REGION = 'us-east-2';

const build = (context: Json, nag: boolean): PlatformApp => buildForAssertions(context, { nag });

const stacksOf = (built: PlatformApp): Stack[] => [
  built.globalStack,
  ...built.regionalStacks.values(),
  ...(built.analyticsStack ? [built.analyticsStack] : []),
];

const resources = (template: Template, type: string): [string, Resource][] =>
  Object.entries(template.findResources(type) as Record<string, Resource>);

/**
 * A CloudFormation value as text: `Fn::Join` flattened, `Ref` as `Ref:<id>`, `GetAtt` as
 * `GetAtt:<id>.<attr>`, any other function as `Token:<function>` (so a dashboard body stays JSON).
 */
function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  const v = value as { Ref?: string; 'Fn::GetAtt'?: [string, string]; 'Fn::Join'?: [string, unknown[]] };
  if (v.Ref !== undefined) return `Ref:${v.Ref}`;
  if (v['Fn::GetAtt']) return `GetAtt:${v['Fn::GetAtt'][0]}.${v['Fn::GetAtt'][1]}`;
  if (v['Fn::Join']) return v['Fn::Join'][1].map(text).join(v['Fn::Join'][0]);
  return `Token:${Object.keys(value as Json).join(',')}`;
}

// ---- expected alarms ------------------------------------------------------------------------------

/** A metric as expected: dimension values are literals or patterns over `text()`. */
interface ExpectedMetric {
  readonly namespace: string;
  readonly name: string;
  readonly dimensions: Readonly<Record<string, string | RegExp>>;
}

interface ExpectedAlarm {
  /** Name after `<stack>-`. */
  readonly id: string;
  readonly policy: AlarmPolicyId;
  /** The synthesized threshold, written out (pins the policy's value or its timeout fraction). */
  readonly threshold: number;
  /** One metric, or a metric-math alarm: its expression and inner metrics by id. */
  readonly metric:
    ExpectedMetric | { readonly expression: string; readonly metrics: Record<string, ExpectedMetric> };
}

const apiGateway = (
  apiName: string,
  stage: string,
  name: string,
  route?: [string, string],
): ExpectedMetric => ({
  namespace: 'AWS/ApiGateway',
  name,
  dimensions: {
    ApiName: apiName,
    Stage: stage,
    ...(route ? { Method: route[0], Resource: route[1] } : {}),
  },
});
const lambda = (name: string, fn: RegExp): ExpectedMetric => ({
  namespace: 'AWS/Lambda',
  name,
  dimensions: { FunctionName: fn },
});
const platform = (name: string, certificate?: string, region = REGION): ExpectedMetric => ({
  namespace: 'GCO/Platform',
  name,
  dimensions: { Project: 'gco', Region: region, ...(certificate ? { Certificate: certificate } : {}) },
});
/** The Errors alarm of a function that runs a few times a day (rotation, internal CA). */
const scheduledErrors = (id: string, fn: RegExp): ExpectedAlarm => ({
  id: `${id}-errors`,
  policy: 'scheduledFunctionErrors',
  threshold: 1,
  metric: lambda('Errors', fn),
});
const INTERNAL_CA_HANDLER = /^Ref:InternalCaProviderHandler[0-9A-F]{8}$/;
const maxOf = (metrics: ExpectedMetric[]): ExpectedAlarm['metric'] => ({
  expression: `MAX([${metrics.map((_, i) => `m${i}`).join(',')}])`,
  metrics: Object.fromEntries(metrics.map((m, i) => [`m${i}`, m])),
});

/** 80% of the 29 s integration timeout, in ms. */
const BUFFERED_LATENCY_MS = 23_200;
/** 95% of the 900 s stream proxy timeout, in ms. */
const STREAM_DURATION_MS = 855_000;

function functionAlarms(id: string, fn: RegExp, streaming = false): ExpectedAlarm[] {
  return [
    { id: `${id}-errors`, policy: 'lambdaErrors', threshold: 5, metric: lambda('Errors', fn) },
    { id: `${id}-throttles`, policy: 'lambdaThrottles', threshold: 5, metric: lambda('Throttles', fn) },
    ...(streaming
      ? [
          {
            id: `${id}-duration`,
            policy: 'streamDurationNearTimeout' as const,
            threshold: STREAM_DURATION_MS,
            metric: lambda('Duration', fn),
          },
        ]
      : []),
  ];
}

/** The three alarms of every API: 5xx and 4xx rates, and p99 latency measured by `latency`. */
function apiAlarms(
  id: string,
  api: (name: string) => ExpectedMetric,
  latency: ExpectedAlarm['metric'],
): ExpectedAlarm[] {
  return [
    { id: `${id}-5xx-rate`, policy: 'apiServerErrorRate', threshold: 0.05, metric: api('5XXError') },
    { id: `${id}-4xx-rate`, policy: 'apiClientErrorRate', threshold: 0.25, metric: api('4XXError') },
    { id: `${id}-p99-latency`, policy: 'apiLatencyP99', threshold: BUFFERED_LATENCY_MS, metric: latency },
  ];
}

const CONTROL_PLANE = '/api/v1/{proxy+}';

function expectedGlobal(): ExpectedAlarm[] {
  const api = (name: string, route?: [string, string]) => apiGateway('gco-global', 'prod', name, route);
  const buffered: [string, string][] = [
    ['GET', '/api/v1/global/health'],
    ['GET', '/api/v1/global/jobs'],
    ['DELETE', '/api/v1/global/jobs'],
    ['GET', '/api/v1/global/status'],
    ...['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m): [string, string] => [m, CONTROL_PLANE]),
    ['GET', '/studio/login'],
  ];
  const central = Object.values(TABLES).filter((t) => t.scope === 'central');
  return [
    ...apiAlarms('global-api', api, maxOf(buffered.map((route) => api('Latency', route)))),
    ...functionAlarms('aggregator', /^Ref:Aggregator[0-9A-F]{8}$/),
    ...functionAlarms('control-plane-proxy', /^Ref:ControlPlaneProxy[0-9A-F]{8}$/),
    ...functionAlarms('inference-stream-proxy', /^Ref:InferenceProxy[0-9A-F]{8}$/, true),
    ...functionAlarms('studio-login', /^Ref:StudioLogin[0-9A-F]{8}$/),
    scheduledErrors('signing-key-rotation', /^Ref:SigningKeyRotation[0-9A-F]{8}$/),
    scheduledErrors('internal-ca', INTERNAL_CA_HANDLER),
    ...functionAlarms('webhook-outbox-metrics', /^Ref:WebhookOutboxMetrics[0-9A-F]{8}$/),
    // The outbox is one central table: its backlog is published once (Region "global") and alarmed here.
    {
      id: 'webhook-outbox-age',
      policy: 'webhookOutboxAge',
      threshold: 900,
      metric: platform('OldestWebhookOutboxEntryAgeSeconds', undefined, 'global'),
    },
    {
      id: 'webhook-outbox-depth',
      policy: 'webhookOutboxDepth',
      threshold: 1000,
      metric: platform('WebhookOutboxDepth', undefined, 'global'),
    },
    {
      id: 'waf-blocked-requests',
      policy: 'wafBlockedRequests',
      threshold: 500,
      metric: {
        namespace: 'AWS/WAFV2',
        name: 'BlockedRequests',
        dimensions: { WebACL: 'gco-global-api', Rule: 'ALL', Region: GLOBAL_REGION },
      },
    },
    ...central.flatMap((table): ExpectedAlarm[] =>
      (['read', 'write'] as const).map((op) => ({
        id: `${table.id}-${op}-throttles`,
        policy: 'dynamoThrottles',
        threshold: 10,
        metric: {
          namespace: 'AWS/DynamoDB',
          name: op === 'read' ? 'ReadThrottleEvents' : 'WriteThrottleEvents',
          dimensions: { TableName: new RegExp(`^Ref:Table${table.id.replace(/-/g, '')}Table[0-9A-F]{8}$`) },
        },
      })),
    ),
  ];
}

function expectedRegional(): ExpectedAlarm[] {
  const api = (name: string, route?: [string, string]) =>
    apiGateway(`gco-regional-api-${REGION}`, 'prod', name, route);
  const lb = /^GetAtt:AlbLoadBalancer[0-9A-F]{8}\.LoadBalancerFullName$/;
  const alb = (name: string): ExpectedMetric => ({
    namespace: 'AWS/ApplicationELB',
    name,
    dimensions: { LoadBalancer: lb },
  });
  const targets = (service: string, name: string): ExpectedMetric => ({
    namespace: 'AWS/ApplicationELB',
    name,
    dimensions: {
      // `app/<name>/<id>`, cut from the listener ARN, and the target group's full name.
      LoadBalancer: /^Token:Fn::Select\/Token:Fn::Select\/Token:Fn::Select$/,
      TargetGroup: new RegExp(`^GetAtt:Alb${service}Targets[0-9A-F]{8}\\.TargetGroupFullName$`),
    },
  });
  const services: [string, string][] = [
    ['manifest-processor', 'ManifestProcessor'],
    ['health-monitor', 'HealthMonitor'],
    ['inference-proxy', 'InferenceProxy'],
  ];
  return [
    ...apiAlarms(
      'regional-api',
      api,
      maxOf(
        ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'].map((m) =>
          api('Latency', [m, CONTROL_PLANE]),
        ),
      ),
    ),
    ...functionAlarms('control-plane-proxy', /^Ref:ProxiesControlPlaneProxy[0-9A-F]{8}$/),
    ...functionAlarms('inference-stream-proxy', /^Ref:ProxiesInferenceStreamProxy[0-9A-F]{8}$/, true),
    scheduledErrors('internal-ca', INTERNAL_CA_HANDLER),
    { id: 'alb-elb-5xx', policy: 'albElb5xx', threshold: 10, metric: alb('HTTPCode_ELB_5XX_Count') },
    { id: 'alb-target-5xx', policy: 'albTarget5xx', threshold: 25, metric: alb('HTTPCode_Target_5XX_Count') },
    {
      id: 'alb-client-tls-errors',
      policy: 'albClientTlsErrors',
      threshold: 10,
      metric: alb('ClientTLSNegotiationErrorCount'),
    },
    {
      id: 'alb-target-tls-errors',
      policy: 'albTargetTlsErrors',
      threshold: 1,
      metric: alb('TargetTLSNegotiationErrorCount'),
    },
    ...services.flatMap(([service, pascal]): ExpectedAlarm[] => [
      {
        id: `${service}-no-healthy-targets`,
        policy: 'albNoHealthyTargets',
        threshold: 1,
        metric: targets(pascal, 'HealthyHostCount'),
      },
      {
        id: `${service}-unhealthy-targets`,
        policy: 'albUnhealthyTargets',
        threshold: 1,
        metric: targets(pascal, 'UnHealthyHostCount'),
      },
    ]),
    {
      id: 'alb-acm-certificate-expiry',
      policy: 'acmDaysToExpiry',
      threshold: 21,
      metric: {
        namespace: 'AWS/CertificateManager',
        name: 'DaysToExpiry',
        dimensions: { CertificateArn: /^GetAtt:AlbCertificate[0-9A-F]{8}\.CertificateArn$/ },
      },
    },
    {
      id: 'queue-oldest-job-age',
      policy: 'queueOldestJobAge',
      threshold: 900,
      metric: platform('OldestQueuedJobAgeSeconds'),
    },
    { id: 'queue-depth', policy: 'queueDepth', threshold: 500, metric: platform('QueueDepth') },
    {
      id: 'webhook-deliveries-failed',
      policy: 'webhookDeliveriesFailed',
      threshold: 10,
      metric: platform('WebhookDeliveriesFailed'),
    },
    {
      id: 'cost-report-missed',
      policy: 'costReportMissed',
      threshold: 1,
      metric: platform('CostReportsWritten'),
    },
    ...['alb', 'services', 'inference'].map((certificate): ExpectedAlarm => ({
      id: `${certificate}-internal-certificate-expiry`,
      policy: 'internalCertificateDaysToExpiry',
      threshold: 21,
      metric: platform('InternalCertificateDaysToExpiry', certificate),
    })),
  ];
}

function expectedAnalytics(): ExpectedAlarm[] {
  const api = (name: string) => apiGateway('gco-analytics', 'live', name);
  const stream = (name: string): ExpectedMetric => ({
    namespace: 'AWS/Kinesis',
    name,
    dimensions: { StreamName: 'gco-analytics-events' },
  });
  const events = (name: string): ExpectedMetric => ({ namespace: 'GCO/Analytics/gco', name, dimensions: {} });
  return [
    // Every Lambda route is buffered: the stage's own p99.
    ...apiAlarms('analytics-api', api, api('Latency')),
    ...functionAlarms('admin', /^Ref:AdminFunction[0-9A-F]{8}$/),
    ...functionAlarms('authorizer', /^Ref:AuthorizerFunction[0-9A-F]{8}$/),
    ...functionAlarms('events', /^Ref:EventsFunction[0-9A-F]{8}$/),
    ...functionAlarms('warehouse-setup', /^Ref:WarehouseSetupFunction[0-9A-F]{8}$/),
    {
      id: 'events-stream-iterator-age',
      policy: 'kinesisIteratorAge',
      threshold: 21_600_000,
      metric: stream('GetRecords.IteratorAgeMilliseconds'),
    },
    {
      id: 'events-stream-write-throttles',
      policy: 'kinesisWriteThrottles',
      threshold: 50,
      metric: stream('WriteProvisionedThroughputExceeded'),
    },
    {
      id: 'events-failed-record-rate',
      policy: 'eventsFailedRecordRate',
      threshold: 0.01,
      metric: {
        expression: 'failed / total',
        metrics: { failed: events('EventsFailedRecords'), total: events('EventsTotalRecords') },
      },
    },
  ];
}

// ---- assertions -----------------------------------------------------------------------------------

interface Dimension {
  Name: string;
  Value: unknown;
}

function expectDimensions(
  actual: Dimension[] | undefined,
  expected: ExpectedMetric['dimensions'],
  where: string,
): void {
  const found = Object.fromEntries((actual ?? []).map((d) => [d.Name, text(d.Value)]));
  expect([where, Object.keys(found).sort()]).toEqual([where, Object.keys(expected).sort()]);
  for (const [name, value] of Object.entries(expected)) {
    if (typeof value === 'string') expect([where, name, found[name]]).toEqual([where, name, value]);
    else expect([where, name, found[name]]).toEqual([where, name, expect.stringMatching(value)]);
  }
}

/** The properties a statistic takes: percentiles are ExtendedStatistic. */
const statisticOf = (statistic: string): Json =>
  /^p\d/.test(statistic) ? { ExtendedStatistic: statistic } : { Statistic: statistic };

function expectAlarms(stack: Stack, expected: ExpectedAlarm[]): void {
  const template = Template.fromStack(stack);
  const [[topicId]] = resources(template, 'AWS::SNS::Topic') as [[string, Resource]];
  const alarms = new Map(
    resources(template, 'AWS::CloudWatch::Alarm').map(([, r]) => [
      r.Properties.AlarmName as string,
      r.Properties,
    ]),
  );
  // Exactly the expected alarms, no more.
  expect([...alarms.keys()].sort()).toEqual(expected.map((e) => `${stack.stackName}-${e.id}`).sort());

  for (const e of expected) {
    const name = `${stack.stackName}-${e.id}`;
    const p = alarms.get(name) as Json;
    const policy = ALARM_POLICIES[e.policy];
    expect({
      name,
      ...pick(p, [
        'Threshold',
        'ComparisonOperator',
        'EvaluationPeriods',
        'DatapointsToAlarm',
        'TreatMissingData',
      ]),
    }).toEqual({
      name,
      Threshold: e.threshold,
      ComparisonOperator: policy.comparison,
      EvaluationPeriods: policy.evaluationPeriods,
      DatapointsToAlarm: policy.datapointsToAlarm,
      TreatMissingData: policy.missingData,
    });
    // Every alarm notifies the stack's topic on its own ALARM and OK transitions.
    expect({ name, actions: pick(p, ['AlarmActions', 'OKActions', 'InsufficientDataActions']) }).toEqual({
      name,
      actions: { AlarmActions: [{ Ref: topicId }], OKActions: [{ Ref: topicId }] },
    });
    expect(p.AlarmDescription).toEqual(expect.stringContaining('docs/operations.md'));

    if ('namespace' in e.metric) {
      expect({
        name,
        ...pick(p, ['Namespace', 'MetricName', 'Period', 'Statistic', 'ExtendedStatistic']),
      }).toEqual({
        name,
        Namespace: e.metric.namespace,
        MetricName: e.metric.name,
        Period: policy.periodSeconds,
        ...statisticOf(policy.statistic),
      });
      expectDimensions(p.Dimensions as Dimension[], e.metric.dimensions, name);
    } else {
      const queries = p.Metrics as {
        Id: string;
        Expression?: string;
        ReturnData?: boolean;
        MetricStat?: {
          Metric: { Namespace: string; MetricName: string; Dimensions?: Dimension[] };
          Period: number;
          Stat: string;
        };
      }[];
      const expression = queries.find((q) => q.Expression !== undefined);
      expect({ name, expression: expression?.Expression, returned: expression?.ReturnData }).toEqual({
        name,
        expression: e.metric.expression,
        returned: true,
      });
      const inner = queries.filter((q) => q.MetricStat);
      expect(inner.map((q) => q.Id).sort()).toEqual(Object.keys(e.metric.metrics).sort());
      for (const q of inner) {
        const want = e.metric.metrics[q.Id] as ExpectedMetric;
        const stat = q.MetricStat as NonNullable<typeof q.MetricStat>;
        expect({
          name,
          id: q.Id,
          ns: stat.Metric.Namespace,
          metric: stat.Metric.MetricName,
          period: stat.Period,
          stat: stat.Stat,
        }).toEqual({
          name,
          id: q.Id,
          ns: want.namespace,
          metric: want.name,
          period: policy.periodSeconds,
          stat: policy.statistic,
        });
        expectDimensions(stat.Metric.Dimensions, want.dimensions, `${name} ${q.Id}`);
      }
    }
  }
}

function pick(object: Json, keys: string[]): Json {
  return Object.fromEntries(keys.filter((k) => object[k] !== undefined).map((k) => [k, object[k]]));
}

/** The composite: named `<stack>-health`, ANY alarm in ALARM, and no action (status only). */
function expectComposite(stack: Stack): void {
  const template = Template.fromStack(stack);
  const composites = resources(template, 'AWS::CloudWatch::CompositeAlarm');
  expect(composites).toHaveLength(1);
  const [, composite] = composites[0] as [string, Resource];
  const p = composite.Properties;
  expect(p.AlarmName).toBe(`${stack.stackName}-health`);
  expect(pick(p, ['AlarmActions', 'OKActions', 'InsufficientDataActions', 'ActionsSuppressor'])).toEqual({});
  expect(p.AlarmDescription).toEqual(expect.stringContaining('Status only (no notification)'));
  const rule = text(p.AlarmRule);
  const children = resources(template, 'AWS::CloudWatch::Alarm').map(([id]) => id);
  const referenced = [...rule.matchAll(/ALARM\("GetAtt:([^.]+)\.Arn"\)/g)].map((m) => m[1]);
  expect(referenced.sort()).toEqual(children.sort());
  expect(rule.split(') OR ALARM(')).toHaveLength(children.length);
}

/** The topic `<stack>-alarms`: its key (rotated, usable by CloudWatch), SSL-only and CloudWatch-publish policy. */
function expectTopic(stack: Stack): void {
  const template = Template.fromStack(stack);
  const topics = resources(template, 'AWS::SNS::Topic');
  expect(topics).toHaveLength(1);
  const [topicId, topic] = topics[0] as [string, Resource];
  expect(topic.Properties.TopicName).toBe(`${stack.stackName}-alarms`);
  expect((template.toJSON().Outputs as Record<string, Json>).AlarmTopicArn?.Value).toEqual({ Ref: topicId });
  const keyRef = text(topic.Properties.KmsMasterKeyId);
  const keyId = /^GetAtt:([^.]+)\.Arn$/.exec(keyRef)?.[1] ?? '';
  const key = template.findResources('AWS::KMS::Key')[keyId] as Resource;
  expect(key.Properties.EnableKeyRotation).toBe(true);
  // Deleted with the stack (nothing at rest to keep), after KMS's shortest waiting period.
  expect(key.Properties.PendingWindowInDays).toBe(7);
  expect((key as Resource & { DeletionPolicy?: string }).DeletionPolicy).toBe('Delete');
  const keyStatements = (key.Properties.KeyPolicy as { Statement: Json[] }).Statement;
  expect(keyStatements).toContainEqual(
    expect.objectContaining({
      Effect: 'Allow',
      Principal: { Service: 'cloudwatch.amazonaws.com' },
      Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
    }),
  );

  const policies = resources(template, 'AWS::SNS::TopicPolicy').filter(([, r]) =>
    (r.Properties.Topics as unknown[]).some((t) => text(t) === `Ref:${topicId}`),
  );
  expect(policies).toHaveLength(1);
  const statements = (
    (policies[0] as [string, Resource])[1].Properties.PolicyDocument as { Statement: Json[] }
  ).Statement;
  expect(statements).toContainEqual(
    expect.objectContaining({
      Effect: 'Deny',
      Action: 'sns:Publish',
      Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      Principal: '*',
    }),
  );
  const publish = statements.find((s) => s.Sid === 'CloudWatchAlarmsPublish') as Json;
  expect(publish).toMatchObject({
    Effect: 'Allow',
    Action: 'sns:Publish',
    Principal: { Service: 'cloudwatch.amazonaws.com' },
    Resource: { Ref: topicId },
  });
  const condition = publish.Condition as { StringEquals: Json; ArnLike: Record<string, unknown> };
  expect(condition.StringEquals).toEqual({ 'aws:SourceAccount': { Ref: 'AWS::AccountId' } });
  expect(text(condition.ArnLike['aws:SourceArn'])).toBe(
    `arn:Ref:AWS::Partition:cloudwatch:${stack.region}:Ref:AWS::AccountId:alarm:*`,
  );
}

/** The stack's dashboard body as text. */
function dashboardBody(stack: Stack, name: string): string {
  const dashboards = resources(Template.fromStack(stack), 'AWS::CloudWatch::Dashboard');
  expect(dashboards.map(([, d]) => d.Properties.DashboardName)).toEqual([name]);
  return text((dashboards[0] as [string, Resource])[1].Properties.DashboardBody);
}

interface Widget {
  type: string;
  properties: {
    title?: string;
    region?: string;
    alarms?: string[];
    metrics?: unknown[][];
    annotations?: { horizontal: { value: number }[] };
  };
}

/** Widgets of a dashboard body; token values are `<Ref:...>`-free text, so the JSON parses. */
const widgetsOf = (body: string): Widget[] => (JSON.parse(body) as { widgets: Widget[] }).widgets;

/** A dashboard metric row `[namespace, name, dim, value, ..., options?]` as comparable parts. */
function rowOf(row: unknown[]): {
  namespace: string;
  name: string;
  dimensions: Record<string, string>;
  options: Json;
} {
  const last = row[row.length - 1];
  const options = typeof last === 'object' && last !== null ? (last as Json) : {};
  const parts = (typeof last === 'object' ? row.slice(0, -1) : row) as string[];
  const dimensions: Record<string, string> = {};
  for (let i = 2; i < parts.length; i += 2) dimensions[parts[i] as string] = parts[i + 1] as string;
  return { namespace: parts[0] as string, name: parts[1] as string, dimensions, options };
}

const metricsOfExpected = (e: ExpectedAlarm): ExpectedMetric[] =>
  'namespace' in e.metric ? [e.metric] : Object.values(e.metric.metrics);

/** Every expected alarm has a graph: its metric(s) with the alarm's threshold line (and region, when given). */
function expectAlarmGraphs(widgets: Widget[], expected: ExpectedAlarm[], region?: string): void {
  const graphs = widgets.filter((w) => w.type === 'metric');
  for (const e of expected) {
    const wanted = metricsOfExpected(e);
    const graph = graphs.find((g) => {
      const rows = (g.properties.metrics ?? []).map(rowOf);
      return wanted.every((m) =>
        rows.some(
          (r) =>
            r.namespace === m.namespace &&
            r.name === m.name &&
            Object.entries(m.dimensions).every(([k, v]) =>
              typeof v === 'string' ? r.dimensions[k] === v : v.test(r.dimensions[k] ?? ''),
            ) &&
            (region === undefined || r.options.region === region),
        ),
      );
    });
    expect({ alarm: e.id, graph: graph !== undefined }).toEqual({ alarm: e.id, graph: true });
    if (region === undefined || !('expression' in e.metric) || e.metric.expression.startsWith('MAX(')) {
      expect({ alarm: e.id, threshold: graph?.properties.annotations?.horizontal[0]?.value }).toEqual({
        alarm: e.id,
        threshold: e.threshold,
      });
    }
  }
}

// ---- the tests ------------------------------------------------------------------------------------

let full: PlatformApp;
let plain: PlatformApp;
let off: PlatformApp;

beforeAll(() => {
  full = build(FULL, true);
  plain = build({}, false);
  off = build({ ...FULL, monitoring: { enabled: false, alarm_email_addresses: EMAILS } }, false);
});

const regionalOf = (built: PlatformApp): Stack => {
  const stack = built.regionalStacks.get(REGION);
  if (!stack) throw new Error(`no ${REGION} stack`);
  return stack;
};
const analyticsOf = (built: PlatformApp): Stack => {
  if (!built.analyticsStack) throw new Error('no analytics stack');
  return built.analyticsStack;
};

describe('alarms', () => {
  test('global stack: API, functions, WAF and central tables', () => {
    expectAlarms(full.globalStack, expectedGlobal());
  });

  test('global stack: the outbox metrics function samples the outbox index every minute, and only that', () => {
    const template = Template.fromStack(full.globalStack);
    const fn = resources(template, 'AWS::Lambda::Function').find(([id]) =>
      id.startsWith('WebhookOutboxMetrics'),
    );
    expect(fn).toBeDefined();
    const [fnId, fnResource] = fn as [string, Resource];
    const env = (fnResource.Properties.Environment as { Variables: Json }).Variables;
    expect(env.PROJECT_NAME).toBe('gco');
    expect(text(env.WEBHOOK_DELIVERIES_TABLE)).toMatch(/^Ref:Tablewebhookdeliveries(Table)?[0-9A-F]{8}$/);
    const rules = resources(template, 'AWS::Events::Rule').filter(([, r]) =>
      (r.Properties.Targets as Json[]).some((t) => text(t.Arn) === `GetAtt:${fnId}.Arn`),
    );
    expect(rules.map(([, r]) => r.Properties.ScheduleExpression)).toEqual(['rate(1 minute)']);
    expect((rules[0]?.[1].Properties.Targets as Json[])[0]?.RetryPolicy).toEqual({
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: 60,
    });
    const roleRef = text(fnResource.Properties.Role);
    const roleId = /^GetAtt:([^.]+)\.Arn$/.exec(roleRef)?.[1];
    const statements = resources(template, 'AWS::IAM::Policy')
      .filter(([, pol]) => (pol.Properties.Roles as unknown[]).some((r) => text(r) === `Ref:${roleId}`))
      .flatMap(([, pol]) => (pol.Properties.PolicyDocument as { Statement: Json[] }).Statement);
    const dynamo = statements.filter((st) => JSON.stringify(st.Action).includes('dynamodb:'));
    expect(dynamo).toHaveLength(1);
    expect(dynamo[0]?.Action).toBe('dynamodb:Query');
    expect(text(dynamo[0]?.Resource)).toMatch(
      /^GetAtt:Tablewebhookdeliveries(Table)?[0-9A-F]{8}\.Arn\/index\/pending-index$/,
    );
  });

  test('no outbox function without monitoring (nothing would read its metrics)', () => {
    const ids = resources(Template.fromStack(off.globalStack), 'AWS::Lambda::Function').map(([id]) => id);
    expect(ids.filter((id) => id.startsWith('WebhookOutboxMetrics'))).toEqual([]);
  });

  test('regional stack: API, proxies, internal CA, ALB, target groups, certificates, queue, webhook deliveries, cost reports', () => {
    expectAlarms(regionalOf(full), expectedRegional());
  });

  test('analytics stack: API, functions (authorizer included), stream, failed-record rate', () => {
    expectAlarms(analyticsOf(full), expectedAnalytics());
  });

  test('the failed-record metrics come from the events function’s answered-batch log lines', () => {
    const template = Template.fromStack(analyticsOf(full));
    const filters = resources(template, 'AWS::Logs::MetricFilter').map(([, f]) => f.Properties);
    expect(filters).toHaveLength(2);
    const events = resources(template, 'AWS::Lambda::Function').find(([id]) =>
      id.startsWith('EventsFunction'),
    );
    const logGroup = text((events?.[1].Properties.LoggingConfig as Json).LogGroup);
    for (const [name, value] of [
      ['EventsTotalRecords', '$.total'],
      ['EventsFailedRecords', '$.failed'],
    ]) {
      const filter = filters.find((f) => (f.MetricTransformations as Json[])[0]?.MetricName === name) as Json;
      expect(filter.FilterPattern).toBe('{ ($.message = "events batch") && ($.total >= 0) }');
      expect(text(filter.LogGroupName)).toBe(logGroup);
      expect(filter.MetricTransformations).toEqual([
        { MetricNamespace: 'GCO/Analytics/gco', MetricName: name, MetricValue: value },
      ]);
    }
  });

  test('the default config (no analytics environment) has no studio-login alarms', () => {
    const names = resources(Template.fromStack(plain.globalStack), 'AWS::CloudWatch::Alarm').map(
      ([, a]) => a.Properties.AlarmName as string,
    );
    expect(names.filter((n) => n.includes('studio-login'))).toEqual([]);
    // Without the studio route the buffered routes are the four aggregates and five control-plane methods.
    const latency = resources(Template.fromStack(plain.globalStack), 'AWS::CloudWatch::Alarm').find(
      ([, a]) => a.Properties.AlarmName === 'gco-global-global-api-p99-latency',
    );
    expect((latency?.[1].Properties.Metrics as unknown[]).length).toBe(1 + 9);
  });
});

describe('composite alarms: one per stack, status only', () => {
  test.each(['global', 'regional', 'analytics'] as const)('%s', (kind) => {
    const stack =
      kind === 'global' ? full.globalStack : kind === 'regional' ? regionalOf(full) : analyticsOf(full);
    expectComposite(stack);
  });
});

describe('alarm topics', () => {
  test.each(['global', 'regional', 'analytics'] as const)(
    '%s: CMK, SSL-only, CloudWatch may publish',
    (kind) => {
      const stack =
        kind === 'global' ? full.globalStack : kind === 'regional' ? regionalOf(full) : analyticsOf(full);
      expectTopic(stack);
    },
  );

  test('every topic has the configured email and HTTPS subscriptions', () => {
    for (const stack of stacksOf(full)) {
      const template = Template.fromStack(stack);
      const [[topicId]] = resources(template, 'AWS::SNS::Topic') as [[string, Resource]];
      const subscriptions = resources(template, 'AWS::SNS::Subscription').map(([, s]) => ({
        protocol: s.Properties.Protocol,
        endpoint: s.Properties.Endpoint,
        topic: s.Properties.TopicArn,
      }));
      expect(subscriptions).toEqual(
        expect.arrayContaining([
          ...EMAILS.map((endpoint) => ({ protocol: 'email', endpoint, topic: { Ref: topicId } })),
          ...HTTPS.map((endpoint) => ({ protocol: 'https', endpoint, topic: { Ref: topicId } })),
        ]),
      );
      expect(subscriptions).toHaveLength(EMAILS.length + HTTPS.length);
    }
  });

  test('no subscriptions by default', () => {
    for (const stack of stacksOf(plain)) {
      const template = Template.fromStack(stack);
      expect(resources(template, 'AWS::SNS::Topic')).toHaveLength(1);
      template.resourceCountIs('AWS::SNS::Subscription', 0);
    }
  });
});

describe('dashboards', () => {
  test('regional dashboard: a status row of every alarm and a graph per alarm', () => {
    const stack = regionalOf(full);
    const widgets = widgetsOf(dashboardBody(stack, `gco-${REGION}`));
    const status = widgets.find((w) => w.type === 'alarm');
    const alarmIds = resources(Template.fromStack(stack), 'AWS::CloudWatch::Alarm').map(([id]) => id);
    expect(status?.properties.alarms).toHaveLength(alarmIds.length + 1);
    expectAlarmGraphs(widgets, expectedRegional());
  });

  test('analytics dashboard: a graph per alarm', () => {
    expectAlarmGraphs(widgetsOf(dashboardBody(analyticsOf(full), 'gco-analytics')), expectedAnalytics());
  });

  test('global dashboard: its own alarms, and each region’s and the analytics API’s across regions', () => {
    const widgets = widgetsOf(dashboardBody(full.globalStack, 'gco-global'));
    expectAlarmGraphs(widgets, expectedGlobal());
    // Cross-region: the regional alarms whose metrics have synth-time dimensions, placed in the region.
    const portable = expectedRegional().filter((e) =>
      metricsOfExpected(e).every((m) => Object.values(m.dimensions).every((v) => typeof v === 'string')),
    );
    expect(portable.map((e) => e.id)).toEqual(
      expect.arrayContaining([
        'regional-api-5xx-rate',
        'regional-api-p99-latency',
        'queue-oldest-job-age',
        'cost-report-missed',
      ]),
    );
    expectAlarmGraphs(widgets, portable, REGION);
    expect(widgets.filter((w) => w.properties.region === REGION).length).toBe(portable.length);
    // The analytics API shares the global region by default: drawn as alarmed, without a region.
    const analytics = expectedAnalytics().filter((e) =>
      metricsOfExpected(e).every((m) => Object.values(m.dimensions).every((v) => typeof v === 'string')),
    );
    for (const e of analytics) {
      const titled = widgets.filter((w) => w.properties.title?.startsWith(`${GLOBAL_REGION}: `));
      expectAlarmGraphs(titled, [e]);
    }
  });
});

test('every policy fits what PutMetricAlarm accepts', () => {
  for (const [id, policy] of Object.entries(ALARM_POLICIES)) {
    const range = policy.periodSeconds * policy.evaluationPeriods;
    expect({ id, periodOk: policy.periodSeconds % 60 === 0 }).toEqual({ id, periodOk: true });
    // The evaluation range: one day for periods under an hour, seven days otherwise.
    expect({ id, rangeOk: range <= (policy.periodSeconds < 3600 ? 86_400 : 604_800) }).toEqual({
      id,
      rangeOk: true,
    });
    expect({ id, datapointsOk: policy.datapointsToAlarm <= policy.evaluationPeriods }).toEqual({
      id,
      datapointsOk: true,
    });
    expect(policy.why.length).toBeGreaterThan(20);
  }
});

test('monitoring.enabled=false: no topic, key policy, alarm, composite, metric filter or dashboard', () => {
  for (const stack of stacksOf(off)) {
    const template = Template.fromStack(stack);
    for (const type of [
      'AWS::SNS::Topic',
      'AWS::SNS::Subscription',
      'AWS::CloudWatch::Alarm',
      'AWS::CloudWatch::CompositeAlarm',
      'AWS::CloudWatch::Dashboard',
      'AWS::Logs::MetricFilter',
    ]) {
      expect({ stack: stack.stackName, type, count: resources(template, type).length }).toEqual({
        stack: stack.stackName,
        type,
        count: 0,
      });
    }
  }
});

test('cdk-nag: no unsuppressed findings in any stack with monitoring on', () => {
  for (const stack of stacksOf(full)) {
    expect({ stack: stack.stackName, errors: nagErrors(stack) }).toEqual({
      stack: stack.stackName,
      errors: [],
    });
  }
});
