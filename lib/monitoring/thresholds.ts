/**
 * Every alarm's statistic, threshold, period, evaluation and missing-data treatment, declared once with
 * the reason for each (docs/operations.md "Alarms and runbook" quotes them). The alarm sets
 * (lib/monitoring/*-alarms.ts) only choose the metric; tests assert the synthesized alarms against this
 * table.
 */
import { ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';

export interface AlarmPolicy {
  /** CloudWatch statistic of the alarmed metric (for metric math: of each metric in the expression). */
  readonly statistic: string;
  /**
   * The threshold, in the metric's unit. For `relativeToTimeout` policies, a fraction of the
   * timeout the alarm set passes in (API integration timeout, Lambda function timeout).
   */
  readonly threshold: number;
  readonly relativeToTimeout?: true;
  readonly comparison: ComparisonOperator;
  readonly periodSeconds: number;
  readonly evaluationPeriods: number;
  readonly datapointsToAlarm: number;
  readonly missingData: TreatMissingData;
  /** One line: why this threshold and missing-data treatment. */
  readonly why: string;
}

const {
  GREATER_THAN_THRESHOLD: GT,
  GREATER_THAN_OR_EQUAL_TO_THRESHOLD: GTE,
  LESS_THAN_THRESHOLD: LT,
} = ComparisonOperator;
const { BREACHING, NOT_BREACHING } = TreatMissingData;

const MINUTES = 60;
const HOURS = 3600;
const DAYS = 86_400;

/** Every alarm here breaches on `periods` periods in a row (datapoints = evaluation periods). */
function inARow(
  periods: number,
  periodSeconds: number = 5 * MINUTES,
): Pick<AlarmPolicy, 'periodSeconds' | 'evaluationPeriods' | 'datapointsToAlarm'> {
  return { periodSeconds, evaluationPeriods: periods, datapointsToAlarm: periods };
}

export const ALARM_POLICIES = {
  // ---- API Gateway (every API: global, each regional, analytics) ----------------------------------
  apiServerErrorRate: {
    statistic: 'Average',
    threshold: 0.05,
    comparison: GT,
    ...inARow(2),
    missingData: NOT_BREACHING,
    why: '5XXError is 0/1 per request, so its Average is the 5XX rate; over 5% for 10 minutes is more than one failing backend call. No requests, no errors: missing is OK.',
  },
  apiClientErrorRate: {
    statistic: 'Average',
    threshold: 0.25,
    comparison: GT,
    ...inARow(3),
    missingData: NOT_BREACHING,
    why: 'A 4XX spike (a quarter of all requests for 15 minutes) is a broken client, expired credentials, throttling or a probe; the occasional 404 stays well below.',
  },
  apiLatencyP99: {
    statistic: 'p99',
    threshold: 0.8,
    relativeToTimeout: true,
    comparison: GT,
    ...inARow(3),
    missingData: NOT_BREACHING,
    why: 'p99 above 80% of the routes’ integration timeout (29 s → 23.2 s) for 15 minutes: the slowest requests are about to be cut with a 504. Streaming routes are covered by the stream proxies’ Duration alarm instead.',
  },

  // ---- Lambda (every API function; the stream proxies' duration) ----------------------------------
  lambdaErrors: {
    statistic: 'Sum',
    threshold: 5,
    comparison: GTE,
    ...inARow(2),
    missingData: NOT_BREACHING,
    why: 'Handlers answer expected failures themselves; an Errors count (unhandled error, timeout, crash) of 5 per 5 minutes, twice in a row, is a code or dependency fault.',
  },
  lambdaThrottles: {
    statistic: 'Sum',
    threshold: 5,
    comparison: GTE,
    ...inARow(2),
    missingData: NOT_BREACHING,
    why: 'Throttles mean the account or function concurrency limit is reached and callers get 429/502; a burst of a few is tolerated.',
  },
  scheduledFunctionErrors: {
    statistic: 'Sum',
    threshold: 1,
    comparison: GTE,
    ...inARow(1, 1 * HOURS),
    missingData: NOT_BREACHING,
    why: 'Runs once a day or a few times per rotation, so one failed run is the whole signal: any Errors in an hour alarm, and the next hour without one is OK again (one notification per failed run).',
  },
  streamDurationNearTimeout: {
    statistic: 'Maximum',
    threshold: 0.95,
    relativeToTimeout: true,
    comparison: GTE,
    ...inARow(1),
    missingData: NOT_BREACHING,
    why: 'An inference stream that reaches 95% of the 900 s function timeout (855 s) is about to be cut mid-response; one is enough to look.',
  },

  // ---- internal ALB ---------------------------------------------------------------------------------
  albElb5xx: {
    statistic: 'Sum',
    threshold: 10,
    comparison: GTE,
    ...inARow(2),
    missingData: NOT_BREACHING,
    why: 'ELB 5XX are answered by the load balancer itself (no healthy target, target connection failure); 10 per 5 minutes, twice, is not a single pod restart.',
  },
  albTarget5xx: {
    statistic: 'Sum',
    threshold: 25,
    comparison: GTE,
    ...inARow(2),
    missingData: NOT_BREACHING,
    why: 'Services answer 5XX only on their own faults (backend unavailable, bugs); 25 per 5 minutes for 10 minutes is sustained.',
  },
  albNoHealthyTargets: {
    statistic: 'Minimum',
    threshold: 1,
    comparison: LT,
    ...inARow(3, 1 * MINUTES),
    missingData: BREACHING,
    why: 'Zero healthy targets for 3 minutes: every request to that service fails. The ALB publishes the count every minute while the target group is in use, so silence counts as zero.',
  },
  albUnhealthyTargets: {
    statistic: 'Maximum',
    threshold: 1,
    comparison: GTE,
    ...inARow(10, 1 * MINUTES),
    missingData: NOT_BREACHING,
    why: 'A target unhealthy for 10 minutes is not a rolling update (pods turn healthy within a minute); capacity is reduced.',
  },
  albClientTlsErrors: {
    statistic: 'Sum',
    threshold: 10,
    comparison: GTE,
    ...inARow(1),
    missingData: NOT_BREACHING,
    why: 'The only clients are the platform’s proxies, which trust the internal CA: TLS negotiation failures mean a certificate or CA mismatch (or a scan through the accelerator).',
  },
  albTargetTlsErrors: {
    statistic: 'Sum',
    threshold: 1,
    comparison: GTE,
    ...inARow(2),
    missingData: NOT_BREACHING,
    why: 'The ALB failing TLS to the pods for 10 minutes: the pods’ service certificate or its secret is broken.',
  },
  acmDaysToExpiry: {
    statistic: 'Minimum',
    threshold: 21,
    comparison: LT,
    ...inARow(1, 1 * DAYS),
    missingData: NOT_BREACHING,
    why: 'Renewal re-imports the ALB certificate 30 days before expiry; under 21 days means 9 daily renewals failed. Missing is left to the platform metric below.',
  },

  // ---- platform metrics (GCO/Platform, contracts/platform-metrics.ts) ------------------------
  internalCertificateDaysToExpiry: {
    statistic: 'Minimum',
    threshold: 21,
    comparison: LT,
    ...inARow(2, 1 * DAYS),
    missingData: BREACHING,
    why: 'The renewal Lambda re-issues 30 days before expiry and reports daily: under 21 days (or two days with no report, the renewal not running) leaves time to renew by hand.',
  },
  queueOldestJobAge: {
    statistic: 'Maximum',
    threshold: 15 * MINUTES,
    comparison: GT,
    ...inARow(2),
    missingData: BREACHING,
    why: 'A job waiting over 15 minutes for 10 minutes: the region is not taking work. The queue worker reports every loop, so silence means the worker stopped.',
  },
  queueDepth: {
    statistic: 'Maximum',
    threshold: 500,
    comparison: GT,
    ...inARow(3),
    missingData: NOT_BREACHING,
    why: 'More than 500 queued jobs for 15 minutes: submissions outpace the region; the age alarm covers a stopped worker.',
  },
  webhookDeliveriesFailed: {
    statistic: 'Sum',
    threshold: 10,
    comparison: GTE,
    ...inARow(2),
    missingData: NOT_BREACHING,
    why: 'Failed deliveries are retried from the outbox; 10 per 5 minutes for 10 minutes is a receiver that is down or refusing.',
  },
  webhookOutboxAge: {
    statistic: 'Maximum',
    threshold: 15 * MINUTES,
    comparison: GT,
    ...inARow(2),
    missingData: NOT_BREACHING,
    why: 'An event undelivered for over 15 minutes: subscribers are getting stale news. Sampled every minute by the global stack (one central outbox); a sampler that fails is caught by its own Errors alarm.',
  },
  webhookOutboxDepth: {
    statistic: 'Maximum',
    threshold: 1000,
    comparison: GT,
    ...inARow(3),
    missingData: NOT_BREACHING,
    why: 'More than 1000 undelivered events for 15 minutes: the outbox is backing up faster than it drains.',
  },
  costReportMissed: {
    statistic: 'Sum',
    threshold: 1,
    comparison: LT,
    ...inARow(1, 2 * HOURS),
    missingData: BREACHING,
    why: 'cost-monitor writes one report per hourly window (REPORT_INTERVAL_MINUTES=60, 5 minutes settle); none in 2 hours is a missed report, and no data at all is exactly that.',
  },

  // ---- global stack ---------------------------------------------------------------------------------
  wafBlockedRequests: {
    statistic: 'Sum',
    threshold: 500,
    comparison: GT,
    ...inARow(2),
    missingData: NOT_BREACHING,
    why: 'Callers are the account’s own principals: over 500 blocks per 5 minutes for 10 minutes is an attack or a legitimate client tripping a rule.',
  },
  dynamoThrottles: {
    statistic: 'Sum',
    threshold: 10,
    comparison: GTE,
    ...inARow(2),
    missingData: NOT_BREACHING,
    why: 'On-demand tables throttle only on a hot partition or a sudden jump past twice the previous peak; SDK retries absorb a few, 10 per 5 minutes for 10 minutes reach callers.',
  },

  // ---- analytics stack ------------------------------------------------------------------------------
  kinesisIteratorAge: {
    statistic: 'Maximum',
    threshold: 6 * HOURS * 1000,
    comparison: GT,
    ...inARow(3),
    missingData: NOT_BREACHING,
    why: 'The warehouse consumer 6 hours behind (milliseconds) is stalled well before the 7-day retention loses events. No consumer (no warehouse), no metric.',
  },
  kinesisWriteThrottles: {
    statistic: 'Sum',
    threshold: 50,
    comparison: GTE,
    ...inARow(2),
    missingData: NOT_BREACHING,
    why: 'The on-demand stream throttles writes beyond twice its previous peak; the events function retries, but sustained throttling ends as failed records.',
  },
  eventsFailedRecordRate: {
    statistic: 'Sum',
    threshold: 0.01,
    comparison: GT,
    ...inARow(2),
    missingData: NOT_BREACHING,
    why: 'FailedRecordCount / Total of the answered batches (after the function’s retries): over 1% for 10 minutes means games must resend events.',
  },
} as const satisfies Record<string, AlarmPolicy>;

export type AlarmPolicyId = keyof typeof ALARM_POLICIES;
