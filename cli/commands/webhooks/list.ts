/** `gco webhooks list`. */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { webhookListView } from '../../views/webhooks.js';

export function listCommand(kit: CommandKit) {
  return examples(
    new Command('list')
      .description('list webhooks')
      .option('-n, --namespace <namespace>', 'only webhooks filtered to exactly this namespace')
      .action(async (opts, cmd) => runList(opts, await kit.context(cmd))),
    'gco webhooks list',
  );
}

async function runList(options: { namespace?: string }, ctx: CommandContext): Promise<void> {
  await ctx.call(
    await ctx.control(),
    { method: 'GET', path: '/api/v1/webhooks', query: { namespace: options.namespace } },
    webhookListView,
  );
}
