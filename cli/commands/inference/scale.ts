/** `gco inference scale`: a new replica count for every region of an endpoint. */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { integerIn } from '../../options.js';
import {
  endpointName,
  endpointPath,
  expectedGenerationOption,
  sendChange,
  waitOption,
  waitTimeoutOption,
  type MutationOptions,
} from './common.js';

interface ScaleOptions extends MutationOptions {
  replicas: number;
}

export function scaleCommand(kit: CommandKit) {
  return examples(
    new Command('scale')
      .description('set the number of model server pods per region')
      .argument('<name>', 'endpoint name (NAME or endpoint/NAME)', endpointName)
      .requiredOption('--replicas <n>', 'pods per region', integerIn(1, 1000))
      .addOption(expectedGenerationOption())
      .addOption(waitOption())
      .addOption(waitTimeoutOption())
      .action(async (name, opts, cmd) => runScale(name, opts, await kit.context(cmd))),
    'gco inference scale llama --replicas 3 --wait',
  );
}

async function runScale(name: string, options: ScaleOptions, ctx: CommandContext): Promise<void> {
  const request = {
    method: 'POST',
    path: endpointPath(name, 'scale'),
    body: { replicas: options.replicas },
  } as const;
  await sendChange(ctx, name, request, options);
}
