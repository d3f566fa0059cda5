/**
 * `gco templates …`: job templates with `{{placeholder}}` parameters and jobs created from them
 * (docs/templates.md). One file per verb: each registers its flags and hands them to its `run…` function.
 */
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples, withSubcommands, type CommandKit } from '../../command-kit.js';
import { createCommand } from './create.js';
import { getCommands } from './get.js';
import { listCommand } from './list.js';
import { runCommand } from './run.js';

export function templatesCommand(kit: CommandKit): CommandUnknownOpts {
  return withSubcommands(
    examples(
      new Command('templates').description('reusable job templates with parameters'),
      'gco templates run train --name train-0601 -p epochs=20',
    ),
    [createCommand(kit), listCommand(kit), ...getCommands(kit), runCommand(kit)],
  );
}
