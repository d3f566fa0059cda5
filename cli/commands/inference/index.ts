/**
 * `gco inference …`: managed inference endpoints — their lifecycle (`/api/v1/inference/endpoints`, issue 24)
 * and requests to them through the edge (docs/inference-proxy.md). One file per verb (lifecycle.ts holds
 * the four verbs that take only a name).
 */
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples, withSubcommands, type CommandKit } from '../../command-kit.js';
import { canaryCommand } from './canary.js';
import { deleteCommand } from './delete.js';
import { deployCommand } from './deploy.js';
import { invokeCommand } from './invoke.js';
import { lifecycleCommands } from './lifecycle.js';
import { listCommand } from './list.js';
import { scaleCommand } from './scale.js';
import { statusCommand } from './status.js';
import { updateImageCommand } from './update-image.js';

export function inferenceCommand(kit: CommandKit): CommandUnknownOpts {
  return withSubcommands(
    examples(
      new Command('inference').description('deploy, change and call inference endpoints'),
      'gco inference deploy llama --image 123456789012.dkr.ecr.us-east-1.amazonaws.com/vllm:0.6 --target-region us-east-1 --wait',
      'gco inference invoke sample-model --prompt "Hello" --stream',
    ),
    [
      deployCommand(kit),
      listCommand(kit),
      statusCommand(kit),
      scaleCommand(kit),
      updateImageCommand(kit),
      canaryCommand(kit),
      ...lifecycleCommands(kit),
      deleteCommand(kit),
      invokeCommand(kit),
    ],
  );
}
