/**
 * Monitoring of a regional stack `<project>-<region>`: the alarm topic, the alarms of the regional API
 * and its proxies, the internal-CA function, the internal ALB and its target groups, the ALB certificate
 * and the platform metrics the cluster services publish for this region (queue, webhook deliveries, cost
 * reports, internal certificates; the webhook outbox is one central table, alarmed by the global stack),
 * the composite `<project>-<region>-health` and the `<project>-<region>` dashboard.
 */
import { Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { ICertificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { ApplicationLoadBalancer, ApplicationTargetGroup } from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { regionalApiDefinition } from '../../contracts/api-routes.js';
import type { PlatformConfig } from '../config.js';
import { regionalApiName } from '../names.js';
import type { AlarmSet } from './alarm-set.js';
import type { AlarmSpec } from './alarm-set.js';
import { StackMonitoring } from './stack-monitoring.js';
import { apiAlarmSpecs } from './api-alarms.js';
import { addFunctionAlarms, addScheduledFunctionAlarm } from './function-alarms.js';
import { internalCaHandlerOf } from '../constructs/internal-ca.js';
import { platformMetric } from './metrics.js';
import type { PlatformMetricId } from '../../contracts/platform-metrics.js';

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
    apiName: regionalApiName(config, region),
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
      id: 'cost-report-missed',
      title: 'Scheduled cost reports written',
      policy: 'costReportMissed',
      metric: metric('costReportsWritten'),
    },
    ...(['alb', 'services', 'inference'] as const).map((certificate): AlarmSpec => ({
      id: `${certificate}-internal-certificate-expiry`,
      title: `Internal certificate (${certificate}): days to expiry`,
      policy: 'internalCertificateDaysToExpiry',
      metric: platformMetric('certificateDaysToExpiry', p, region, { certificate }),
    })),
  ];
  return { api, platform };
}

export interface RegionalMonitoringProps {
  readonly config: PlatformConfig;
  /** The regional REST API: named `regionalApiName()`, the name its portable alarms watch. */
  readonly api: RestApi;
  readonly controlPlaneProxy: LambdaFunction;
  readonly inferenceProxy: LambdaFunction;
  /** The internal ALB, its target groups by service, and the certificate of its listener. */
  readonly loadBalancer: ApplicationLoadBalancer;
  readonly targetGroups: ReadonlyMap<string, ApplicationTargetGroup>;
  readonly albCertificate: ICertificate;
}

export class RegionalMonitoring extends StackMonitoring {
  constructor(scope: Construct, id: string, props: RegionalMonitoringProps) {
    super(scope, id, props.config.monitoring);
    const { config } = props;
    const { region } = Stack.of(this);
    const { alarms: set, stackName } = this;
    if (props.api.restApiName !== regionalApiName(config, region)) {
      throw new Error(`${stackName}: the regional API is not named ${regionalApiName(config, region)}`);
    }

    const portable = portableRegionalAlarms(config, region);
    portable.api.forEach((s) => set.add(s));
    addFunctionAlarms(set, {
      id: 'control-plane-proxy',
      title: 'Regional control-plane proxy',
      fn: props.controlPlaneProxy,
    });
    addFunctionAlarms(set, {
      id: 'inference-stream-proxy',
      title: 'Regional inference stream proxy',
      fn: props.inferenceProxy,
      streaming: true,
    });
    // The certificates' custom resources and their daily renewal (lib/constructs/internal-ca.ts).
    const internalCa = internalCaHandlerOf(this);
    if (internalCa)
      addScheduledFunctionAlarm(set, { id: 'internal-ca', title: 'Internal CA', fn: internalCa });
    const apiAndFunctions = set.entries.length;
    addAlbAlarms(set, props);
    const alb = set.entries.length;
    portable.platform.forEach((s) => set.add(s));

    this.addDashboard([
      { title: 'Regional API and proxies', end: apiAndFunctions },
      { title: 'Internal load balancer', end: alb },
      { title: 'Queue, webhooks, cost reports, certificates' },
    ]);
  }
}

/** The internal ALB: 5XX by origin, TLS errors on both sides, target health, certificate expiry. */
function addAlbAlarms(set: AlarmSet, props: RegionalMonitoringProps): void {
  const lb = props.loadBalancer;
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
  for (const [service, targetGroup] of props.targetGroups) {
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
    metric: props.albCertificate.metricDaysToExpiry(),
  });
}
