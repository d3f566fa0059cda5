/**
 * Monitoring of a regional stack `<project>-<region>`: the alarm topic, the alarms of the regional API
 * and its proxies, the internal ALB and its target groups, the ALB certificate and the platform metrics
 * the cluster services publish for this region (queue, webhooks, cost reports, internal certificates),
 * the composite `<project>-<region>-health` and the `<project>-<region>` dashboard.
 */
import type { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { regionalApiDefinition } from '../../contracts/api-routes.js';
import type { PlatformConfig } from '../config.js';
import type { RegionalStack } from '../stacks/regional-stack.js';
import { AlarmSet } from './alarm-set.js';
import type { AlarmSpec } from './alarm-set.js';
import { AlarmTopic } from './alarm-topic.js';
import { apiAlarmSpecs } from './api-alarms.js';
import { addDashboard, alarmWidgets } from './dashboards.js';
import { addFunctionAlarms } from './function-alarms.js';
import { platformMetric } from './metrics.js';
import type { PlatformMetricId } from '../../contracts/platform-metrics.js';

/** The regional REST API's name (lib/constructs/regional-api.ts names it so). */
export const regionalApiName = (project: string, region: string): string =>
  `${project}-regional-api-${region}`;

/**
 * The region's alarms whose metrics have synth-time dimensions: the regional API by name and the
 * platform's own metrics. The regional stack alarms on them; the global dashboard draws them.
 */
export function portableRegionalAlarms(
  config: PlatformConfig,
  region: string,
): { readonly api: AlarmSpec[]; readonly platform: AlarmSpec[] } {
  const p = config.projectName;
  const metric = (id: PlatformMetricId): Metric => platformMetric(id, p, region);
  const api = apiAlarmSpecs({
    id: 'regional-api',
    title: `Regional API (${region})`,
    apiName: regionalApiName(p, region),
    definition: regionalApiDefinition(config),
  });
  const platform: AlarmSpec[] = [
    {
      id: 'queue-oldest-job-age',
      title: 'Oldest queued job age (s)',
      policy: 'queueOldestJobAge',
      metric: metric('oldestQueuedJobAge'),
    },
    { id: 'queue-depth', title: 'Queued jobs', policy: 'queueDepth', metric: metric('queueDepth') },
    {
      id: 'webhook-deliveries-failed',
      title: 'Failed webhook deliveries',
      policy: 'webhookDeliveriesFailed',
      metric: metric('webhookDeliveriesFailed'),
    },
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
    {
      id: 'cost-report-missed',
      title: 'Scheduled cost reports written',
      policy: 'costReportMissed',
      metric: metric('costReportsWritten'),
    },
    ...(['alb', 'services'] as const).map((certificate): AlarmSpec => ({
      id: `${certificate}-internal-certificate-expiry`,
      title: `Internal certificate (${certificate}): days to expiry`,
      policy: 'internalCertificateDaysToExpiry',
      metric: platformMetric('certificateDaysToExpiry', p, region, { certificate }),
    })),
  ];
  return { api, platform };
}

export class RegionalMonitoring extends Construct {
  readonly topic: AlarmTopic;
  readonly alarms: AlarmSet;

  constructor(stack: RegionalStack, id: string) {
    super(stack, id);
    const { config, region, stackName } = stack;
    if (stack.api.api.api.restApiName !== regionalApiName(config.projectName, region)) {
      throw new Error(
        `${stackName}: the regional API is not named ${regionalApiName(config.projectName, region)}`,
      );
    }
    this.topic = AlarmTopic.forStack(this, stackName, config.monitoring);
    const set = new AlarmSet(this, 'Alarms', stackName);
    this.alarms = set;

    const portable = portableRegionalAlarms(config, region);
    portable.api.forEach((s) => set.add(s));
    addFunctionAlarms(set, {
      id: 'control-plane-proxy',
      title: 'Regional control-plane proxy',
      fn: stack.proxies.controlPlane,
    });
    addFunctionAlarms(set, {
      id: 'inference-stream-proxy',
      title: 'Regional inference stream proxy',
      fn: stack.proxies.inference,
      streaming: true,
    });
    const apiAndFunctions = set.entries.length;

    const lb = stack.alb.loadBalancer;
    set.add({
      id: 'alb-elb-5xx',
      title: 'ALB: 5XX answered by the load balancer',
      policy: 'albElb5xx',
      metric: lb.metrics.custom('HTTPCode_ELB_5XX_Count'),
    });
    set.add({
      id: 'alb-target-5xx',
      title: 'ALB: 5XX answered by the services',
      policy: 'albTarget5xx',
      metric: lb.metrics.custom('HTTPCode_Target_5XX_Count'),
    });
    set.add({
      id: 'alb-client-tls-errors',
      title: 'ALB: client TLS negotiation errors',
      policy: 'albClientTlsErrors',
      metric: lb.metrics.custom('ClientTLSNegotiationErrorCount'),
    });
    set.add({
      id: 'alb-target-tls-errors',
      title: 'ALB: TLS negotiation errors to the pods',
      policy: 'albTargetTlsErrors',
      metric: lb.metrics.custom('TargetTLSNegotiationErrorCount'),
    });
    for (const [service, targetGroup] of stack.alb.targetGroups) {
      set.add({
        id: `${service}-no-healthy-targets`,
        title: `${service}: healthy targets`,
        policy: 'albNoHealthyTargets',
        metric: targetGroup.metrics.healthyHostCount(),
      });
      set.add({
        id: `${service}-unhealthy-targets`,
        title: `${service}: unhealthy targets`,
        policy: 'albUnhealthyTargets',
        metric: targetGroup.metrics.unhealthyHostCount(),
      });
    }
    set.add({
      id: 'alb-acm-certificate-expiry',
      title: 'ALB certificate (ACM): days to expiry',
      policy: 'acmDaysToExpiry',
      metric: stack.albCertificate.certificate.metricDaysToExpiry(),
    });
    const alb = set.entries.length;

    portable.platform.forEach((s) => set.add(s));
    const composite = set.compose(this.topic.topic);

    const widgets = alarmWidgets(set.entries);
    addDashboard(this, 'Dashboard', {
      name: stackName,
      composite,
      entries: set.entries,
      sections: [
        { title: 'Regional API and proxies', widgets: widgets.slice(0, apiAndFunctions) },
        { title: 'Internal load balancer', widgets: widgets.slice(apiAndFunctions, alb) },
        { title: 'Queue, webhooks, cost reports, certificates', widgets: widgets.slice(alb) },
      ],
    });
  }
}
