/**
 * The /api/v1/jobs operations (docs/manifest-processor.md). Everything under `/{namespace}/{name}` is
 * one scope whose preHandler confines it to the allowed namespaces; the list and the bulk delete search
 * every allowed namespace, or the one they are given.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MANIFEST_PROCESSOR_RESPONSES as RESPONSES } from '../../../../contracts/api/manifest-processor.js';
import { HttpError, RequestValidationError } from '../../../shared/errors.js';
import type { ServiceApp } from '../../../shared/service.js';
import { assertNamespaceAllowed, namespaceGuard, type ProcessorContext } from '../context.js';
import { kubernetesJobView } from '../job-view.js';
import { equalitySelector } from '../label-selector.js';
import {
  BulkDeleteRequest,
  DeleteJobQuery,
  JobLogsQuery,
  JobPath,
  ListJobsQuery,
  PodLogsQuery,
  PodPath,
} from '../schemas.js';

export const JOBS_PREFIX = '/api/v1/jobs';

/** The parsed `label_selector` of a query or a body, when one is given. */
const selectorOf = (selector: string | null | undefined, part: 'query' | 'body') =>
  selector ? equalitySelector(selector, [part, 'label_selector']) : null;

/** A namespace filter must be allowed; without one, every allowed namespace is searched. */
function namespacesFor(ctx: ProcessorContext, namespace: string | null | undefined): string[] {
  if (!namespace) return ctx.policy.config.allowedNamespaces;
  assertNamespaceAllowed(ctx.policy, namespace);
  return [namespace];
}

function listJobsRoute(app: ServiceApp, ctx: ProcessorContext): void {
  app.get(
    '',
    {
      schema: {
        operationId: 'list_jobs_api_v1_jobs_get',
        summary: 'List jobs: filters, sort (field:asc|desc), limit/offset, total and has_more',
        querystring: ListJobsQuery,
        response: RESPONSES.listJobs,
      },
    },
    async (request) => {
      const q = request.query;
      const labelSelector = selectorOf(q.label_selector, 'query');
      return ctx.jobs.list(
        { namespaces: namespacesFor(ctx, q.namespace), status: q.status ?? null, labelSelector },
        { sort: q.sort, limit: q.limit, offset: q.offset },
      );
    },
  );
}

function bulkDeleteRoute(app: ServiceApp, ctx: ProcessorContext): void {
  app.delete(
    '',
    {
      schema: {
        operationId: 'bulk_delete_jobs_api_v1_jobs_delete',
        summary: 'Delete the jobs matching every given filter (dry_run reports them and deletes nothing)',
        body: BulkDeleteRequest,
        response: RESPONSES.bulkDelete,
      },
    },
    async (request) => {
      const b = request.body;
      const labelSelector = selectorOf(b.label_selector, 'body');
      // A filterless bulk delete would empty every allowed namespace: refuse it unless it is a dry run.
      if (!b.dry_run && !labelSelector && !b.namespace && !b.older_than_days && !b.status) {
        throw new RequestValidationError([
          {
            loc: ['body'],
            msg: 'Value error, give at least one filter (namespace, status, label_selector, older_than_days) or set dry_run',
            type: 'value_error',
            input: b,
          },
        ]);
      }
      const result = await ctx.jobs.bulkDelete(
        {
          namespaces: namespacesFor(ctx, b.namespace),
          status: b.status ?? null,
          labelSelector,
          olderThanDays: b.older_than_days ?? null,
        },
        b.dry_run,
      );
      request.log.info(
        { dry_run: b.dry_run, matched: result.matched, deleted: result.deleted },
        'bulk delete',
      );
      return result;
    },
  );
}

export const jobRoutes: FastifyPluginAsyncTypebox<ProcessorContext> = async (app, ctx) => {
  listJobsRoute(app, ctx);
  bulkDeleteRoute(app, ctx);
  await app.register(oneJobRoutes, { ...ctx, prefix: '/:namespace/:name' });
};

function jobRoute(app: ServiceApp, ctx: ProcessorContext): void {
  app.get(
    '',
    {
      schema: {
        operationId: 'get_job_api_v1_jobs__namespace___name__get',
        summary: 'Job details including where pods were scheduled',
        params: JobPath,
        response: RESPONSES.job,
      },
    },
    async (request) => ctx.jobs.details(request.params.namespace, request.params.name),
  );
}

function deleteJobRoute(app: ServiceApp, ctx: ProcessorContext): void {
  app.delete(
    '',
    {
      schema: {
        operationId: 'delete_job_api_v1_jobs__namespace___name__delete',
        summary: 'Delete a job (background propagation); expected_uid is an orchestrator UID precondition',
        params: JobPath,
        querystring: DeleteJobQuery,
        response: RESPONSES.deleteJob,
      },
    },
    async (request) => {
      const { namespace, name } = request.params;
      const result = await ctx.jobs.delete(namespace, name, request.query.expected_uid);
      request.log.info({ namespace, name, expected_uid: request.query.expected_uid ?? null }, 'job deleted');
      return result;
    },
  );
}

