/** The /api/v1/queue/* operations of manifest-processor (docs/queue.md, "Operations"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { QUEUE_RESPONSES as RESPONSES } from '../../../../contracts/api/manifest-processor-central.js';
import { HttpError, notFound, RequestValidationError } from '../../../shared/errors.js';
import type { ServiceApp } from '../../../shared/service.js';
import type { FieldCheck } from '../field-check.js';
import type { ValidationPolicy } from '../policy/index.js';
import { QUEUE_DEFAULTS } from './config.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { jobView, type QueuedJob } from './record.js';
import {
  CancelQuery,
  JobIdPath,
  ListQueuedJobsQuery,
  PollQuery,
  QueuedJobRequest,
  SubmitHeaders,
} from './schemas.js';
import { finishedAttributes, type QueueStore } from './store.js';
import { submitJob } from './submission.js';
import type { QueueWorker } from './worker.js';

export interface QueueRouteDeps {
  store: QueueStore;
  /** The same policy instance as the manifest routes (front-door checks are shared). */
  policy: ValidationPolicy;
  /** POST /queue/poll runs one pass of this worker (whether or not it also runs continuously). */
  worker: QueueWorker;
  /** The deployment's regions: a job's target_region must be one (DEPLOYMENT_REGIONS). */
  deploymentRegions: readonly string[];
  /** The API server's strict field check at submission (createQueue wires this region's cluster). */
  fieldCheck?: Pick<FieldCheck, 'refusalOf'>;
  idempotencyTtlHours?: number;
  retentionDays?: number;
  now?: () => number;
}

/** Header set on answers to POST /queue/jobs with an Idempotency-Key: true when it is a replay. */
const REPLAY_HEADER = 'idempotent-replayed';

export async function cancelQueuedJob(
  store: QueueStore,
  jobId: string,
  reason: string | undefined,
  now: number,
  retentionDays: number,
): Promise<QueuedJob> {
  const cancelled = await store.tryTransition(jobId, {
    expect: { status: 'queued', claimed_by: null },
    set: {
      ...finishedAttributes('cancelled', now, retentionDays),
      cancel_reason: reason ?? null,
      waiting_reason: null,
    },
    now,
  });
  if (cancelled) return cancelled;
  const current = await store.getJob(jobId);
  if (!current) throw notFound(`Queued job ${jobId} not found`);
  if (current.status === 'cancelled') return current; // a repeated DELETE is not an error
  const by = current.claimed_by ? ` by worker ${current.claimed_by}` : '';
  throw new HttpError(
    409,
    `Queued job ${jobId} is ${current.status}${current.status === 'claimed' ? by : ''}; only unclaimed queued jobs can be cancelled`,
  );
}

export const QUEUE_PREFIX = '/api/v1/queue';

const clock = (deps: QueueRouteDeps) => deps.now ?? Date.now;

/** jobView with its manifest, typed as always present (the response schema requires it). */
const fullView = (job: QueuedJob) => ({ ...jobView(job, { manifest: false }), manifest: job.manifest });

function submitRoute(app: ServiceApp, deps: QueueRouteDeps): void {
  app.post(
    '/jobs',
    {
      schema: {
        operationId: 'submit_job_to_queue_api_v1_queue_jobs_post',
        summary:
          'Queue one validated batch/v1 Job exactly once (Idempotency-Key: same key and body replay the job, another body is 409)',
        headers: SubmitHeaders,
        body: QueuedJobRequest,
        response: RESPONSES.submit,
      },
    },
    async (request, reply) => {
      const key = request.headers['idempotency-key'];
      const { job, replay } = await submitJob(
        {
          store: deps.store,
          policy: deps.policy,
          idempotencyTtlHours: deps.idempotencyTtlHours ?? QUEUE_DEFAULTS.idempotencyTtlHours,
          deploymentRegions: deps.deploymentRegions,
          ...(deps.fieldCheck ? { fieldCheck: deps.fieldCheck } : {}),
        },
        request.body,
        key,
        clock(deps)(),
      );
      request.log.info({ job_id: job.job_id, replay, target_region: job.target_region }, 'job queued');
      if (!replay) deps.worker.queued(job.target_region);
      if (key !== undefined) reply.header(REPLAY_HEADER, String(replay));
      return reply.code(200).send({ ...fullView(job), idempotent_replay: replay });
    },
  );
}

