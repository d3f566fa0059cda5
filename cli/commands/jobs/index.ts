/**
 * `gco jobs …`: manifests submitted as jobs, and every job operation of manifest-processor
 * (docs/manifest-processor.md), plus the global API's all-regions list and bulk delete (docs/aggregator.md).
 * One file per verb: each registers its flags and hands them to its `run…` function.
 */
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples, withSubcommands, type CommandKit } from '../../command-kit.js';
import { bulkDeleteCommand } from './bulk-delete.js';
import { deleteCommand } from './delete.js';
import { getCommands } from './get.js';
import { listCommand } from './list.js';
import { logsCommand } from './logs.js';
import { podLogsCommand } from './pod-logs.js';
import { retryCommand } from './retry.js';
import { submitCommand } from './submit.js';

export function jobsCommand(kit: CommandKit): CommandUnknownOpts {
  return withSubcommands(
    examples(new Command('jobs').description('submit and manage jobs'), 'gco jobs submit job.yaml --wait'),
    [
      submitCommand(kit),
      listCommand(kit),
      ...getCommands(kit),
      logsCommand(kit),
      podLogsCommand(kit),
      retryCommand(kit),
      deleteCommand(kit),
      bulkDeleteCommand(kit),
    ],
  );
}
