/** `gco templates list`. */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { templateListView } from '../../views/templates.js';

export function listCommand(kit: CommandKit) {
  return examples(
    new Command('list')
      .description('list templates')
      .action(async (_opts, cmd) => runList(await kit.context(cmd))),
    'gco templates list',
  );
}

async function runList(ctx: CommandContext): Promise<void> {
  await ctx.call(await ctx.control(), { method: 'GET', path: '/api/v1/templates' }, templateListView);
}
