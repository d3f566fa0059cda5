/**
 * What the `gco jobs` verbs share, and what `--wait` on a job does for the other groups (templates run,
 * queue submit): job paths, the common options, the aggregate client and waiting for jobs.
 */
import { Option } from '@commander-js/extra-typings';
import { DEFAULT_JOB_NAMESPACE, bareName } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { UsageError } from '../../errors.js';
import { pathOf, type ApiClient } from '../../http.js';
import { FINAL_JOB_STATES, waitAndReport } from '../../job-wait.js';
import { waitTimeoutOption as durationWaitTimeoutOption } from '../../options.js';
import { recordOf, rowsOf } from '../../views/common.js';
import { jobView, type CreatedJob, type SubmissionReport } from '../../views/jobs.js';

export const JOB_STATUSES = ['pending', 'running', 'completed', 'succeeded', 'failed'] as const;
export type JobStatusFilter = (typeof JOB_STATUSES)[number];

const DEFAULT_WAIT_SECONDS = 3600;

/** A job as the command line names it. */
export interface JobRef {
  namespace: string;
  name: string;
}

export const jobPath = (namespace: string, name: string, ...rest: string[]) =>
  pathOf('api', 'v1', 'jobs', namespace, name, ...rest);

/** A job name as given: `train`, or `job/train` / `job.batch/train` as `-o name` prints it. */
export const jobNameOf = (arg: string) => bareName(arg, ['job', 'jobs', 'job.batch']);

export const namespaceOption = (description = 'namespace of the job') =>
  new Option('-n, --namespace <namespace>', description).default(DEFAULT_JOB_NAMESPACE);

/** `--wait-timeout` of the job commands: a duration (`90s`, `30m`, `2h`), as every other wait takes. */
export const waitTimeoutOption = () => durationWaitTimeoutOption(DEFAULT_WAIT_SECONDS, 7 * 24 * 3600);

/** The client of one region, or of the global API's aggregate routes with `--all-regions`. */
export async function jobsClient(ctx: CommandContext, allRegions: boolean | undefined): Promise<ApiClient> {
  if (allRegions !== true) return ctx.control();
  // The global API, which `--region` cannot pin.
  if (ctx.options.region !== undefined) {
    throw new UsageError('--all-regions goes through the global API and cannot be combined with --region');
  }
  return ctx.global();
}

/** The jobs collection of one region, or of every region with `--all-regions`. */
export const jobsPath = (allRegions: boolean | undefined) =>
  allRegions === true ? '/api/v1/global/jobs' : '/api/v1/jobs';

/** Waits for submitted Jobs, prints their final records, exits 1 unless all succeeded. */
export async function waitForJobs(
  ctx: CommandContext,
  client: ApiClient,
  jobs: readonly JobRef[],
  timeoutSeconds: number,
): Promise<void> {
  if (jobs.length === 0) {
    ctx.out.info('Nothing to wait for: no Job was applied.');
    return;
  }
  const targets = jobs.map((j) => ({
    label: `${j.namespace}/${j.name}`,
    path: jobPath(j.namespace, j.name),
  }));
  await waitAndReport(client, targets, ctx.out, {
    finalStates: FINAL_JOB_STATES,
    timeoutMs: timeoutSeconds * 1000,
    view: jobView,
  });
}

/** The job an answer carries under `job` (retry, template run), as a wait target. */
export function createdJob(body: unknown): JobRef[] {
  const job = recordOf<CreatedJob['job']>(recordOf<CreatedJob>(body).job);
  return typeof job.namespace === 'string' && typeof job.name === 'string'
    ? [{ namespace: job.namespace, name: job.name }]
    : [];
}

const APPLIED = new Set(['created', 'updated', 'unchanged']);

/** The Jobs a manifest report says were applied (created, updated or unchanged). */
export function appliedJobs(report: unknown): JobRef[] {
  return rowsOf<SubmissionReport['resources'][number]>(recordOf<SubmissionReport>(report).resources)
    .filter((r) => r.kind === 'Job' && APPLIED.has(String(r.status)))
    .map((r) => ({ namespace: r.namespace as string, name: r.name as string }));
}
