/**
 * The CloudWatch metrics the platform publishes itself (embedded metric format), declared once: the
 * services and the internal-CA Lambda write them, the CDK alarms and dashboards (lib/monitoring/) read
 * them. Changing a name here changes both sides together.
 *
 * Every metric carries the dimensions `Project` (config project_name) and `Region` (the deployment
 * region the publisher runs in, or CENTRAL_REGION for the central tables' metrics); certificate metrics
 * add `Certificate`.
 *
 * Publishing (cluster/shared/emf-publisher.ts): the services send one EMF document per loop per
 * METRICS_INTERVAL_MS (60 s) to `/<project>/<region>/platform-metrics`; the internal-CA function logs one
 * line per daily run. Statistics: backlog values (depth, oldest age) are published by every replica
 * with the same value, so read them with Maximum; counts (webhook deliveries, cost reports) are each
 * replica's own, so Sum them.
 */

/** CloudWatch namespace of every platform-published metric. */
export const PLATFORM_METRICS_NAMESPACE = 'GCO/Platform';

/**
 * `Region` of the metrics about the central tables (the webhook outbox backlog): one table for every
 * region, published once by the global stack's webhook-outbox-metrics function, never per region.
 */
export const CENTRAL_REGION = 'global';

/** Dimension names, in the order of the EMF dimension set. */
export const PLATFORM_DIMENSIONS = ['Project', 'Region'] as const;
export const CERTIFICATE_DIMENSIONS = ['Project', 'Region', 'Certificate'] as const;

/** Which internal certificate a days-to-expiry value is about. */
export type CertificateName = 'alb' | 'services' | 'inference';

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
  /**
   * Outbox entries waiting for delivery: the global stack's webhook-outbox-metrics function, every
   * minute, Region = CENTRAL_REGION (the alarmed one); each region's webhook worker also reports the same
   * backlog under its own Region.
   */
  webhookOutboxDepth: { name: 'WebhookOutboxDepth', unit: 'Count' },
  /** Age of the oldest undelivered outbox entry (0 when none); published like webhookOutboxDepth. */
  oldestWebhookOutboxAge: { name: 'OldestWebhookOutboxEntryAgeSeconds', unit: 'Seconds' },
  /** cost-monitor scheduler: 1 per scheduled cost report written. */
  costReportsWritten: { name: 'CostReportsWritten', unit: 'Count' },
  /** cost-monitor scheduler: 1 per scheduled cost report that failed. */
  costReportFailures: { name: 'CostReportFailures', unit: 'Count' },
  /** internal-CA renewal Lambda, daily: whole days until the certificate's notAfter. */
  certificateDaysToExpiry: { name: 'InternalCertificateDaysToExpiry', unit: 'Count' },
} as const;

export type PlatformMetricId = keyof typeof PLATFORM_METRICS;