function jobEventsRoute(app: ServiceApp, ctx: ProcessorContext): void {
  app.get(
    '/events',
    {
      schema: {
        operationId: 'get_job_events_api_v1_jobs__namespace___name__events_get',
        summary: 'Events of the job and its pods',
        params: JobPath,
        response: RESPONSES.jobEvents,
      },
    },
    async (request) => ctx.jobs.events(request.params.namespace, request.params.name),
  );
}

function jobLogsRoute(app: ServiceApp, ctx: ProcessorContext): void {
  app.get(
    '/logs',
    {
      schema: {
        operationId: 'get_job_logs_api_v1_jobs__namespace___name__logs_get',
        summary: "Logs of the job's started pods (404 without pods, 409 while all are pending)",
        params: JobPath,
        querystring: JobLogsQuery,
        response: RESPONSES.jobLogs,
      },
    },
    async (request) => {
      const q = request.query;
      return ctx.jobs.jobLogs(request.params.namespace, request.params.name, {
        ...(q.container ? { container: q.container } : {}),
        tail: q.tail,
        previous: q.previous,
        ...(q.since_seconds ? { sinceSeconds: q.since_seconds } : {}),
        timestamps: q.timestamps,
      });
    },
  );
}

function jobMetricsRoute(app: ServiceApp, ctx: ProcessorContext): void {
  app.get(
    '/metrics',
    {
      schema: {
        operationId: 'get_job_metrics_api_v1_jobs__namespace___name__metrics_get',
        summary: "Resource usage of the job's pods",
        params: JobPath,
        response: RESPONSES.jobMetrics,
      },
    },
    async (request) => ctx.jobs.jobMetrics(request.params.namespace, request.params.name),
  );
}

function jobPodsRoute(app: ServiceApp, ctx: ProcessorContext): void {
  app.get(
    '/pods',
    {
      schema: {
        operationId: 'get_job_pods_api_v1_jobs__namespace___name__pods_get',
        summary: 'Pods of the job with the hardware each landed on',
        params: JobPath,
        response: RESPONSES.jobPods,
      },
    },
    async (request) => {
      const { namespace, name } = request.params;
      const pods = await ctx.jobs.podPlacements(await ctx.jobs.read(namespace, name));
      return { job: name, namespace, count: pods.length, pods };
    },
  );
}

function podLogsRoute(app: ServiceApp, ctx: ProcessorContext): void {
  app.get(
    '/pods/:pod_name/logs',
    {
      schema: {
        operationId: 'get_pod_logs_api_v1_jobs__namespace___name__pods__pod_name__logs_get',
        summary: 'Logs of one pod of the job',
        params: PodPath,
        querystring: PodLogsQuery,
        response: RESPONSES.podLogs,
      },
    },
    async (request) => {
      const { namespace, name, pod_name } = request.params;
      const q = request.query;
      return ctx.jobs.podLogs(namespace, name, pod_name, {
        ...(q.container ? { container: q.container } : {}),
        tail: q.tail,
        previous: q.previous,
      });
    },
  );
}

function retryJobRoute(app: ServiceApp, ctx: ProcessorContext): void {
  app.post(
    '/retry',
    {
      schema: {
        operationId: 'retry_job_api_v1_jobs__namespace___name__retry_post',
        summary: 'Create a new job from the spec of a failed job',
        params: JobPath,
        response: RESPONSES.retryJob,
      },
    },
    async (request) => {
      const { namespace, name } = request.params;
      const { original, manifest } = await ctx.jobs.retryManifest(namespace, name);
      const violations = ctx.policy.check([manifest], namespace);
      if (violations.length > 0) {
        throw new HttpError(400, {
          message: 'the retried job no longer passes the validation policy',
          violations,
        });
      }
      const created = await ctx.jobs.create(namespace, manifest);
      request.log.info({ namespace, original: name, retry: created.metadata?.name }, 'job retried');
      return {
        retried: true,
        original: { name: original.name, namespace, uid: original.uid },
        job: kubernetesJobView(created),
      };
    },
  );
}

/** The operations on one job: its scope's preHandler checks the namespace once for all of them. */
const oneJobRoutes: FastifyPluginAsyncTypebox<ProcessorContext> = async (app, ctx) => {
  app.addHook('preHandler', namespaceGuard(ctx.policy));
  for (const route of [
    jobRoute,
    deleteJobRoute,
    jobEventsRoute,
    jobLogsRoute,
    jobMetricsRoute,
    jobPodsRoute,
    podLogsRoute,
    retryJobRoute,
  ]) {
    route(app, ctx);
  }
};
