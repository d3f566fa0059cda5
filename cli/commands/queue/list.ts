/** `gco queue list`: queued jobs, newest first, a page at a time, with their Kubernetes Job names. */
import { Command, Option } from '@commander-js/extra-typings';
import { QUEUE_STATUSES, type QueueStatus } from '../../../contracts/queue-states.js';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { integerIn, regionName } from '../../options.js';
import { queueTableView } from './common.js';

interface ListOptions {
  targetRegion?: string;
  status?: QueueStatus;
  namespace?: string;
  limit?: number;
  cursor?: string;
}

export function listCommand(kit: CommandKit) {
  return examples(
    new Command('list')
      .description('list queued jobs, newest first')
      .option('--target-region <region>', 'only jobs for this region', regionName)
      .addOption(new Option('--status <status>', 'only jobs in this state').choices(QUEUE_STATUSES))
      .option('-n, --namespace <namespace>', 'only this namespace')
      .option('--limit <n>', 'page size', integerIn(1, 1000))
      .option('--cursor <cursor>', 'the next_cursor of the previous page')
      .action(async (opts, cmd) => runList(opts, await kit.context(cmd))),
    'gco queue list --status queued --target-region us-east-1',
  );
}

async function runList(options: ListOptions, ctx: CommandContext): Promise<void> {
  const query = {
    target_region: options.targetRegion,
    status: options.status,
    namespace: options.namespace,
    limit: options.limit,
    cursor: options.cursor,
  };
  await ctx.call(await ctx.control(), { method: 'GET', path: '/api/v1/queue/jobs', query }, queueTableView);
}
