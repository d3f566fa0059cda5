/** `gco inference status`: one endpoint's desired spec and its observed state in each region. */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { endpointView } from '../../views/inference.js';
import { endpointName, endpointPath } from './common.js';

export function statusCommand(kit: CommandKit) {
  return examples(
    new Command('status')
      .description('show an endpoint: its spec, generation and state in each region')
      .argument('<name>', 'endpoint name', endpointName)
      .action(async (name, _opts, cmd) => runStatus(name, await kit.context(cmd))),
    'gco inference status llama',
    'gco inference status llama -o yaml',
  );
}

async function runStatus(name: string, ctx: CommandContext): Promise<void> {
  await ctx.call(await ctx.control(), { method: 'GET', path: endpointPath(name) }, endpointView);
}
