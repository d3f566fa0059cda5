// The webhook outbox backlog metrics, published once for the deployment (lambda/webhook-outbox-metrics):
// the outbox is one central table, so the global stack that owns it measures it, every minute, and
// alarms on it (lib/monitoring/global-monitoring.ts). Created directly in the stack.
import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { webhookOutboxMetricsEnvironment } from '../../../contracts/env/webhook-outbox-metrics.js';
import { TABLES } from '../../../contracts/tables.js';
import { PlatformFunction } from '../../constructs/platform-function.js';

/** Matches the services' METRICS_INTERVAL_MS (60 s): the outbox alarms' 5-minute periods see 5 samples. */
const SAMPLE_EVERY = Duration.minutes(1);

export function addWebhookOutboxMetrics(
  stack: Construct,
  projectName: string,
  deliveries: ITableV2,
): PlatformFunction {
  const fn = new PlatformFunction(stack, 'WebhookOutboxMetrics', {
    entryName: 'webhook-outbox-metrics',
    description: `${projectName}: publishes the webhook outbox depth and oldest-item age (one central table)`,
    // A paginated Query of the pending index; far below this even for a large backlog.
    timeout: Duration.seconds(50),
    invokedBy: 'eventbridge-schedule',
    memorySize: 256,
    environment: webhookOutboxMetricsEnvironment({
      deliveriesTable: deliveries.tableName,
      project: projectName,
    }),
  });
  // Only the one Query the backlog needs, on the index of undelivered items.
  const index = TABLES.webhookDeliveries.indexes[0].indexName;
  fn.addToRolePolicy(
    new PolicyStatement({
      sid: 'QueryOutboxPendingIndex',
      actions: ['dynamodb:Query'],
      resources: [`${deliveries.tableArn}/index/${index}`],
    }),
  );
  const schedule = new Rule(stack, 'WebhookOutboxMetricsSchedule', {
    description: `${projectName}: samples the webhook outbox backlog every minute`,
    schedule: Schedule.rate(SAMPLE_EVERY),
  });
  // A sample older than its interval is worth nothing: no retries beyond the next minute.
  schedule.addTarget(new LambdaFunction(fn, { retryAttempts: 0, maxEventAge: Duration.minutes(1) }));
  NagSuppressions.addResourceSuppressions(schedule, [
    {
      id: 'Serverless-EventBusDLQ',
      reason:
        'A missed sample needs no replay: the next minute samples the backlog again; failed runs show in ' +
        'the function Errors alarm',
    },
  ]);
  return fn;
}
