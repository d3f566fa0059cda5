/**
 * The alarms of one Lambda function: Errors and Throttles; for a streaming function, the longest
 * Duration against its timeout (a stream cut by the timeout ends the caller's response mid-way). A
 * scheduled function (the signing-key rotation, the internal-CA custom resources and daily renewal) runs
 * too rarely for rates: one Errors alarm that fires on any failed run.
 */
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { AlarmSet } from './alarm-set.js';

export interface MonitoredFunction {
  /** Alarm id prefix, e.g. `aggregator`. */
  readonly id: string;
  /** For humans, e.g. `Aggregator function`. */
  readonly title: string;
  readonly fn: LambdaFunction;
  /** A streaming function: also the Duration alarm, against the function's own timeout. */
  readonly streaming?: true;
}

/** `<id>-errors` of a function that runs a few times a day at most: any error in an hour. */
export function addScheduledFunctionAlarm(
  set: AlarmSet,
  f: Pick<MonitoredFunction, 'id' | 'title' | 'fn'>,
): void {
  set.add({
    id: `${f.id}-errors`,
    title: `${f.title}: failed runs`,
    policy: 'scheduledFunctionErrors',
    metric: f.fn.metricErrors(),
  });
}

export function addFunctionAlarms(set: AlarmSet, f: MonitoredFunction): void {
  set.add({
    id: `${f.id}-errors`,
    title: `${f.title}: errors`,
    policy: 'lambdaErrors',
    metric: f.fn.metricErrors(),
  });
  set.add({
    id: `${f.id}-throttles`,
    title: `${f.title}: throttles`,
    policy: 'lambdaThrottles',
    metric: f.fn.metricThrottles(),
  });
  if (f.streaming) {
    const timeout = f.fn.timeout;
    if (!timeout) throw new Error(`${f.id}: a streaming function without a timeout`);
    set.add({
      id: `${f.id}-duration`,
      title: `${f.title}: longest stream vs the ${timeout.toSeconds()} s timeout`,
      policy: 'streamDurationNearTimeout',
      metric: f.fn.metricDuration(),
      timeout: timeout.toMilliseconds(),
    });
  }
}
