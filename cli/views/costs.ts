/** Views of the cost allocation reports (docs/cost.md). */
import type { CostReport, CostReportList } from '../../contracts/api/cost-monitor.js';
import { renderFields, renderTable } from '../table.js';
import { listView, recordOf, rowsOf, text, viewOf, type Fields } from './common.js';

/** A listed report: the summary fields of a report (no rows). */
type ListedReport = CostReportList['reports'][number];

const windowText = (r: Fields<CostReport | ListedReport>) => {
  const w = recordOf<CostReport['window']>(r.window);
  return `${text(w.start)} → ${text(w.end)}`;
};

const totalsOf = (r: Fields<CostReport | ListedReport>) => recordOf<CostReport['totals']>(r.totals);

export const costReportListView = listView<ListedReport>(
  'reports',
  [
    ['report id', (r) => r.report_id],
    ['kind', (r) => r.kind],
    ['window', windowText],
    ['total cost', (r) => totalsOf(r).total_cost],
    ['generated', (r) => r.generated_at],
  ],
  (r) => text(r.report_id),
  'costreport',
);

export const costReportView = viewOf<CostReport>({
  render(r) {
    const head = renderFields([
      ['report_id', r.report_id],
      ['region', r.region],
      ['window', windowText(r)],
      ['total_cost', totalsOf(r).total_cost],
      ['idle_cost', totalsOf(r).idle_cost],
    ]);
    return `${head}\n${renderTable(rowsOf<CostReport['by_namespace'][number]>(r.by_namespace), [
      ['namespace', (n) => n.namespace],
      ['workloads', (n) => n.workloads],
      ['total cost', (n) => n.total_cost],
    ])}`;
  },
  ids: (r) => [text(r.report_id)],
  kind: 'costreport',
});
