/**
 * Which webhook events a Kubernetes Job has reached, and the delivery payload for each. Events are derived
 * from the job's current state (not from watching changes), so any replica, at any time, derives the same
 * set, and the deterministic delivery id turns "seen again" into a no-op.
 *
 * - job.started: the job controller started it (startTime with active pods), a pod is ready, or it already
 *   finished (a job that finished has started, even if no poll caught it running).
 * - job.completed: condition Complete=True (the seed's `succeeded` status).
 * - job.failed: condition Failed=True.
 */
import { createHash } from 'node:crypto';
import type { V1Job, V1JobCondition } from '@kubernetes/client-node';
import { isoDate, jobState } from '../job-view.js';
import type { WebhookEvent } from './store.js';

export interface JobEvent {
  event: WebhookEvent;
  /** When the transition happened (epoch ms), from the job's own timestamps. */
  at: number;
}

function condition(job: V1Job, type: string): V1JobCondition | undefined {
  return (job.status?.conditions ?? []).find((c) => c.type === type && c.status === 'True');
}

function epoch(value: Date | string | undefined | null, fallback: number): number {
  const iso = isoDate(value);
  return iso ? Date.parse(iso) : fallback;
}

/** Events the job has reached, in the order they happened (started first). `now` stands in for missing times. */
export function deriveJobEvents(job: V1Job, now: number): JobEvent[] {
  const complete = condition(job, 'Complete');
  const failed = condition(job, 'Failed');
  const finished = complete ?? failed;
  const status = job.status ?? {};
  const started =
    finished !== undefined ||
    (status.startTime !== undefined && (status.active ?? 0) > 0) ||
    (status.ready ?? 0) > 0;
  const events: JobEvent[] = [];
  if (started)
    events.push({
      event: 'job.started',
      at: epoch(status.startTime ?? job.metadata?.creationTimestamp, now),
    });
  if (failed) events.push({ event: 'job.failed', at: epoch(failed.lastTransitionTime, now) });
  else if (complete) {
    events.push({
      event: 'job.completed',
      at: epoch(status.completionTime ?? complete.lastTransitionTime, now),
    });
  }
  return events;
}

/** sha256(webhook id, job uid, event): the same transition yields the same id on every replica. */
export function deliveryId(webhookId: string, jobUid: string, event: WebhookEvent): string {
  return createHash('sha256').update(`${webhookId}\n${jobUid}\n${event}`).digest('hex');
}

export interface JobPayload {
  namespace: string;
  name: string;
  uid: string;
  status: string;
  labels: Record<string, string>;
  created_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  active: number;
  succeeded: number;
  failed: number;
  /** Reason/message of the Complete or Failed condition, when finished. */
  reason: string | null;
  message: string | null;
  region: string | null;
  cluster: string | null;
}

export interface DeliveryPayload {
  delivery_id: string;
  webhook_id: string;
  event: WebhookEvent;
  /** When the transition happened (ISO 8601). */
  timestamp: string;
  job: JobPayload;
}

export function jobPayload(job: V1Job, source: { region?: string; cluster?: string } = {}): JobPayload {
  const finished = condition(job, 'Failed') ?? condition(job, 'Complete');
  const completedAt = isoDate(job.status?.completionTime ?? finished?.lastTransitionTime);
  return {
    namespace: job.metadata?.namespace ?? '',
    name: job.metadata?.name ?? '',
    uid: job.metadata?.uid ?? '',
    status: jobState(job),
    labels: job.metadata?.labels ?? {},
    created_at: isoDate(job.metadata?.creationTimestamp),
    started_at: isoDate(job.status?.startTime),
    completed_at: finished ? completedAt : null,
    active: job.status?.active ?? 0,
    succeeded: job.status?.succeeded ?? 0,
    failed: job.status?.failed ?? 0,
    reason: finished?.reason ?? null,
    message: finished?.message ?? null,
    region: source.region ?? null,
    cluster: source.cluster ?? null,
  };
}
