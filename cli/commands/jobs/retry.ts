/** `gco jobs retry`: a new job from the spec of a failed one, optionally waited for. */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { createdJobView } from '../../views/jobs.js';
import {
  createdJob,
  jobNameOf,
  jobPath,
  namespaceOption,
  waitForJobs,
  waitTimeoutOption,
  type JobRef,
} from './common.js';

interface RetryOptions extends JobRef {
  wait?: boolean;
  waitTimeout: number;
}

export function retryCommand(kit: CommandKit) {
  return examples(
    new Command('retry')
      .description('create a new job from the spec of a failed job')
      .argument('<name>', 'name of the failed job (NAME or job/NAME)')
      .addOption(namespaceOption())
      .option('--wait', 'wait until the new job has finished')
      .addOption(waitTimeoutOption())
      .action(async (name, opts, cmd) =>
        runRetry({ ...opts, name: jobNameOf(name) }, await kit.context(cmd)),
      ),
    'gco jobs retry train --wait',
  );
}

async function runRetry(options: RetryOptions, ctx: CommandContext): Promise<void> {
  const client = await ctx.control();
  const reply = await ctx.call(
    client,
    { method: 'POST', path: jobPath(options.namespace, options.name, 'retry') },
    createdJobView,
  );
  if (options.wait === true) await waitForJobs(ctx, client, createdJob(reply.json), options.waitTimeout);
}
