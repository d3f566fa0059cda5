/**
 * The CloudWatch metrics the platform publishes itself (embedded metric format), declared once: the
 * services and the internal-CA Lambda write them, the CDK alarms and dashboards (lib/monitoring/) read
 * them. Changing a name here changes both sides together.
 *
 * Every metric carries the dimensions `Project` (config project_name) and `Region` (the deployment
 * region the publisher runs in); certificate metrics add `Certificate`.
 *
 * Publishing (cluster/shared/emf-publisher.ts): the services send one EMF document per loop per
 * METRICS_INTERVAL_MS (60 s) to `/<project>/<region>/platform-metrics`; the internal-CA function logs one
 * line per daily run. Statistics: backlog values (depth, oldest age) are published by every replica
 * with the same value, so read them with Maximum; counts (webhook deliveries, cost reports) are each
 * replica's own, so Sum them.
 */

/** CloudWatch namespace of every platform-published metric. */
export const PLATFORM_METRICS_NAMESPACE = 'GCO/Platform';

/** Dimension names, in the order of the EMF dimension set. */
export const PLATFORM_DIMENSIONS = ['Project', 'Region'] as const;
export const CERTIFICATE_DIMENSIONS = ['Project', 'Region', 'Certificate'] as const;

/** Which internal certificate a days-to-expiry value is about. */
export type CertificateName = 'alb' | 'services';

/** Metric names, by publisher. Units are CloudWatch units. */
export const PLATFORM_METRICS = {
  /** manifest-processor queue worker, once per loop iteration: jobs waiting for this region. */
  queueDepth: { name: 'QueueDepth', unit: 'Count' },
  /** manifest-processor queue worker: age of the oldest job waiting for this region (0 when none). */
  oldestQueuedJobAge: { name: 'OldestQueuedJobAgeSeconds', unit: 'Seconds' },
  /** manifest-processor webhook worker: deliveries that failed (non-2xx, timeout, refused), per flush. */
  webhookDeliveriesFailed: { name: 'WebhookDeliveriesFailed', unit: 'Count' },
  /** manifest-processor webhook worker: deliveries that succeeded, per flush. */
  webhookDeliveriesSucceeded: { name: 'WebhookDeliveriesSucceeded', unit: 'Count' },
  /** manifest-processor webhook worker: outbox entries waiting for delivery. */
  webhookOutboxDepth: { name: 'WebhookOutboxDepth', unit: 'Count' },
  /** manifest-processor webhook worker: age of the oldest undelivered outbox entry (0 when none). */
  oldestWebhookOutboxAge: { name: 'OldestWebhookOutboxEntryAgeSeconds', unit: 'Seconds' },
  /** cost-monitor scheduler: 1 per scheduled cost report written. */
  costReportsWritten: { name: 'CostReportsWritten', unit: 'Count' },
  /** cost-monitor scheduler: 1 per scheduled cost report that failed. */
  costReportFailures: { name: 'CostReportFailures', unit: 'Count' },
  /** internal-CA renewal Lambda, daily: whole days until the certificate's notAfter. */
  certificateDaysToExpiry: { name: 'InternalCertificateDaysToExpiry', unit: 'Count' },
} as const;

export type PlatformMetricId = keyof typeof PLATFORM_METRICS;
