/**
 * A stack's alarms, built from ALARM_POLICIES: every alarm notifies the stack's topic on its own ALARM
 * and OK transitions, so no alarm stuck in ALARM can hide another's transition (docs/operations.md
 * "Why every alarm notifies on its own"). The composite `<stack>-health` (any alarm in ALARM) carries
 * no action: it is the stack's one-glance status on the dashboards, never the only path to a page.
 * Each alarm remembers its metric and threshold for the dashboards.
 */
import { Duration } from 'aws-cdk-lib';
import { Alarm, AlarmRule, CompositeAlarm, MathExpression, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { ALARM_POLICIES } from './thresholds.js';
import type { AlarmPolicy, AlarmPolicyId } from './thresholds.js';

/** Where the runbook line of every alarm is. */
const RUNBOOK = 'docs/operations.md "Alarms and runbook"';

export interface AlarmSpec {
  /** Name suffix, unique in the stack: `<stack>-<id>` is the alarm name. */
  readonly id: string;
  /** What is alarmed, for humans: the alarm description and widget title. */
  readonly title: string;
  readonly policy: AlarmPolicyId;
  /** The metric, or a metric-math expression, without statistic or period (the policy sets both). */
  readonly metric: Metric | MathExpression;
  /** For `relativeToTimeout` policies: the timeout the fraction applies to, in the metric's unit. */
  readonly timeout?: number;
}

export interface AlarmEntry {
  readonly spec: AlarmSpec;
  readonly alarm: Alarm;
  /** The metric as alarmed (statistic and period applied). */
  readonly metric: IMetric;
  readonly threshold: number;
}

/** The metric with the policy's statistic and period; an expression's inner metrics get the statistic. */
export function policyMetric(metric: Metric | MathExpression, policy: AlarmPolicy): Metric | MathExpression {
  const period = Duration.seconds(policy.periodSeconds);
  if (metric instanceof Metric) return metric.with({ statistic: policy.statistic, period });
  const usingMetrics: Record<string, IMetric> = {};
  for (const [key, inner] of Object.entries(metric.usingMetrics)) {
    usingMetrics[key] = inner instanceof Metric ? inner.with({ statistic: policy.statistic, period }) : inner;
  }
  return new MathExpression({
    expression: metric.expression,
    usingMetrics,
    period,
    ...(metric.label !== undefined ? { label: metric.label } : {}),
  });
}

/** The threshold of `policy`, resolved against the spec's timeout where it is relative. */
export function policyThreshold(policy: AlarmPolicy, timeout: number | undefined, id: string): number {
  if (!policy.relativeToTimeout) return policy.threshold;
  if (timeout === undefined) throw new Error(`alarm ${id}: its policy needs a timeout`);
  return Math.round(policy.threshold * timeout);
}

export class AlarmSet extends Construct {
  readonly entries: AlarmEntry[] = [];
  private readonly prefix: string;
  private readonly action: SnsAction;

  /** `prefix`: the stack name; alarm names are `<prefix>-<id>`; every alarm notifies `topic`. */
  constructor(scope: Construct, id: string, prefix: string, topic: ITopic) {
    super(scope, id);
    this.prefix = prefix;
    this.action = new SnsAction(topic);
  }

  add(spec: AlarmSpec): Alarm {
    const policy: AlarmPolicy = ALARM_POLICIES[spec.policy];
    const metric = policyMetric(spec.metric, policy);
    const threshold = policyThreshold(policy, spec.timeout, spec.id);
    const alarm = new Alarm(this, spec.id, {
      alarmName: `${this.prefix}-${spec.id}`,
      alarmDescription: `${spec.title}. ${policy.why} Runbook: ${RUNBOOK}.`,
      metric,
      threshold,
      comparisonOperator: policy.comparison,
      evaluationPeriods: policy.evaluationPeriods,
      datapointsToAlarm: policy.datapointsToAlarm,
      treatMissingData: policy.missingData,
    });
    // CloudWatch runs an alarm's actions on its own state transitions only
    // (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/alarm-actions.html): notifying
    // on ALARM and on OK, each alarm speaks for itself whatever state the others are in.
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    this.entries.push({ spec, alarm, metric, threshold });
    return alarm;
  }

  /**
   * `<prefix>-health`: ALARM while any alarm of the set is, with no action. A composite runs its actions
   * only when its own state changes ("actions are taken only when the composite alarm changes state",
   * https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/Create_Composite_Alarm.html), so one
   * alarm stuck in ALARM would hold it there and swallow every later failure: it only summarizes.
   */
  compose(): CompositeAlarm {
    if (this.entries.length === 0) throw new Error(`${this.prefix}: no alarms to compose`);
    return new CompositeAlarm(this, 'Health', {
      compositeAlarmName: `${this.prefix}-health`,
      alarmDescription:
        `Status only (no notification): any alarm of ${this.prefix} is in ALARM. Each alarm notifies on its ` +
        `own; see the alarm list (or the ${this.prefix} dashboard) and follow each one's line in ${RUNBOOK}.`,
      alarmRule: AlarmRule.anyOf(...this.entries.map((e) => e.alarm)),
    });
  }
}
