/**
 * The alarms of one Lambda function: Errors and Throttles; for a streaming function, the longest
 * Duration against its timeout (a stream cut by the timeout ends the caller's response mid-way).
 */
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Duration } from 'aws-cdk-lib';
import type { AlarmSet } from './alarm-set.js';

export interface MonitoredFunction {
  /** Alarm id prefix, e.g. `aggregator`. */
  readonly id: string;
  /** For humans, e.g. `Aggregator function`. */
  readonly title: string;
  readonly fn: IFunction;
  /** The function's timeout: given for streaming functions, which get the Duration alarm. */
  readonly streamingTimeout?: Duration;
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
  if (f.streamingTimeout) {
    set.add({
      id: `${f.id}-duration`,
      title: `${f.title}: longest stream vs the ${f.streamingTimeout.toSeconds()} s timeout`,
      policy: 'streamDurationNearTimeout',
      metric: f.fn.metricDuration(),
      timeout: f.streamingTimeout.toMilliseconds(),
    });
  }
}
