/**
 * A stack's alarms: child alarms built from ALARM_POLICIES carry no actions; one composite alarm
 * `<stack>-health` (any child in ALARM) notifies the stack's topic on ALARM and OK, so an outage that
 * trips several children pages once. Each child remembers its metric and threshold for the dashboards.
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

  /** `prefix`: the stack name; alarm names are `<prefix>-<id>`. */
  constructor(scope: Construct, id: string, prefix: string) {
    super(scope, id);
    this.prefix = prefix;
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
      // No actions: children only feed the composite, which alone notifies.
    });
    this.entries.push({ spec, alarm, metric, threshold });
    return alarm;
  }

  /** `<prefix>-health`: ALARM when any child is, notifying `topic` on ALARM and OK. */
  compose(topic: ITopic): CompositeAlarm {
    if (this.entries.length === 0) throw new Error(`${this.prefix}: no alarms to compose`);
    const composite = new CompositeAlarm(this, 'Health', {
      compositeAlarmName: `${this.prefix}-health`,
      alarmDescription:
        `Any alarm of ${this.prefix} is in ALARM: open the alarm list (or the ${this.prefix} dashboard) ` +
        `to see which, then follow its line in ${RUNBOOK}.`,
      alarmRule: AlarmRule.anyOf(...this.entries.map((e) => e.alarm)),
    });
    const action = new SnsAction(topic);
    composite.addAlarmAction(action);
    composite.addOkAction(action);
    return composite;
  }
}
