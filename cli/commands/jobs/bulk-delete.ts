/** `gco jobs bulk-delete`: every job matching all the filters, in one region or in every region. */
import { Command, Option } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { integerIn } from '../../options.js';
import { bulkDeleteView } from '../../views/jobs.js';
import { JOB_STATUSES, jobsClient, jobsPath, type JobStatusFilter } from './common.js';

interface BulkDeleteOptions {
  namespace?: string;
  status?: JobStatusFilter;
  labelSelector?: string;
  olderThanDays?: number;
  dryRun?: true;
  allRegions?: boolean;
}

export function bulkDeleteCommand(kit: CommandKit) {
  return examples(
    new Command('bulk-delete')
      .description('delete every job matching all the given filters (at least one unless --dry-run)')
      .option('-n, --namespace <namespace>', 'only this namespace')
      .addOption(new Option('--status <status>', 'only jobs in this state').choices(JOB_STATUSES))
      .option('-l, --label-selector <selector>', 'comma-separated key=value labels')
      .option('--older-than-days <days>', 'only jobs created longer ago', integerIn(1, 365))
      .option('--dry-run', 'list what would be deleted')
      .option('--all-regions', 'in every region, through the global API (DELETE /api/v1/global/jobs)')
      .action(async (opts, cmd) => runBulkDelete(opts, await kit.context(cmd))),
    'gco jobs bulk-delete --status completed --older-than-days 7 --dry-run',
    'gco jobs bulk-delete -n svc-jobs -l team=a --all-regions',
  );
}

async function runBulkDelete(options: BulkDeleteOptions, ctx: CommandContext): Promise<void> {
  // Only the filters given: the server reads an absent filter as "any".
  const body = {
    dry_run: options.dryRun,
    namespace: options.namespace,
    status: options.status,
    label_selector: options.labelSelector,
    older_than_days: options.olderThanDays,
  };
  await ctx.call(
    await jobsClient(ctx, options.allRegions),
    { method: 'DELETE', path: jobsPath(options.allRegions), body },
    bulkDeleteView,
  );
}