/** A well-formed cursor can still point outside the index (DynamoDB says so): still the caller's. */
function invalidCursor(cursor: string | undefined): RequestValidationError {
  return new RequestValidationError([
    {
      loc: ['query', 'cursor'],
      msg: 'Value error, invalid cursor: not a position of this listing',
      type: 'value_error',
      input: cursor,
    },
  ]);
}

function listRoute(app: ServiceApp, deps: QueueRouteDeps): void {
  app.get(
    '/jobs',
    {
      schema: {
        operationId: 'list_queued_jobs_api_v1_queue_jobs_get',
        summary: 'Queued jobs, newest first; pass next_cursor back as cursor for the next page',
        querystring: ListQueuedJobsQuery,
        response: RESPONSES.list,
      },
    },
    async (request) => {
      const q = request.query;
      const startKey = q.cursor === undefined ? undefined : decodeCursor(q.cursor, q.target_region);
      let page;
      try {
        page = await deps.store.list({
          targetRegion: q.target_region,
          status: q.status,
          namespace: q.namespace,
          limit: q.limit,
          startKey,
        });
      } catch (error) {
        if (startKey && error instanceof Error && error.name === 'ValidationException') {
          throw invalidCursor(q.cursor);
        }
        throw error;
      }
      return {
        jobs: page.jobs.map((job) => jobView(job, { manifest: false })),
        count: page.jobs.length,
        limit: q.limit,
        next_cursor: encodeCursor(page.nextKey),
      };
    },
  );
}

function getRoute(app: ServiceApp, deps: QueueRouteDeps): void {
  app.get(
    '/jobs/:job_id',
    {
      schema: {
        operationId: 'get_queued_job_api_v1_queue_jobs__job_id__get',
        summary: 'One queued job with its manifest, state, lease, waiting reason and Kubernetes Job',
        params: JobIdPath,
        response: RESPONSES.get,
      },
    },
    async (request) => {
      const job = await deps.store.getJob(request.params.job_id);
      if (!job) throw notFound(`Queued job ${request.params.job_id} not found`);
      return fullView(job);
    },
  );
}

function cancelRoute(app: ServiceApp, deps: QueueRouteDeps): void {
  const retentionDays = deps.retentionDays ?? QUEUE_DEFAULTS.retentionDays;
  app.delete(
    '/jobs/:job_id',
    {
      schema: {
        operationId: 'cancel_queued_job_api_v1_queue_jobs__job_id__delete',
        summary: 'Cancel a job while it is unclaimed in the queue (409 once a worker claimed it)',
        params: JobIdPath,
        querystring: CancelQuery,
        response: RESPONSES.cancel,
      },
    },
    async (request) => {
      const job = await cancelQueuedJob(
        deps.store,
        request.params.job_id,
        request.query.reason,
        clock(deps)(),
        retentionDays,
      );
      return fullView(job);
    },
  );
}

function pollRoute(app: ServiceApp, deps: QueueRouteDeps): void {
  app.post(
    '/poll',
    {
      schema: {
        operationId: 'poll_and_process_jobs_api_v1_queue_poll_post',
        summary: "Run one queue-worker pass for this processor's region now",
        querystring: PollQuery,
        response: RESPONSES.poll,
      },
    },
    async (request) => {
      const result = await deps.worker.pollOnce(request.query.limit);
      request.log.info(
        {
          dispatched: result.dispatched.length,
          requeued: result.requeued.length,
          waiting: result.waiting.length,
        },
        'queue poll',
      );
      return result;
    },
  );
}

function statsRoute(app: ServiceApp, deps: QueueRouteDeps): void {
  app.get(
    '/stats',
    {
      schema: {
        operationId: 'get_queue_stats_api_v1_queue_stats_get',
        summary: 'Queued job counts by region and status',
        response: RESPONSES.stats,
      },
    },
    async () => ({
      ...(await deps.store.stats()),
      generated_at: new Date(clock(deps)()).toISOString(),
    }),
  );
}

export const queueRoutes: FastifyPluginAsyncTypebox<QueueRouteDeps> = async (app, deps) => {
  for (const route of [submitRoute, listRoute, getRoute, cancelRoute, pollRoute, statsRoute]) {
    route(app, deps);
  }
};
