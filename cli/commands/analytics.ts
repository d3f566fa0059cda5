/**
 * `gco analytics …`: the game-analytics API (docs/analytics-api.md) — applications and API keys (SigV4),
 * sending events with a key (no SigV4), and the one-time warehouse setup.
 */
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { sendEvents, type SendSummary } from '../analytics-send.js';
import { examples, type CommandKit } from '../command-kit.js';
import type { CommandContext } from '../context.js';
import { ApiError, UsageError } from '../errors.js';
import { parseEventFile } from '../event-files.js';
import { pathOf, type ApiRequest } from '../http.js';
import { readText } from '../input-files.js';
import type { View } from '../output.js';
import { loadTableLibrary, renderTable } from '../table.js';
import {
  apiKeyListView,
  apiKeyView,
  applicationListView,
  applicationView,
  createdApiKeyView,
  deletedView,
} from '../views.js';

const MAX_FAILURES_SHOWN = 50;

const appPath = (id: string, ...rest: string[]) => pathOf('applications', id, ...rest);

/** The summary on stdout (table output) or stderr (json/yaml, whose stdout holds the API's answers). */
async function reportSummary(ctx: CommandContext, summary: SendSummary): Promise<void> {
  await loadTableLibrary();
  const failed = summary.failures.length;
  const head = `${summary.total} events: ${summary.accepted} accepted, ${failed} failed (${summary.batches} batches)\n`;
  const shown = summary.failures.slice(0, MAX_FAILURES_SHOWN);
  const table =
    failed === 0
      ? ''
      : renderTable(shown, [
          ['input', (f) => f.position],
          ['event id', (f) => f.eventId],
          ['error', (f) => f.code],
          ['message', (f) => f.message],
        ]) + (failed > shown.length ? `… and ${failed - shown.length} more\n` : '');
  if (ctx.out.format === 'table') {
    if (!ctx.out.quiet) ctx.out.raw(head + table);
  } else {
    ctx.out.info((head + table).trimEnd());
  }
}

/** The body of creating an application or a key: `Name`, and `Description` when given. */
const nameAndDescription = (name: string, description: string | undefined) => ({
  Name: name,
  ...(description !== undefined ? { Description: description } : {}),
});

function applicationsCommand(kit: CommandKit): CommandUnknownOpts {
  const apps = examples(
    new Command('apps').description('applications that send events'),
    'gco analytics apps list',
  );
  examples(
    apps
      .command('create')
      .description('register an application')
      .argument('<name>', 'application name')
      .option('--description <text>', 'description')
      .action(async (name, opts, cmd) => {
        const ctx = await kit.context(cmd);
        const body = nameAndDescription(name, opts.description);
        await ctx.call(
          await ctx.analytics(),
          { method: 'POST', path: '/applications', body },
          applicationView,
        );
      }),
    'gco analytics apps create "Space Miners" --description "PC build"',
  );
  examples(
    apps
      .command('list')
      .description('list applications')
      .action(async (_opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(await ctx.analytics(), { method: 'GET', path: '/applications' }, applicationListView);
      }),
    'gco analytics apps list',
  );
  /** A command on one application: `gco analytics apps <name> <application-id>`. */
  const onApplication = (name: string, description: string, method: 'GET' | 'DELETE', view: View) =>
    examples(
      apps
        .command(name)
        .description(description)
        .argument('<application-id>', 'application id')
        .action(async (id, _opts, cmd) => {
          const ctx = await kit.context(cmd);
          await ctx.call(await ctx.analytics(), { method, path: appPath(id) }, view);
        }),
      `gco analytics apps ${name} 5868017c-…`,
    );
  onApplication('get', 'show an application', 'GET', applicationView);
  onApplication(
    'delete',
    'delete an application and all its API keys (ingested data stays)',
    'DELETE',
    deletedView,
  );
  return apps;
}

