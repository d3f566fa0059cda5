/**
 * `gco jobs …`: manifests submitted as jobs, and every job operation of manifest-processor
 * (docs/manifest-processor.md), plus the global API's all-regions list and bulk delete (docs/aggregator.md).
 */
import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { apiErrorOf } from '../api-errors.js';
import { DEFAULT_JOB_NAMESPACE, examples, type CommandKit } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { ApiError, UsageError } from '../errors.js';
import { pathOf, type ApiClient } from '../http.js';
import { readManifests } from '../input-files.js';
import { FINAL_JOB_STATES, requireSucceeded, waitUntilFinal, type WaitTarget } from '../job-wait.js';
import { followJobLogs } from '../log-follow.js';
import { integerIn } from '../options.js';
import {
  bulkDeleteView,
  createdJobView,
  deletedView,
  jobEventsView,
  jobListView,
  jobLogsView,
  jobMetricsView,
  jobPodsView,
  jobView,
  podLogsView,
  submissionView,
} from '../views.js';

export const JOB_STATUSES = ['pending', 'running', 'completed', 'succeeded', 'failed'] as const;
const DEFAULT_WAIT_SECONDS = 3600;

const jobPath = (namespace: string, name: string, ...rest: string[]) =>
  pathOf('api', 'v1', 'jobs', namespace, name, ...rest);

const namespaceOption = (description = 'namespace of the job') =>
  new Option('-n, --namespace <namespace>', description).default(DEFAULT_JOB_NAMESPACE);

export const waitTimeoutOption = () =>
  new Option('--wait-timeout <seconds>', 'give up waiting after this long (exit 1)')
    .argParser(integerIn(1, 7 * 24 * 3600))
    .default(DEFAULT_WAIT_SECONDS);

/** The client for aggregate routes: the global API, which `--region` cannot pin. */
async function aggregateClient(ctx: CommandContext): Promise<ApiClient> {
  if (ctx.options.region !== undefined) {
    throw new UsageError('--all-regions goes through the global API and cannot be combined with --region');
  }
  return ctx.global();
}

/** Waits for submitted Jobs, prints their final records, exits 1 unless all succeeded. */
export async function waitForJobs(
  ctx: CommandContext,
  client: ApiClient,
  jobs: { namespace: string; name: string }[],
  timeoutSeconds: number,
) {
  if (jobs.length === 0) {
    ctx.out.info('Nothing to wait for: no Job was applied.');
    return;
  }
  const targets: WaitTarget[] = jobs.map((j) => ({
    label: `${j.namespace}/${j.name}`,
    path: jobPath(j.namespace, j.name),
  }));
  const finals = await waitUntilFinal(client, targets, ctx.out, {
    finalStates: FINAL_JOB_STATES,
    timeoutMs: timeoutSeconds * 1000,
  });
  for (const reply of finals) ctx.out.final(reply, jobView);
  requireSucceeded(targets, finals);
}

/** The job an answer carries under `job` (retry, template run), as a wait target. */
export function createdJob(body: unknown): { namespace: string; name: string }[] {
  const job = (body as { job?: { namespace?: unknown; name?: unknown } } | undefined)?.job;
  return typeof job?.namespace === 'string' && typeof job.name === 'string'
    ? [{ namespace: job.namespace, name: job.name }]
    : [];
}

/** The Jobs a manifest report says were applied (created, updated or unchanged). */
export function appliedJobs(report: unknown): { namespace: string; name: string }[] {
  const resources = (report as { resources?: unknown } | undefined)?.resources;
  if (!Array.isArray(resources)) return [];
  return resources
    .filter(
      (r): r is { kind: string; namespace: string; name: string; status: string } =>
        typeof r === 'object' &&
        r !== null &&
        (r as { kind?: unknown }).kind === 'Job' &&
        ['created', 'updated', 'unchanged'].includes(String((r as { status?: unknown }).status)),
    )
    .map((r) => ({ namespace: r.namespace, name: r.name }));
}

