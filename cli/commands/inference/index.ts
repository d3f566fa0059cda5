/** `gco inference …`: requests to inference endpoints through the edge (docs/inference-proxy.md). */
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples, withSubcommands, type CommandKit } from '../../command-kit.js';
import { invokeCommand } from './invoke.js';

export function inferenceCommand(kit: CommandKit): CommandUnknownOpts {
  return withSubcommands(
    examples(
      new Command('inference').description('call inference endpoints'),
      'gco inference invoke sample-model --prompt "Hello" --stream',
    ),
    [invokeCommand(kit)],
  );
}
