/** `gco jobs list`: the jobs of one region, or of every region through the global API (`--all-regions`). */
import { Command, Option } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { integerIn } from '../../options.js';
import { jobListView } from '../../views/jobs.js';
import { JOB_STATUSES, jobsClient, jobsPath, type JobStatusFilter } from './common.js';

interface ListOptions {
  namespace?: string;
  status?: JobStatusFilter;
  labelSelector?: string;
  limit?: number;
  offset?: number;
  sort?: string;
  allRegions?: boolean;
}

export function listCommand(kit: CommandKit) {
  return examples(
    new Command('list')
      .description('list jobs (one region, or every region with --all-regions)')
      .option('-n, --namespace <namespace>', 'only this namespace')
      .addOption(
        new Option('--status <status>', 'only jobs in this state (completed = succeeded or failed)').choices(
          JOB_STATUSES,
        ),
      )
      .option('-l, --label-selector <selector>', 'comma-separated key=value labels')
      .option('--limit <n>', 'at most this many jobs', integerIn(1, 1000))
      .option('--offset <n>', 'skip this many jobs', integerIn(0, Number.MAX_SAFE_INTEGER))
      .option(
        '--sort <field:direction>',
        'createdAt, name, namespace, status, startedAt or completedAt, :asc or :desc',
      )
      .option('--all-regions', 'every region, through the global API (GET /api/v1/global/jobs)')
      .action(async (opts, cmd) => runList(opts, await kit.context(cmd))),
    'gco jobs list -n svc-jobs --status running',
    'gco jobs list --all-regions --sort name:asc -o json',
  );
}

async function runList(options: ListOptions, ctx: CommandContext): Promise<void> {
  await ctx.call(
    await jobsClient(ctx, options.allRegions),
    {
      method: 'GET',
      path: jobsPath(options.allRegions),
      query: {
        namespace: options.namespace,
        status: options.status,
        label_selector: options.labelSelector,
        limit: options.limit,
        offset: options.offset,
        sort: options.sort,
      },
    },
    jobListView,
  );
}
