/** `gco inference list`: every managed endpoint with its state per region. */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { endpointListView } from '../../views/inference.js';
import { endpointsPath } from './common.js';

export function listCommand(kit: CommandKit) {
  return examples(
    new Command('list')
      .description('list inference endpoints with their state in each region')
      .action(async (_opts, cmd) => runList(await kit.context(cmd))),
    'gco inference list',
  );
}

async function runList(ctx: CommandContext): Promise<void> {
  await ctx.call(await ctx.control(), { method: 'GET', path: endpointsPath }, endpointListView);
}
