/**
 * How a Kubernetes Job is presented: its status in the seed's JobStatus vocabulary and the JSON view
 * returned by the jobs operations.
 *
 * Status of a job: `failed` (condition Failed), `succeeded` (condition Complete), `running` (a pod is
 * running/ready), otherwise `pending` (queued, unscheduled, pulling, or suspended). `completed` is never a
 * job's own status: as a filter it means "finished", i.e. succeeded or failed.
 */
import type { V1Job } from '@kubernetes/client-node';
import type { JobStatus } from './schemas.js';

export type JobState = Exclude<JobStatus, 'completed'>;

function conditionTrue(job: V1Job, type: string): boolean {
  return (job.status?.conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

export function jobState(job: V1Job): JobState {
  if (conditionTrue(job, 'Failed')) return 'failed';
  if (conditionTrue(job, 'Complete')) return 'succeeded';
  if (job.spec?.suspend) return 'pending';
  if ((job.status?.ready ?? 0) > 0) return 'running';
  return 'pending';
}

export function matchesStatus(job: V1Job, filter: JobStatus): boolean {
  const state = jobState(job);
  return filter === 'completed' ? state === 'succeeded' || state === 'failed' : state === filter;
}

/** client-node hands dates back as Date objects (or strings for generic objects). */
export function isoDate(value: Date | string | undefined | null): string | null {
  if (value === undefined || value === null) return null;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function completedAt(job: V1Job): string | null {
  const finished = (job.status?.conditions ?? []).find(
    (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
  );
  return isoDate(job.status?.completionTime ?? finished?.lastTransitionTime);
}

export interface JobView {
  name: string;
  namespace: string;
  uid: string | null;
  status: JobState;
  created_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  active: number;
  ready: number;
  succeeded: number;
  failed: number;
  parallelism: number | null;
  completions: number | null;
  backoff_limit: number | null;
  images: string[];
  conditions: {
    type: string;
    status: string;
    reason: string | null;
    message: string | null;
    last_transition_time: string | null;
  }[];
}

export function kubernetesJobView(job: V1Job): JobView {
  const containers = job.spec?.template.spec?.containers ?? [];
  return {
    name: job.metadata?.name ?? '',
    namespace: job.metadata?.namespace ?? '',
    uid: job.metadata?.uid ?? null,
    status: jobState(job),
    created_at: isoDate(job.metadata?.creationTimestamp),
    started_at: isoDate(job.status?.startTime),
    completed_at: completedAt(job),
    labels: job.metadata?.labels ?? {},
    annotations: job.metadata?.annotations ?? {},
    active: job.status?.active ?? 0,
    ready: job.status?.ready ?? 0,
    succeeded: job.status?.succeeded ?? 0,
    failed: job.status?.failed ?? 0,
    parallelism: job.spec?.parallelism ?? null,
    completions: job.spec?.completions ?? null,
    backoff_limit: job.spec?.backoffLimit ?? null,
    images: containers.map((c) => c.image ?? ''),
    conditions: (job.status?.conditions ?? []).map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason ?? null,
      message: c.message ?? null,
      last_transition_time: isoDate(c.lastTransitionTime),
    })),
  };
}

/** Sort keys of GET /api/v1/jobs (schemas.ts JOB_SORT_FIELDS) → the view field they order by. */
const SORT_KEYS: Record<string, (v: JobView) => string> = {
  createdAt: (v) => v.created_at ?? '',
  name: (v) => v.name,
  namespace: (v) => v.namespace,
  status: (v) => v.status,
  startedAt: (v) => v.started_at ?? '',
  completedAt: (v) => v.completed_at ?? '',
};

/** Stable sort by `field:direction`; ties broken by namespace/name so pages never shuffle. */
export function sortJobs(views: JobView[], sort: string): JobView[] {
  const [field = 'createdAt', direction = 'desc'] = sort.split(':');
  const key = SORT_KEYS[field] ?? SORT_KEYS.createdAt!;
  const sign = direction === 'asc' ? 1 : -1;
  return [...views].sort(
    (a, b) =>
      sign * key(a).localeCompare(key(b)) ||
      `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`),
  );
}
