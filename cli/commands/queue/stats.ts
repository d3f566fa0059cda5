/** `gco queue stats`: queued jobs by region and state. */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { queueStatsView } from '../../views/queue.js';

export function statsCommand(kit: CommandKit) {
  return examples(
    new Command('stats')
      .description('queued jobs by region and state')
      .action(async (_opts, cmd) => runStats(await kit.context(cmd))),
    'gco queue stats',
  );
}

async function runStats(ctx: CommandContext): Promise<void> {
  await ctx.call(await ctx.control(), { method: 'GET', path: '/api/v1/queue/stats' }, queueStatsView);
}
