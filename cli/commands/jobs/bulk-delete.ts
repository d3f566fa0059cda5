/**
 * `gco jobs bulk-delete`: every job matching all the filters, in one region or in every region. It asks
 * first (confirm.ts): on a terminal it shows the server's dry run of the same filters and asks; without
 * one it refuses unless `--yes` is given. `--dry-run` only lists (the upstream CLI's default).
 */
import { Command, Option } from '@commander-js/extra-typings';
import type { BulkDeleteResult } from '../../../contracts/api/manifest-processor.js';
import { apiErrorOf } from '../../api-errors.js';
import { examples, type CommandKit } from '../../command-kit.js';
import {
  DRY_RUN_OPTION,
  YES_OPTION,
  confirmDeletion,
  mustAsk,
  type DestructiveOptions,
} from '../../confirm.js';
import type { CommandContext } from '../../context.js';
import { UsageError } from '../../errors.js';
import { integerIn } from '../../options.js';
import { recordOf, text } from '../../views/common.js';
import { bulkDeleteView } from '../../views/jobs.js';
import { JOB_STATUSES, jobsClient, jobsPath, type JobStatusFilter } from './common.js';

interface BulkDeleteOptions extends DestructiveOptions {
  namespace?: string;
  status?: JobStatusFilter;
  labelSelector?: string;
  olderThanDays?: number;
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
      .option(...DRY_RUN_OPTION)
      .option(...YES_OPTION)
      .option('--all-regions', 'in every region, through the global API (DELETE /api/v1/global/jobs)')
      .action(async (opts, cmd) => runBulkDelete(opts, await kit.context(cmd))),
    'gco jobs bulk-delete --status completed --older-than-days 7 --dry-run',
    'gco jobs bulk-delete -n svc-jobs -l team=a --all-regions',
    'gco jobs bulk-delete -n svc-jobs --status succeeded --yes      # in a script',
  );
}

async function runBulkDelete(options: BulkDeleteOptions, ctx: CommandContext): Promise<void> {
  const ask = mustAsk(ctx.io, options, 'the matching jobs');
  // Only the filters given: the server reads an absent filter as "any".
  const filters = {
    namespace: options.namespace,
    status: options.status,
    label_selector: options.labelSelector,
    older_than_days: options.olderThanDays,
  };
  if (options.dryRun !== true && Object.values(filters).every((v) => v === undefined)) {
    throw new UsageError(
      'bulk-delete needs at least one filter: -n, --status, -l or --older-than-days (or --dry-run to list every job)',
    );
  }
  const client = await jobsClient(ctx, options.allRegions);
  const path = jobsPath(options.allRegions);
  if (ask) {
    const preview = await client.send({ method: 'DELETE', path, body: { ...filters, dry_run: true } });
    if (preview.status !== 200) throw apiErrorOf(preview);
    const matched = recordOf<BulkDeleteResult>(preview.json).matched;
    if (matched === 0) {
      ctx.out.reply(preview, bulkDeleteView);
      return;
    }
    const listing = { value: preview.json, view: bulkDeleteView };
    if (!(await confirmDeletion(ctx, `Delete these ${text(matched)} jobs and their pods?`, listing))) return;
  }
  await ctx.call(
    client,
    { method: 'DELETE', path, body: { ...filters, dry_run: options.dryRun } },
    bulkDeleteView,
  );
}
