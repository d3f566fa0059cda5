/**
 * `gco queue get`: one queued job, by id or name (common.ts findQueuedJob); on a table, followed by the
 * state of the Kubernetes Job it was dispatched as (`GET /api/v1/jobs/{ns}/{name}`). `--wait` polls until
 * it has finished — how an interrupted `queue submit --wait` is resumed.
 */
import { Command } from '@commander-js/extra-typings';
import { apiErrorOf } from '../../api-errors.js';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { pathOf } from '../../http.js';
import { FINAL_QUEUE_STATES, waitAndReport } from '../../job-wait.js';
import { waitTimeoutOption } from '../../options.js';
import { recordOf } from '../../views/common.js';
import { jobView } from '../../views/jobs.js';
import type { QueuedJob } from '../../../contracts/api/manifest-processor-central.js';
import {
  QUEUE_WAIT_MAX_SECONDS,
  QUEUE_WAIT_SECONDS,
  findQueuedJob,
  queuedJobPath,
  queuedJobRefOf,
  queuedRecordView,
} from './common.js';

interface GetOptions {
  ref: string;
  namespace?: string;
  wait?: boolean;
  waitTimeout: number;
}

export function getCommand(kit: CommandKit) {
  return examples(
    new Command('get')
      .description('show a queued job (by id or name) and the Kubernetes Job it runs as')
      .argument(
        '<job>',
        'queued job id (or queuedjob/ID), its Kubernetes Job name, or the name in its manifest',
      )
      .option('-n, --namespace <namespace>', 'look the name up in this namespace only')
      .option('--wait', 'wait until the queued job has finished')
      .addOption(waitTimeoutOption(QUEUE_WAIT_SECONDS, QUEUE_WAIT_MAX_SECONDS))
      .action(async (ref, opts, cmd) =>
        runGet({ ...opts, ref: queuedJobRefOf(ref) }, await kit.context(cmd)),
      ),
    'gco queue get 6f1e0c2a-… -o yaml',
    'gco queue get train                 # the newest queued job whose manifest is named train',
    'gco queue get train --wait',
  );
}

async function runGet(options: GetOptions, ctx: CommandContext): Promise<void> {
  const client = await ctx.control();
  const { id } = await findQueuedJob(client, options.ref, options.namespace, ctx);
  if (options.wait === true) {
    await waitAndReport(client, [{ label: `queued job ${id}`, path: queuedJobPath(id) }], ctx.out, {
      finalStates: FINAL_QUEUE_STATES,
      timeoutMs: options.waitTimeout * 1000,
      view: queuedRecordView,
    });
    return;
  }
  const reply = await ctx.call(client, { method: 'GET', path: queuedJobPath(id) }, queuedRecordView);
  // The Kubernetes Job's own state, for a human: json and yaml keep one answer per command.
  const k8s = recordOf<QueuedJob>(reply.json).k8s;
  if (ctx.out.format !== 'table' || ctx.out.quiet || k8s === null || k8s === undefined) return;
  const job = await client.send({
    method: 'GET',
    path: pathOf('api', 'v1', 'jobs', k8s.namespace, k8s.name),
  });
  ctx.out.raw(`\nKubernetes Job ${k8s.namespace}/${k8s.name}:\n`);
  if (job.status === 200) ctx.out.reply(job, jobView);
  else if (job.status === 404) ctx.out.raw('  gone (deleted, or removed after it finished)\n');
  else throw apiErrorOf(job);
}
