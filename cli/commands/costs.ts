/** `gco costs …`: a region's cost allocation reports through manifest-processor (docs/cost.md). */
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { examples, type CommandKit } from '../command-kit.js';
import { integerIn } from '../options.js';
import { costReportListView, costReportView } from '../views/costs.js';

export function costsCommand(kit: CommandKit): CommandUnknownOpts {
  const costs = examples(
    new Command('costs').description('cost allocation reports of a region'),
    'gco costs reports',
  );

  examples(
    costs
      .command('reports')
      .description('list the most recent reports (scheduled, or ad-hoc with --adhoc)')
      .option('--adhoc', 'ad-hoc reports instead of scheduled ones')
      .option('--limit <n>', 'at most this many', integerIn(1, 1000))
      .action(async (opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(
          await ctx.control(),
          {
            method: 'GET',
            path: '/api/v1/cost/reports',
            query: { adhoc: opts.adhoc === true ? true : undefined, limit: opts.limit },
          },
          costReportListView,
        );
      }),
    'gco --region us-east-1 costs reports --limit 5',
  );

  examples(
    costs
      .command('report')
      .description('generate an ad-hoc report of the trailing window')
      .option('--window-hours <hours>', 'trailing window (server default 24)', integerIn(1, 168))
      .option('--include-rows', 'include every allocation row')
      .action(async (opts, cmd) => {
        const ctx = await kit.context(cmd);
        const body = { window_hours: opts.windowHours, include_rows: opts.includeRows };
        await ctx.call(
          await ctx.control(),
          { method: 'POST', path: '/api/v1/cost/reports', body },
          costReportView,
        );
      }),
    'gco costs report --window-hours 6',
  );

  examples(
    costs
      .command('status')
      .description('cost monitoring status, including the cost-data source')
      .action(async (_opts, cmd) => {
        const ctx = await kit.context(cmd);
        await ctx.call(await ctx.control(), { method: 'GET', path: '/api/v1/cost/status' });
      }),
    'gco costs status',
  );
  return costs;
}
