/** `gco analytics apps create|list|get|delete`: the applications that send events (SigV4). */
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples, withSubcommands, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import type { View } from '../../output.js';
import { applicationListView, applicationView } from '../../views/analytics.js';
import { deletedView } from '../../views/common.js';
import { appPath, nameAndDescription } from './common.js';

export function appsCommand(kit: CommandKit): CommandUnknownOpts {
  return withSubcommands(
    examples(new Command('apps').description('applications that send events'), 'gco analytics apps list'),
    [
      createCommand(kit),
      listCommand(kit),
      onApplication(kit, 'get', 'show an application', 'GET', applicationView),
      onApplication(
        kit,
        'delete',
        'delete an application and all its API keys (ingested data stays)',
        'DELETE',
        deletedView,
      ),
    ],
  );
}

function createCommand(kit: CommandKit) {
  return examples(
    new Command('create')
      .description('register an application')
      .argument('<name>', 'application name')
      .option('--description <text>', 'description')
      .action(async (name, opts, cmd) => runCreate({ ...opts, name }, await kit.context(cmd))),
    'gco analytics apps create "Space Miners" --description "PC build"',
  );
}

async function runCreate(
  options: { name: string; description?: string },
  ctx: CommandContext,
): Promise<void> {
  const body = nameAndDescription(options.name, options.description);
  await ctx.call(await ctx.analytics(), { method: 'POST', path: '/applications', body }, applicationView);
}

function listCommand(kit: CommandKit) {
  return examples(
    new Command('list')
      .description('list applications')
      .action(async (_opts, cmd) => runList(await kit.context(cmd))),
    'gco analytics apps list',
  );
}

async function runList(ctx: CommandContext): Promise<void> {
  await ctx.call(await ctx.analytics(), { method: 'GET', path: '/applications' }, applicationListView);
}

/** A verb on one application: `gco analytics apps <verb> <application-id>`. */
function onApplication(
  kit: CommandKit,
  verb: string,
  description: string,
  method: 'GET' | 'DELETE',
  view: View,
) {
  return examples(
    new Command(verb)
      .description(description)
      .argument('<application-id>', 'application id')
      .action(async (id, _opts, cmd) => runOnApplication({ method, view }, { id }, await kit.context(cmd))),
    `gco analytics apps ${verb} 5868017c-…`,
  );
}

async function runOnApplication(
  verb: { method: 'GET' | 'DELETE'; view: View },
  options: { id: string },
  ctx: CommandContext,
): Promise<void> {
  await ctx.call(await ctx.analytics(), { method: verb.method, path: appPath(options.id) }, verb.view);
}
