/**
 * `gco inference delete`: every region removes the endpoint's Kubernetes objects, then the record goes
 * (202 with `deleting: true`); `--wait` returns when GET answers 404.
 */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import {
  endpointName,
  endpointPath,
  sendChange,
  waitOption,
  waitTimeoutOption,
  type MutationOptions,
} from './common.js';

export function deleteCommand(kit: CommandKit) {
  return examples(
    new Command('delete')
      .description('delete an endpoint in every region')
      .argument('<name>', 'endpoint name (NAME or endpoint/NAME)', endpointName)
      .addOption(waitOption('wait until every region has removed the endpoint and its record is gone'))
      .addOption(waitTimeoutOption())
      .action(async (name, opts, cmd) => runDelete(name, opts, await kit.context(cmd))),
    'gco inference delete llama --wait',
  );
}

async function runDelete(name: string, options: MutationOptions, ctx: CommandContext): Promise<void> {
  await sendChange(ctx, name, { method: 'DELETE', path: endpointPath(name) }, options);
}
