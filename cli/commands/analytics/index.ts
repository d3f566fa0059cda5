/**
 * `gco analytics …`: the game-analytics API (docs/analytics-api.md) — applications and API keys (SigV4),
 * sending events with a key (no SigV4), and the one-time warehouse setup.
 */
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples, withSubcommands, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { appsCommand } from './apps.js';
import { keysCommand } from './keys.js';
import { sendCommand } from './send.js';

export function analyticsCommand(kit: CommandKit): CommandUnknownOpts {
  return withSubcommands(
    examples(
      new Command('analytics').description('game analytics: applications, API keys, events'),
      'gco analytics send 5868017c-… events.ndjson --key "$API_KEY"',
    ),
    [appsCommand(kit), keysCommand(kit), sendCommand(kit), setupCommand(kit)],
  );
}

/** `gco analytics setup`: the warehouse views over the event stream (safe to repeat). */
function setupCommand(kit: CommandKit) {
  return examples(
    new Command('setup')
      .description('create the warehouse views over the event stream (safe to repeat)')
      .action(async (_opts, cmd) => runSetup(await kit.context(cmd))),
    'gco analytics setup',
  );
}

async function runSetup(ctx: CommandContext): Promise<void> {
  await ctx.call(await ctx.analytics(), { method: 'POST', path: '/redshift/setup' });
}
