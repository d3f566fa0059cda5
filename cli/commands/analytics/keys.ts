/** `gco analytics keys …`: an application's API keys (SigV4); a key's value is shown only when created. */
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples, withSubcommands, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import type { ApiRequest } from '../../http.js';
import type { View } from '../../output.js';
import { apiKeyListView, apiKeyView, createdApiKeyView } from '../../views/analytics.js';
import { deletedViewOf } from '../../views/common.js';
import { appPath, nameAndDescription } from './common.js';

const CACHED = '(the authorizer may cache the old decision up to its TTL)';

export function keysCommand(kit: CommandKit): CommandUnknownOpts {
  return withSubcommands(
    examples(
      new Command('keys').description("an application's API keys"),
      'gco analytics keys list 5868017c-…',
    ),
    [
      createCommand(kit),
      listCommand(kit),
      onKey(kit, 'get', 'show a key (value masked)', { method: 'GET' }, apiKeyView),
      onKey(kit, 'enable', `enable a key ${CACHED}`, { method: 'PUT', body: { Enabled: true } }),
      onKey(kit, 'disable', `disable a key ${CACHED}`, { method: 'PUT', body: { Enabled: false } }),
      onKey(kit, 'delete', 'delete a key', { method: 'DELETE' }, deletedViewOf('apikey')),
    ],
  );
}

function createCommand(kit: CommandKit) {
  return examples(
    new Command('create')
      .description('create an API key (its value is shown only this once)')
      .argument('<application-id>', 'application id')
      .argument('<name>', 'key name')
      .option('--description <text>', 'description')
      .action(async (app, name, opts, cmd) => runCreate({ ...opts, app, name }, await kit.context(cmd))),
    'gco analytics keys create 5868017c-… "game client"',
    'KEY=$(gco analytics keys create "$APP" ci -q)',
  );
}

async function runCreate(
  options: { app: string; name: string; description?: string },
  ctx: CommandContext,
): Promise<void> {
  const body = nameAndDescription(options.name, options.description);
  await ctx.call(
    await ctx.analytics(),
    { method: 'POST', path: appPath(options.app, 'authorizations'), body },
    createdApiKeyView,
  );
}

function listCommand(kit: CommandKit) {
  return examples(
    new Command('list')
      .description('list the keys of an application (values masked)')
      .argument('<application-id>', 'application id')
      .action(async (app, _opts, cmd) => runList({ app }, await kit.context(cmd))),
    'gco analytics keys list 5868017c-…',
  );
}

async function runList(options: { app: string }, ctx: CommandContext): Promise<void> {
  await ctx.call(
    await ctx.analytics(),
    { method: 'GET', path: appPath(options.app, 'authorizations') },
    apiKeyListView,
  );
}

/** A verb on one key: `gco analytics keys <verb> <application-id> <key-id>`. */
function onKey(
  kit: CommandKit,
  verb: string,
  description: string,
  request: Omit<ApiRequest, 'path'>,
  view: View = {},
) {
  return examples(
    new Command(verb)
      .description(description)
      .argument('<application-id>', 'application id')
      .argument('<key-id>', 'key id')
      .action(async (app, key, _opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(
          await ctx.analytics(),
          { ...request, path: appPath(app, 'authorizations', key) },
          view,
        );
      }),
    `gco analytics keys ${verb} 5868017c-… dd4392ea-…`,
  );
}
