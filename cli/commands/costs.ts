/**
 * `gco costs …`: a region's cost allocation reports through manifest-processor (docs/cost.md). With
 * `--include-rows` the table output adds the allocation rows after the report's summary.
 */
import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import type { CostReport } from '../../contracts/api/cost-monitor.js';
import { examples, type CommandKit } from '../command-kit.js';
import { integerIn } from '../options.js';
import type { View } from '../output.js';
import { renderTable } from '../table.js';
import { recordOf, rowsOf } from '../views/common.js';
import { costReportListView, costReportView } from '../views/costs.js';

type CostRow = NonNullable<CostReport['rows']>[number];

/** The report, then one line per allocation row (region, namespace, workload and its figures). */
const costReportWithRowsView: View = {
  ...costReportView,
  render(body) {
    const rows = rowsOf<CostRow>(recordOf<CostReport>(body).rows);
    const table = renderTable(
      rows,
      [
        ['namespace', (r) => r.namespace],
        ['workload', (r) => r.workload],
        ['kind', (r) => r.workload_kind],
        ['window start', (r) => r.window_start],
        ['cpu eff', (r) => r.cpu_efficiency],
        ['ram eff', (r) => r.ram_efficiency],
        ['total cost', (r) => r.total_cost],
      ],
      'No allocation rows in this window.',
    );
    return `${costReportView.render?.(body) ?? ''}\nRows:\n${table}`;
  },
};

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
          opts.includeRows === true ? costReportWithRowsView : costReportView,
        );
      }),
    'gco costs report --window-hours 6',
    'gco costs report --window-hours 6 --include-rows',
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
