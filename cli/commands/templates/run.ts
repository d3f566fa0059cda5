/** `gco templates run`: a job created from a template, optionally waited for. */
import { Command } from '@commander-js/extra-typings';
import { DEFAULT_JOB_NAMESPACE, examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { pathOf } from '../../http.js';
import { keyValue } from '../../options.js';
import { createdJobView } from '../../views/jobs.js';
import { createdJob, waitForJobs, waitTimeoutOption } from '../jobs/common.js';
import { parameterValues } from './common.js';

interface RunOptions {
  template: string;
  name: string;
  namespace?: string;
  param?: Record<string, string>;
  wait?: boolean;
  waitTimeout: number;
}

export function runCommand(kit: CommandKit) {
  return examples(
    new Command('run')
      .description('create a job from a template')
      .argument('<template>', 'template name')
      .requiredOption('--name <job>', 'name of the new job')
      .option('-n, --namespace <namespace>', `namespace of the job (server default ${DEFAULT_JOB_NAMESPACE})`)
      .option('-p, --param <key=value>', 'parameter value (repeatable; overrides the defaults)', keyValue)
      .option('--wait', 'wait until the job has finished')
      .addOption(waitTimeoutOption())
      .action(async (template, opts, cmd) => runRun({ ...opts, template }, await kit.context(cmd))),
    'gco templates run train --name train-0601 -p epochs=20 --wait',
  );
}

async function runRun(options: RunOptions, ctx: CommandContext): Promise<void> {
  const client = await ctx.control();
  const parameters = await parameterValues(options.param);
  const body = { name: options.name, namespace: options.namespace, parameters };
  const path = pathOf('api', 'v1', 'jobs', 'from-template', options.template);
  const reply = await ctx.call(client, { method: 'POST', path, body }, createdJobView);
  if (options.wait === true) await waitForJobs(ctx, client, createdJob(reply.json), options.waitTimeout);
}
