/** `gco inference update-image`: a rolling update of every region to a new model server image. */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import {
  endpointName,
  endpointPath,
  expectedGenerationOption,
  sendChange,
  waitOption,
  waitTimeoutOption,
  type MutationOptions,
} from './common.js';

interface UpdateImageOptions extends MutationOptions {
  image: string;
}

export function updateImageCommand(kit: CommandKit) {
  return examples(
    new Command('update-image')
      .description('replace the model server image (a rolling update in every region)')
      .argument('<name>', 'endpoint name (NAME or endpoint/NAME)', endpointName)
      .requiredOption('--image <image>', 'the new image')
      .addOption(expectedGenerationOption())
      .addOption(waitOption())
      .addOption(waitTimeoutOption())
      .action(async (name, opts, cmd) => runUpdateImage(name, opts, await kit.context(cmd))),
    'gco inference update-image llama --image 123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:0.7 --wait',
  );
}

async function runUpdateImage(name: string, options: UpdateImageOptions, ctx: CommandContext): Promise<void> {
  const request = {
    method: 'POST',
    path: endpointPath(name, 'image'),
    body: { image: options.image },
  } as const;
  await sendChange(ctx, name, request, options);
}
