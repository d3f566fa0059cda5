/** `gco analytics apps create|list|get|delete`: the applications that send events (SigV4). */
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { bareName, examples, withSubcommands, type CommandKit } from '../../command-kit.js';
import { YES_OPTION, confirmDeletion, mustAsk, readEach, type DestructiveOptions } from '../../confirm.js';
import type { CommandContext } from '../../context.js';
import { applicationListView, applicationView } from '../../views/analytics.js';
import { deletedViewOf } from '../../views/common.js';
import { appPath, nameAndDescription } from './common.js';

export function appsCommand(kit: CommandKit): CommandUnknownOpts {
  return withSubcommands(
    examples(new Command('apps').description('applications that send events'), 'gco analytics apps list'),
    [createCommand(kit), listCommand(kit), getCommand(kit), deleteCommand(kit)],
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

/** An application id as given: the id, or `application/ID` as `-o name` prints it. */
const applicationIdOf = (arg: string) => bareName(arg, ['application', 'applications']);

function getCommand(kit: CommandKit) {
  return examples(
    new Command('get')
      .description('show an application')
      .argument('<application-id>', 'application id (ID or application/ID)')
      .action(async (id, _opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(
          await ctx.analytics(),
          { method: 'GET', path: appPath(applicationIdOf(id)) },
          applicationView,
        );
      }),
    'gco analytics apps get 5868017c-…',
  );
}

/**
 * Deleting an application deletes all its API keys, and cannot be undone: it is shown and confirmed
 * first (confirm.ts: `--yes` without a terminal); `--dry-run` only shows it.
 */
function deleteCommand(kit: CommandKit) {
  return examples(
    new Command('delete')
      .description('delete an application and all its API keys (ingested data stays); asks first')
      .argument('<application-id>', 'application id (ID or application/ID)')
      .option(...YES_OPTION)
      .option('--dry-run', 'show the application that would be deleted, delete nothing')
      .action(async (id, opts, cmd) =>
        runDelete({ ...opts, id: applicationIdOf(id) }, await kit.context(cmd)),
      ),
    'gco analytics apps delete 5868017c-…',
    'gco analytics apps delete "$APP" --yes      # in a script',
  );
}

async function runDelete(options: DestructiveOptions & { id: string }, ctx: CommandContext): Promise<void> {
  const ask = mustAsk(ctx.io, options, `application ${options.id} and all its API keys`);
  const client = await ctx.analytics();
  if (ask || options.dryRun === true) {
    const [application] = await readEach(client, [appPath(options.id)]);
    if (application === undefined) return;
    if (options.dryRun === true) {
      ctx.out.reply(application, applicationView);
      ctx.out.info('(dry run: this application and all its API keys would be deleted, nothing deleted)');
      return;
    }
    const listing = { value: application.json, view: applicationView };
    const question = 'Delete this application and all its API keys?';
    if (!(await confirmDeletion(ctx, question, listing))) return;
  }
  // The API answers a sentence, so the id named is the deleted application's identifier.
  const deleted = { ...deletedViewOf('application'), ids: () => [options.id] };
  await ctx.call(client, { method: 'DELETE', path: appPath(options.id) }, deleted);
}