function keysCommand(kit: CommandKit): CommandUnknownOpts {
  const keys = examples(
    new Command('keys').description("an application's API keys"),
    'gco analytics keys list 5868017c-…',
  );
  examples(
    keys
      .command('create')
      .description('create an API key (its value is shown only this once)')
      .argument('<application-id>', 'application id')
      .argument('<name>', 'key name')
      .option('--description <text>', 'description')
      .action(async (app, name, opts, cmd) => {
        const ctx = await kit.context(cmd);
        const body = nameAndDescription(name, opts.description);
        await ctx.call(
          await ctx.analytics(),
          { method: 'POST', path: appPath(app, 'authorizations'), body },
          createdApiKeyView,
        );
      }),
    'gco analytics keys create 5868017c-… "game client"',
    'KEY=$(gco analytics keys create "$APP" ci -q)',
  );
  examples(
    keys
      .command('list')
      .description('list the keys of an application (values masked)')
      .argument('<application-id>', 'application id')
      .action(async (app, _opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(
          await ctx.analytics(),
          { method: 'GET', path: appPath(app, 'authorizations') },
          apiKeyListView,
        );
      }),
    'gco analytics keys list 5868017c-…',
  );
  /** A command on one key: `gco analytics keys <name> <application-id> <key-id>`. */
  const onKey = (name: string, description: string, request: Omit<ApiRequest, 'path'>, view: View = {}) =>
    examples(
      keys
        .command(name)
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
      `gco analytics keys ${name} 5868017c-… dd4392ea-…`,
    );
  const cached = '(the authorizer may cache the old decision up to its TTL)';
  onKey('get', 'show a key (value masked)', { method: 'GET' }, apiKeyView);
  onKey('enable', `enable a key ${cached}`, { method: 'PUT', body: { Enabled: true } });
  onKey('disable', `disable a key ${cached}`, { method: 'PUT', body: { Enabled: false } });
  onKey('delete', 'delete a key', { method: 'DELETE' }, deletedView);
  return keys;
}

export function analyticsCommand(kit: CommandKit): CommandUnknownOpts {
  const analytics = examples(
    new Command('analytics').description('game analytics: applications, API keys, events'),
    'gco analytics send 5868017c-… events.ndjson --key "$API_KEY"',
  );
  analytics.addCommand(applicationsCommand(kit));
  analytics.addCommand(keysCommand(kit));

  examples(
    analytics
      .command('send')
      .description(
        'send events from a JSON array or NDJSON file in batches of 500 (exit 1 if any event failed)',
      )
      .argument('<application-id>', 'application id')
      .argument('<file>', 'events: a JSON array, or one JSON event per line; - reads stdin')
      .option('--key <api-key>', 'the API key (else GCO_ANALYTICS_KEY)')
      .action(async (app, file, opts, cmd) => {
        const ctx = await kit.context(cmd);
        const key = opts.key ?? ctx.io.env.GCO_ANALYTICS_KEY;
        if (key === undefined || key === '')
          throw new UsageError('An API key is needed: --key KEY or GCO_ANALYTICS_KEY');
        const { events, unreadable } = parseEventFile(
          await readText(file, ctx.io),
          file === '-' ? 'stdin' : file,
        );
        if (events.length === 0 && unreadable.length === 0) throw new UsageError(`No events in ${file}`);
        const client = await ctx.analyticsWithKey(key);
        const bar = ctx.out.interactive
          ? new (await import('cli-progress')).SingleBar({
              stream: ctx.io.stderr as NodeJS.WritableStream,
              format: 'sending |{bar}| {value}/{total} events',
              hideCursor: true,
              clearOnComplete: true,
            })
          : undefined;
        bar?.start(events.length, 0);
        let summary: SendSummary;
        try {
          summary = await sendEvents(client, events, unreadable, {
            applicationId: app,
            onBatch: (reply, sent) => {
              bar?.update(sent);
              if (ctx.out.format !== 'table') ctx.out.reply(reply);
            },
          });
        } finally {
          bar?.stop();
        }
        await reportSummary(ctx, summary);
        if (summary.failures.length > 0) {
          throw new ApiError(`${summary.failures.length} of ${summary.total} events were not accepted`);
        }
      }),
    'gco analytics send 5868017c-… events.ndjson --key "$API_KEY"',
    'producer | GCO_ANALYTICS_KEY=gak_… gco analytics send 5868017c-… -',
  );

  examples(
    analytics
      .command('setup')
      .description('create the warehouse views over the event stream (safe to repeat)')
      .action(async (_opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(await ctx.analytics(), { method: 'POST', path: '/redshift/setup' });
      }),
    'gco analytics setup',
  );
  return analytics;
}
