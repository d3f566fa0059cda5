/**
 * `gco inference status`: one endpoint's desired spec and its observed state in each region; with
 * `--wait`, until every region reports the current generation (how an interrupted `--wait` resumes).
 */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { endpointView } from '../../views/inference.js';
import { endpointName, endpointPath, waitOption, waitTimeoutOption } from './common.js';
import { waitForEndpoint } from './wait.js';

interface StatusOptions {
  wait?: boolean;
  waitTimeout: number;
}

export function statusCommand(kit: CommandKit) {
  return examples(
    new Command('status')
      .description('show an endpoint: its spec, generation and state in each region')
      .argument('<name>', 'endpoint name (NAME or endpoint/NAME)', endpointName)
      .addOption(waitOption())
      .addOption(waitTimeoutOption())
      .action(async (name, opts, cmd) => runStatus(name, opts, await kit.context(cmd))),
    'gco inference status llama',
    'gco inference status llama --wait --wait-timeout 20m',
    'gco inference status llama -o yaml',
  );
}

async function runStatus(name: string, options: StatusOptions, ctx: CommandContext): Promise<void> {
  const client = await ctx.control();
  if (options.wait !== true) {
    await ctx.call(client, { method: 'GET', path: endpointPath(name) }, endpointView);
    return;
  }
  await waitForEndpoint(client, ctx.out, {
    name,
    path: endpointPath(name),
    timeoutMs: options.waitTimeout * 1000,
    gone: false,
  });
}
