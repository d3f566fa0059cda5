/** `gco webhooks delete`: a webhook, cancelling its pending deliveries. */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { pathOf } from '../../http.js';
import { deletedView } from '../../views/common.js';

export function deleteCommand(kit: CommandKit) {
  return examples(
    new Command('delete')
      .description('delete a webhook (pending deliveries are cancelled)')
      .argument('<webhook-id>', 'webhook id')
      .action(async (id, _opts, cmd) => runDelete({ id }, await kit.context(cmd))),
    'gco webhooks delete 0b7e…',
  );
}

async function runDelete(options: { id: string }, ctx: CommandContext): Promise<void> {
  await ctx.call(
    await ctx.control(),
    { method: 'DELETE', path: pathOf('api', 'v1', 'webhooks', options.id) },
    deletedView,
  );
}
