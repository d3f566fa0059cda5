/**
 * `gco analytics send`: events from a JSON array or NDJSON file, in batches, with the application's API
 * key (no SigV4); a progress bar on a terminal, a summary at the end, exit 1 if any event failed.
 */
import { Command } from '@commander-js/extra-typings';
import { sendEvents, type SendSummary } from '../../analytics-send.js';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { ApiError, UsageError } from '../../errors.js';
import { parseEventFile } from '../../event-files.js';
import { readText } from '../../input-files.js';
import { loadTableLibrary, renderTable } from '../../table.js';

const MAX_FAILURES_SHOWN = 50;

interface SendOptions {
  app: string;
  file: string;
  key?: string;
}

export function sendCommand(kit: CommandKit) {
  return examples(
    new Command('send')
      .description(
        'send events from a JSON array or NDJSON file in batches of 500 (exit 1 if any event failed)',
      )
      .argument('<application-id>', 'application id')
      .argument('<file>', 'events: a JSON array, or one JSON event per line; - reads stdin')
      .option('--key <api-key>', 'the API key (else GCO_ANALYTICS_KEY)')
      .action(async (app, file, opts, cmd) => runSend({ ...opts, app, file }, await kit.context(cmd))),
    'gco analytics send 5868017c-… events.ndjson --key "$API_KEY"',
    'producer | GCO_ANALYTICS_KEY=gak_… gco analytics send 5868017c-… -',
  );
}

async function runSend(options: SendOptions, ctx: CommandContext): Promise<void> {
  const key = options.key ?? ctx.io.env.GCO_ANALYTICS_KEY;
  if (key === undefined || key === '')
    throw new UsageError('An API key is needed: --key KEY or GCO_ANALYTICS_KEY');
  const { file } = options;
  const { events, unreadable } = parseEventFile(await readText(file, ctx.io), file === '-' ? 'stdin' : file);
  if (events.length === 0 && unreadable.length === 0) throw new UsageError(`No events in ${file}`);
  const client = await ctx.analyticsWithKey(key);
  const bar = await progressBar(ctx);
  bar?.start(events.length, 0);
  let summary: SendSummary;
  try {
    summary = await sendEvents(client, events, unreadable, {
      applicationId: options.app,
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
}

/** A progress bar on stderr when a person watches it (cli-progress is loaded only then). */
async function progressBar(ctx: CommandContext) {
  if (!ctx.out.interactive) return undefined;
  return new (await import('cli-progress')).SingleBar({
    stream: ctx.io.stderr as NodeJS.WritableStream,
    format: 'sending |{bar}| {value}/{total} events',
    hideCursor: true,
    clearOnComplete: true,
  });
}

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
