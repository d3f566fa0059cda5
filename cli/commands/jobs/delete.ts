/**
 * `gco jobs delete`: jobs and their pods, optionally only while a job still has a given uid. One job goes
 * at once, as with kubectl; several are shown and confirmed first (confirm.ts: `--yes` without a
 * terminal), and `--dry-run` only lists them.
 */
import { Command } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../../command-kit.js';
import {
  DRY_RUN_OPTION,
  YES_OPTION,
  confirmDeletion,
  deleteEach,
  mustAsk,
  readEach,
  type DestructiveOptions,
} from '../../confirm.js';
import type { CommandContext } from '../../context.js';
import { UsageError } from '../../errors.js';
import { deletedViewOf, listView } from '../../views/common.js';
import { JOB_KIND, jobListView, jobView } from '../../views/jobs.js';
import { jobNameOf, jobPath, namespaceOption } from './common.js';

interface DeleteOptions extends DestructiveOptions {
  namespace: string;
  names: string[];
  expectedUid?: string;
}

const deletedJobView = deletedViewOf(JOB_KIND);
const deletedJobsView = listView<{ namespace: string; name: string; deleted: boolean }>(
  'jobs',
  [
    ['namespace', (j) => j.namespace],
    ['name', (j) => j.name],
    ['deleted', (j) => j.deleted],
  ],
  (j) => String(j.name),
  JOB_KIND,
);

export function deleteCommand(kit: CommandKit) {
  return examples(
    new Command('delete')
      .description('delete jobs and their pods (several: shown and confirmed first)')
      .argument('<names...>', 'job names (NAME or job/NAME)')
      .addOption(namespaceOption())
      .option(
        '--expected-uid <uid>',
        'delete only if the job still has this uid (409 otherwise; one job only)',
      )
      .option(...YES_OPTION)
      .option(...DRY_RUN_OPTION)
      .action(async (names, opts, cmd) =>
        runDelete({ ...opts, names: names.map(jobNameOf) }, await kit.context(cmd)),
      ),
    'gco jobs delete train --expected-uid 3f1c…',
    'gco jobs list --status failed -o name | xargs gco jobs delete --yes',
  );
}

async function runDelete(options: DeleteOptions, ctx: CommandContext): Promise<void> {
  const names = [...new Set(options.names)];
  if (options.expectedUid !== undefined && names.length > 1) {
    throw new UsageError('--expected-uid is the uid of one job: give one name with it');
  }
  const ask = names.length > 1 && mustAsk(ctx.io, options, `${names.length} jobs`);
  const client = await ctx.control();
  if (ask || options.dryRun === true) {
    const jobs = await readEach(
      client,
      names.map((name) => jobPath(options.namespace, name)),
    );
    if (options.dryRun === true) {
      ctx.out.replies(jobs, jobView, { view: jobListView, of: (bodies) => ({ jobs: bodies }) });
      ctx.out.info(`(dry run: ${jobs.length} job(s) would be deleted, nothing deleted)`);
      return;
    }
    const listing = { value: { jobs: jobs.map((r) => r.json) }, view: jobListView };
    if (!(await confirmDeletion(ctx, `Delete these ${jobs.length} jobs and their pods?`, listing))) return;
  }
  const requests = names.map((name) => ({
    method: 'DELETE' as const,
    path: jobPath(options.namespace, name),
    query: { expected_uid: options.expectedUid },
  }));
  await deleteEach(ctx, client, requests, deletedJobView, {
    view: deletedJobsView,
    of: (bodies) => ({ jobs: bodies }),
  });
}
