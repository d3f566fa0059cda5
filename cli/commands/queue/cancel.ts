/** `gco queue cancel`: a job that is still queued (the queue answers 409 once a region claimed it). */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { queuedJobView } from '../../views/queue.js';
import { queuedJobPath } from './common.js';

interface CancelOptions {
  id: string;
  reason?: string;
}

export function cancelCommand(kit: CommandKit) {
  return examples(
    new Command('cancel')
      .description('cancel a job that is still queued (409 once claimed)')
      .argument('<job-id>', 'queued job id')
      .option('--reason <text>', 'why (kept on the record)')
      .action(async (id, opts, cmd) => runCancel({ ...opts, id }, await kit.context(cmd))),
    'gco queue cancel 6f1e0c2a-… --reason "superseded"',
  );
}

async function runCancel(options: CancelOptions, ctx: CommandContext): Promise<void> {
  await ctx.call(
    await ctx.control(),
    { method: 'DELETE', path: queuedJobPath(options.id), query: { reason: options.reason } },
    queuedJobView,
  );
}
