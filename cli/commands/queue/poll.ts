/** `gco queue poll`: one queue-worker pass in the region now (the operator's trigger). */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { integerIn } from '../../options.js';

export function pollCommand(kit: CommandKit) {
  return examples(
    new Command('poll')
      .description("run one queue-worker pass in the region now (the operator's trigger)")
      .option('--limit <n>', 'dispatch at most this many jobs', integerIn(1, 20))
      .action(async (opts, cmd) => runPoll(opts, await kit.context(cmd))),
    'gco --region us-east-1 queue poll --limit 10',
  );
}

async function runPoll(options: { limit?: number }, ctx: CommandContext): Promise<void> {
  await ctx.call(await ctx.control(), {
    method: 'POST',
    path: '/api/v1/queue/poll',
    query: { limit: options.limit },
  });
}
