/** `gco jobs delete`: one job and its pods, optionally only while it still has a given uid. */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { deletedView } from '../../views/common.js';
import { jobPath, namespaceOption, type JobRef } from './common.js';

interface DeleteOptions extends JobRef {
  expectedUid?: string;
}

export function deleteCommand(kit: CommandKit) {
  return examples(
    new Command('delete')
      .description('delete a job and its pods')
      .argument('<name>', 'job name')
      .addOption(namespaceOption())
      .option('--expected-uid <uid>', 'delete only if the job still has this uid (409 otherwise)')
      .action(async (name, opts, cmd) => runDelete({ ...opts, name }, await kit.context(cmd))),
    'gco jobs delete train --expected-uid 3f1c…',
  );
}

async function runDelete(options: DeleteOptions, ctx: CommandContext): Promise<void> {
  await ctx.call(
    await ctx.control(),
    {
      method: 'DELETE',
      path: jobPath(options.namespace, options.name),
      query: { expected_uid: options.expectedUid },
    },
    deletedView,
  );
}
