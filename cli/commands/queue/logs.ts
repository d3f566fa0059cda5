/**
 * `gco queue logs`: the logs of the Kubernetes Job a queued job was dispatched as, found by the queued
 * job's id or name (common.ts findQueuedJob), printed as `jobs logs` prints them (job-logs.ts).
 * `--follow` first waits for the dispatch, then prints lines until the Job has finished.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Command, Option } from '@commander-js/extra-typings';
import type { QueuedJob } from '../../../contracts/api/manifest-processor-central.js';
import { apiErrorOf } from '../../api-errors.js';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import type { ApiClient } from '../../http.js';
import { untilInterrupted } from '../../interrupt.js';
import { printJobLogs, type JobLogOptions } from '../../job-logs.js';
import { FINAL_QUEUE_STATES } from '../../job-wait.js';
import { durationIn, integerIn } from '../../options.js';
import { recordOf, text } from '../../views/common.js';
import { findQueuedJob, queuedJobPath, queuedJobRefOf, reasonOf } from './common.js';

const DISPATCH_POLL_MS = 1000;

interface LogsOptions extends JobLogOptions {
  ref: string;
  namespace?: string;
}

export function logsCommand(kit: CommandKit) {
  return examples(
    new Command('logs')
      .description('print the logs of the Kubernetes Job a queued job runs as')
      .argument(
        '<job>',
        'queued job id (or queuedjob/ID), its Kubernetes Job name, or the name in its manifest',
      )
      .option('-n, --namespace <namespace>', 'look the name up in this namespace only')
      .option('-c, --container <container>', 'container (default: the pod’s default container)')
      .option('--tail <lines>', 'last lines per pod', integerIn(1, 10000), 100)
      .option(
        '--since <duration>',
        'only lines newer than this, e.g. 30s, 5m, 1h, 2d',
        durationIn(1, Number.MAX_SAFE_INTEGER),
      )
      .option('--timestamps', 'prefix each line with its timestamp')
      .addOption(
        new Option(
          '-f, --follow',
          'wait for the dispatch, then print new lines until the job finishes (prints text)',
        ).conflicts('since'),
      )
      .action(async (ref, opts, cmd) =>
        runLogs({ ...opts, ref: queuedJobRefOf(ref) }, await kit.context(cmd)),
      ),
    'gco queue logs 6f1e0c2a-…',
    'gco queue logs train --follow       # the newest queued job whose manifest is named train',
  );
}

async function runLogs(options: LogsOptions, ctx: CommandContext): Promise<void> {
  const client = await ctx.control();
  const { id } = await findQueuedJob(client, options.ref, options.namespace, ctx);
  const job = options.follow === true ? await dispatched(client, id, ctx) : await current(client, id);
  if (job.k8s === null || job.k8s === undefined) {
    throw new ApiError(
      `Queued job ${id} has no Kubernetes Job yet: it is ${text(job.status)}${reasonOf(job) ? ` (${text(reasonOf(job))})` : ''}`,
      `Its Job will be ${text(job.namespace)}/${text(job.job_name)}; \`gco queue logs ${id} --follow\` waits for it.`,
    );
  }
  await printJobLogs(ctx, client, job.k8s, options, `gco queue logs ${id} --follow`);
}

async function current(client: ApiClient, id: string) {
  const reply = await client.send({ method: 'GET', path: queuedJobPath(id) });
  if (reply.status !== 200) throw apiErrorOf(reply);
  return recordOf<QueuedJob>(reply.json);
}

/** Polls the queued job until it has a Kubernetes Job, or has finished without one. */
async function dispatched(client: ApiClient, id: string, ctx: CommandContext) {
  let shown: string | undefined;
  return untilInterrupted(
    ctx.out,
    () => `queued job ${id} stays in the queue; follow it with: gco queue logs ${id} --follow`,
    async () => {
      for (;;) {
        const job = await current(client, id);
        if (job.k8s !== null && job.k8s !== undefined) return job;
        if (FINAL_QUEUE_STATES.has(text(job.status))) return job;
        const state = `${text(job.status)}${reasonOf(job) ? ` (${text(reasonOf(job))})` : ''}`;
        if (state !== shown) ctx.out.info(`queued job ${id}: ${state}`);
        shown = state;
        await sleep(DISPATCH_POLL_MS);
      }
    },
  );
}
