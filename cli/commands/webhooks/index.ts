/**
 * `gco webhooks …`: HTTPS endpoints that receive job events (docs/webhooks.md). One file per verb: each
 * registers its flags and hands them to its `run…` function.
 */
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples, withSubcommands, type CommandKit } from '../../command-kit.js';
import { createCommand } from './create.js';
import { deleteCommand } from './delete.js';
import { listCommand } from './list.js';

export function webhooksCommand(kit: CommandKit): CommandUnknownOpts {
  return withSubcommands(
    examples(
      new Command('webhooks').description('job event notifications to your HTTPS endpoints'),
      'gco webhooks list',
    ),
    [createCommand(kit), listCommand(kit), deleteCommand(kit)],
  );
}
