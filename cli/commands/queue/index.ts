/**
 * `gco queue …`: the central job queue (docs/queue.md). One file per verb: each registers its flags and
 * hands them to its `run…` function.
 */
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples, withSubcommands, type CommandKit } from '../../command-kit.js';
import { cancelCommand } from './cancel.js';
import { getCommand } from './get.js';
import { listCommand } from './list.js';
import { logsCommand } from './logs.js';
import { pollCommand } from './poll.js';
import { statsCommand } from './stats.js';
import { submitCommand } from './submit.js';

export function queueCommand(kit: CommandKit): CommandUnknownOpts {
  return withSubcommands(
    examples(
      new Command('queue').description('the central job queue: submit once, dispatched to a region'),
      'gco queue submit job.yaml --target-region us-east-1',
    ),
    [
      submitCommand(kit),
      listCommand(kit),
      getCommand(kit),
      logsCommand(kit),
      cancelCommand(kit),
      pollCommand(kit),
      statsCommand(kit),
    ],
  );
}
