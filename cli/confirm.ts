/**
 * Commands that delete what cannot be brought back (`jobs bulk-delete`, `jobs delete` of several, `queue
 * cancel` of several, `analytics apps delete`, `webhooks delete`) ask first, as `gh` does
 * (https://cli.github.com/manual/gh_repo_delete): on a terminal they show what will go and ask (y/N);
 * without one (a script, a pipe, CI) they refuse unless `--yes` is given, and `--dry-run` only lists.
 * The refusal happens before any request, so a script that forgot `--yes` changes nothing.
 */
import type { Readable } from 'node:stream';
import { apiErrorOf } from './api-errors.js';
import type { CommandContext } from './context.js';
import { UsageError } from './errors.js';
import type { ApiClient, ApiReply, ApiRequest } from './http.js';
import type { CliIo } from './io.js';
import { loadOutputLibraries, type Printer, type View } from './output.js';

export interface DestructiveOptions {
  yes?: boolean;
  dryRun?: boolean;
}

/** Option texts shared by the destructive commands. */
export const YES_OPTION = ['-y, --yes', 'do not ask for confirmation (needed without a terminal)'] as const;
export const DRY_RUN_OPTION = ['--dry-run', 'list what would be deleted, delete nothing'] as const;

/** Someone can answer a question: stdin and stderr are a terminal. */
const canAsk = (io: CliIo) => io.stdin.isTTY === true && io.stderr.isTTY === true;

/**
 * Whether the command must ask before it deletes: false with `--yes` or `--dry-run`, true on a terminal;
 * without a terminal, a usage error (exit 2) before anything is sent.
 * @param what what would go, for the message: `3 jobs`, `application 5868…`
 */
export function mustAsk(io: CliIo, options: DestructiveOptions, what: string, verb = 'delete'): boolean {
  if (options.yes === true || options.dryRun === true) return false;
  if (canAsk(io)) return true;
  throw new UsageError(
    `refusing to ${verb} ${what} without confirmation: stdin is not a terminal to ask on`,
    `add --yes to ${verb} without asking, or --dry-run to list what would go`,
  );
}

/** Reads every resource before anything is deleted (to list or show it); one that cannot be read stops. */
export async function readEach(client: ApiClient, paths: readonly string[]): Promise<ApiReply[]> {
  const replies: ApiReply[] = [];
  for (const path of paths) {
    const reply = await client.send({ method: 'GET', path });
    if (reply.status !== 200) throw apiErrorOf(reply);
    replies.push(reply);
  }
  return replies;
}

/**
 * Sends every deletion (all of them, as `kubectl delete` goes on past a missing one), prints the
 * answers of those that succeeded (several in one table: Printer.replies), then fails with the first
 * refusal.
 */
export async function deleteEach(
  ctx: CommandContext,
  client: ApiClient,
  requests: readonly ApiRequest[],
  view: View,
  list: Parameters<Printer['replies']>[2],
): Promise<void> {
  const replies: ApiReply[] = [];
  for (const request of requests) replies.push(await client.send(request));
  const ok = (reply: ApiReply) => reply.status >= 200 && reply.status < 300;
  ctx.out.replies(replies.filter(ok), view, list);
  const failed = replies.find((reply) => !ok(reply));
  if (failed !== undefined) throw apiErrorOf(failed);
}

/** Shows `listing` with `view` on stderr and asks; true when the answer is yes. */
export async function confirmDeletion(
  ctx: CommandContext,
  question: string,
  listing?: { value: unknown; view: View },
): Promise<boolean> {
  if (listing !== undefined) {
    await loadOutputLibraries('table');
    ctx.out.show(listing.value, listing.view);
  }
  ctx.io.stderr.write(`${question} [y/N] `);
  const answer = (await readLine(ctx.io.stdin)).trim();
  const yes = /^y(es)?$/i.test(answer);
  if (!yes) ctx.io.stderr.write('Nothing done.\n');
  return yes;
}

/** One line of the terminal's input (the answer to a question); what came before its end if none. */
function readLine(stdin: Readable): Promise<string> {
  return new Promise((resolve) => {
    let buffered = '';
    const done = (line: string) => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.pause();
      resolve(line);
    };
    const onData = (chunk: Buffer | string) => {
      buffered += chunk.toString();
      const end = buffered.indexOf('\n');
      if (end >= 0) done(buffered.slice(0, end));
    };
    const onEnd = () => done(buffered);
    stdin.on('data', onData);
    stdin.once('end', onEnd);
  });
}
