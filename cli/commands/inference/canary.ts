/** `gco inference canary`: a second image that receives a share of the endpoint's requests. */
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

interface CanaryOptions extends MutationOptions {
  image: string;
  weight: number;
}

export function canaryCommand(kit: CommandKit) {
  return examples(
    new Command('canary')
      .description('run a canary image beside the endpoint’s image with a share of its traffic')
      .argument('<name>', 'endpoint name (NAME or endpoint/NAME)', endpointName)
      .requiredOption('--image <image>', 'the canary’s image')
      .requiredOption(
        '--weight <percent>',
        'percentage of requests the canary receives (1–99)',
        integerIn(1, 99),
      )
      .addOption(expectedGenerationOption())
      .addOption(waitOption())
      .addOption(waitTimeoutOption())
      .action(async (name, opts, cmd) => runCanary(name, opts, await kit.context(cmd))),
    'gco inference canary llama --image 123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:0.7 --weight 20 --wait',
  );
}

async function runCanary(name: string, options: CanaryOptions, ctx: CommandContext): Promise<void> {
  const body = { image: options.image, weight: options.weight };
  await sendChange(ctx, name, { method: 'POST', path: endpointPath(name, 'canary'), body }, options);
}