export function jobsCommand(kit: CommandKit): CommandUnknownOpts {
  const jobs = examples(
    new Command('jobs').description('submit and manage jobs'),
    'gco jobs submit job.yaml --wait',
  );

  examples(
    jobs
      .command('submit')
      .description('submit manifests (YAML or JSON, several documents per file) as one request')
      .argument('<files...>', 'manifest files; - reads stdin')
      .addOption(namespaceOption('namespace of manifests that name none'))
      .addOption(new Option('--dry-run', 'check everything (policy and cluster dry run), apply nothing'))
      .addOption(
        new Option('--validate-only', 'validate only (POST /api/v1/manifests/validate)').conflicts('dryRun'),
      )
      .addOption(
        new Option('--wait', 'wait until every submitted Job has finished').conflicts([
          'dryRun',
          'validateOnly',
        ]),
      )
      .addOption(waitTimeoutOption())
      .action(async (files, opts, cmd) => {
        const ctx = await kit.context(cmd);
        const manifests = await readManifests(files, ctx.io);
        const client = await ctx.control();
        const body = {
          manifests,
          namespace: opts.namespace,
          ...(opts.dryRun === true ? { dry_run: true } : {}),
        };
        const reply = await client.send({
          method: 'POST',
          path: opts.validateOnly === true ? '/api/v1/manifests/validate' : '/api/v1/manifests',
          body,
        });
        const report = reply.json as { resources?: unknown; valid?: unknown } | undefined;
        // A 400 with a per-resource report is the answer to print (it says which manifest failed).
        if (Array.isArray(report?.resources)) ctx.out.reply(reply, submissionView);
        if (reply.status !== 200) throw apiErrorOf(reply);
        if (report?.valid === false) throw new ApiError('The manifests are not valid (see the report)');
        if (opts.wait === true) await waitForJobs(ctx, client, appliedJobs(report), opts.waitTimeout);
      }),
    'gco jobs submit job.yaml --wait',
    'gco jobs submit -n team-a train.yaml eval.yaml --dry-run',
    'kubectl create job hello --image=busybox --dry-run=client -o yaml -- echo hi | gco jobs submit -',
  );

  examples(
    jobs
      .command('list')
      .description('list jobs (one region, or every region with --all-regions)')
      .option('-n, --namespace <namespace>', 'only this namespace')
      .addOption(
        new Option('--status <status>', 'only jobs in this state (completed = succeeded or failed)').choices(
          JOB_STATUSES,
        ),
      )
      .option('-l, --label-selector <selector>', 'comma-separated key=value labels')
      .option('--limit <n>', 'at most this many jobs', integerIn(1, 1000))
      .option('--offset <n>', 'skip this many jobs', integerIn(0, Number.MAX_SAFE_INTEGER))
      .option(
        '--sort <field:direction>',
        'createdAt, name, namespace, status, startedAt or completedAt, :asc or :desc',
      )
      .option('--all-regions', 'every region, through the global API (GET /api/v1/global/jobs)')
      .action(async (opts, cmd) => {
        const ctx = await kit.context(cmd);
        const client = opts.allRegions === true ? await aggregateClient(ctx) : await ctx.control();
        await ctx.call(
          client,
          {
            method: 'GET',
            path: opts.allRegions === true ? '/api/v1/global/jobs' : '/api/v1/jobs',
            query: {
              namespace: opts.namespace,
              status: opts.status,
              label_selector: opts.labelSelector,
              limit: opts.limit,
              offset: opts.offset,
              sort: opts.sort,
            },
          },
          jobListView,
        );
      }),
    'gco jobs list -n svc-jobs --status running',
    'gco jobs list --all-regions --sort name:asc -o json',
  );

  const simpleGet = (
    name: string,
    description: string,
    suffix: string[],
    view: typeof jobView,
    example: string,
  ) =>
    examples(
      jobs
        .command(name)
        .description(description)
        .argument('<name>', 'job name')
        .addOption(namespaceOption())
        .action(async (job, opts, cmd) => {
          const ctx = await kit.context(cmd);
          await ctx.call(
            await ctx.control(),
            { method: 'GET', path: jobPath(opts.namespace, job, ...suffix) },
            view,
          );
        }),
      example,
    );
  simpleGet(
    'get',
    'show a job, with where its pods run',
    [],
    jobView,
    'gco jobs get train -n svc-jobs -o yaml',
  );
  simpleGet(
    'events',
    'show the events of a job and of its pods',
    ['events'],
    jobEventsView,
    'gco jobs events train',
  );
  simpleGet(
    'pods',
    'show the pods of a job and the hardware each landed on',
    ['pods'],
    jobPodsView,
    'gco jobs pods train',
  );
  simpleGet(
    'metrics',
    "show the live CPU and memory use of a job's pods",
    ['metrics'],
    jobMetricsView,
    'gco jobs metrics train',
  );

  examples(
    jobs
      .command('logs')
      .description("print the logs of a job's started pods")
      .argument('<name>', 'job name')
      .addOption(namespaceOption())
      .option('-c, --container <container>', 'container (default: the pod’s default container)')
      .option('--tail <lines>', 'last lines per pod', integerIn(1, 10000), 100)
      .option('--previous', 'the previous instance of a restarted container')
      .option('--since <seconds>', 'only lines newer than this', integerIn(1, Number.MAX_SAFE_INTEGER))
      .option('--timestamps', 'prefix each line with its timestamp')
      .addOption(
        new Option('-f, --follow', 'keep printing new lines until the job finishes (prints text)').conflicts([
          'previous',
          'since',
        ]),
      )
      .action(async (job, opts, cmd) => {
        const ctx = await kit.context(cmd);
        const client = await ctx.control();
        if (opts.follow === true) {
          await followJobLogs(client, ctx.out, {
            namespace: opts.namespace,
            name: job,
            ...(opts.container !== undefined ? { container: opts.container } : {}),
            tail: opts.tail,
            timestamps: opts.timestamps === true,
          });
          return;
        }
        await ctx.call(
          client,
          {
            method: 'GET',
            path: jobPath(opts.namespace, job, 'logs'),
            query: {
              container: opts.container,
              tail: opts.tail,
              previous: opts.previous === true ? true : undefined,
              since_seconds: opts.since,
              timestamps: opts.timestamps === true ? true : undefined,
            },
          },
          jobLogsView,
        );
      }),
    'gco jobs logs train --tail 20',
    'gco jobs logs train --follow',
  );

  examples(
    jobs
      .command('pod-logs')
      .description('print the logs of one pod of a job')
      .argument('<name>', 'job name')
      .argument('<pod>', 'pod name (see `gco jobs pods`)')
      .addOption(namespaceOption())
      .option('-c, --container <container>', 'container')
      .option('--tail <lines>', 'last lines', integerIn(1, 10000), 100)
      .option('--previous', 'the previous instance of a restarted container')
      .action(async (job, pod, opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(
          await ctx.control(),
          {
            method: 'GET',
            path: jobPath(opts.namespace, job, 'pods', pod, 'logs'),
            query: {
              container: opts.container,
              tail: opts.tail,
              previous: opts.previous === true ? true : undefined,
            },
          },
          podLogsView,
        );
      }),
    'gco jobs pod-logs train train-x7k2p --tail 50',
  );

  examples(
    jobs
      .command('retry')
      .description('create a new job from the spec of a failed job')
      .argument('<name>', 'name of the failed job')
      .addOption(namespaceOption())
      .option('--wait', 'wait until the new job has finished')
      .addOption(waitTimeoutOption())
      .action(async (job, opts, cmd) => {
        const ctx = await kit.context(cmd);
        const client = await ctx.control();
        const reply = await ctx.call(
          client,
          { method: 'POST', path: jobPath(opts.namespace, job, 'retry') },
          createdJobView,
        );
        if (opts.wait === true) await waitForJobs(ctx, client, createdJob(reply.json), opts.waitTimeout);
      }),
    'gco jobs retry train --wait',
  );

  examples(
    jobs
      .command('delete')
      .description('delete a job and its pods')
      .argument('<name>', 'job name')
      .addOption(namespaceOption())
      .option('--expected-uid <uid>', 'delete only if the job still has this uid (409 otherwise)')
      .action(async (job, opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(
          await ctx.control(),
          { method: 'DELETE', path: jobPath(opts.namespace, job), query: { expected_uid: opts.expectedUid } },
          deletedView,
        );
      }),
    'gco jobs delete train --expected-uid 3f1c…',
  );

  examples(
    jobs
      .command('bulk-delete')
      .description('delete every job matching all the given filters (at least one unless --dry-run)')
      .option('-n, --namespace <namespace>', 'only this namespace')
      .addOption(new Option('--status <status>', 'only jobs in this state').choices(JOB_STATUSES))
      .option('-l, --label-selector <selector>', 'comma-separated key=value labels')
      .option('--older-than-days <days>', 'only jobs created longer ago', integerIn(1, 365))
      .option('--dry-run', 'list what would be deleted')
      .option('--all-regions', 'in every region, through the global API (DELETE /api/v1/global/jobs)')
      .action(async (opts, cmd) => {
        const ctx = await kit.context(cmd);
        const client = opts.allRegions === true ? await aggregateClient(ctx) : await ctx.control();
        const body = {
          ...(opts.dryRun === true ? { dry_run: true } : {}),
          ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
          ...(opts.status !== undefined ? { status: opts.status } : {}),
          ...(opts.labelSelector !== undefined ? { label_selector: opts.labelSelector } : {}),
          ...(opts.olderThanDays !== undefined ? { older_than_days: opts.olderThanDays } : {}),
        };
        await ctx.call(
          client,
          { method: 'DELETE', path: opts.allRegions === true ? '/api/v1/global/jobs' : '/api/v1/jobs', body },
          bulkDeleteView,
        );
      }),
    'gco jobs bulk-delete --status completed --older-than-days 7 --dry-run',
    'gco jobs bulk-delete -n svc-jobs -l team=a --all-regions',
  );

  return jobs;
}
