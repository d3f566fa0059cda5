/**
 * `gco queue cancel`: jobs that are still queued (the queue answers 409 once a region claimed one). One
 * job is cancelled at once; several are shown and confirmed first (confirm.ts: `--yes` without a
 * terminal), and `--dry-run` only lists them.
 */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import {
  YES_OPTION,
  confirmDeletion,
  deleteEach,
  mustAsk,
  readEach,
  type DestructiveOptions,
} from '../../confirm.js';
import type { CommandContext } from '../../context.js';
import { queueListView, queuedJobView } from '../../views/queue.js';
import { queuedJobPath, queuedJobRefOf } from './common.js';

interface CancelOptions extends DestructiveOptions {
  ids: string[];
  reason?: string;
}

/** Several queued jobs as the list answer `queueListView` renders. */
const asList = (bodies: unknown[]) => ({ jobs: bodies });

export function cancelCommand(kit: CommandKit) {
  return examples(
    new Command('cancel')
      .description('cancel jobs that are still queued (409 once claimed; several: confirmed first)')
      .argument('<job-ids...>', 'queued job ids (ID or queuedjob/ID)')
      .option('--reason <text>', 'why (kept on the record)')
      .option(...YES_OPTION)
      .option('--dry-run', 'list what would be cancelled, cancel nothing')
      .action(async (ids, opts, cmd) =>
        runCancel({ ...opts, ids: ids.map(queuedJobRefOf) }, await kit.context(cmd)),
      ),
    'gco queue cancel 6f1e0c2a-… --reason "superseded"',
    'gco queue list --status queued -o name | xargs gco queue cancel --yes',
  );
}

async function runCancel(options: CancelOptions, ctx: CommandContext): Promise<void> {
  const ids = [...new Set(options.ids)];
  const ask = ids.length > 1 && mustAsk(ctx.io, options, `${ids.length} queued jobs`, 'cancel');
  const client = await ctx.control();
  if (ask || options.dryRun === true) {
    const jobs = await readEach(client, ids.map(queuedJobPath));
    if (options.dryRun === true) {
      ctx.out.replies(jobs, queuedJobView, { view: queueListView, of: asList });
      ctx.out.info(`(dry run: ${jobs.length} queued job(s) would be cancelled, nothing cancelled)`);
      return;
    }
    const listing = { value: asList(jobs.map((r) => r.json)), view: queueListView };
    if (!(await confirmDeletion(ctx, `Cancel these ${jobs.length} queued jobs?`, listing))) return;
  }
  const requests = ids.map((id) => ({
    method: 'DELETE' as const,
    path: queuedJobPath(id),
    query: { reason: options.reason },
  }));
  await deleteEach(ctx, client, requests, queuedJobView, { view: queueListView, of: asList });
}
