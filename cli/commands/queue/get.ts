/** `gco queue get`: one queued job, with its manifest. */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { queuedJobView } from '../../views/queue.js';
import { queuedJobPath } from './common.js';

export function getCommand(kit: CommandKit) {
  return examples(
    new Command('get')
      .description('show a queued job (with its manifest)')
      .argument('<job-id>', 'queued job id')
      .action(async (id, _opts, cmd) => runGet({ id }, await kit.context(cmd))),
    'gco queue get 6f1e0c2a-… -o yaml',
  );
}

async function runGet(options: { id: string }, ctx: CommandContext): Promise<void> {
  await ctx.call(await ctx.control(), { method: 'GET', path: queuedJobPath(options.id) }, queuedJobView);
}
