/** Views of the cost allocation reports (docs/cost.md). */
import { renderFields, renderTable } from '../table.js';
import { listView, recordOf, rowsOf, text, viewOf, type Fields } from './common.js';

interface Totals {
  total_cost: number;
  idle_cost: number;
}

interface NamespaceCost {
  namespace: string;
  workloads: number;
  total_cost: number;
}

interface CostReport {
  report_id: string;
  kind: string;
  region: string;
  window: { start: string; end: string };
  totals: Totals;
  by_namespace: NamespaceCost[];
  generated_at: string;
}

const windowText = (r: Fields<CostReport>) => {
  const w = recordOf<CostReport['window']>(r.window);
  return `${text(w.start)} → ${text(w.end)}`;
};

const totalsOf = (r: Fields<CostReport>) => recordOf<Totals>(r.totals);

export const costReportListView = listView<CostReport>(
  'reports',
  [
    ['report id', (r) => r.report_id],
    ['kind', (r) => r.kind],
    ['window', windowText],
    ['total cost', (r) => totalsOf(r).total_cost],
    ['generated', (r) => r.generated_at],
  ],
  (r) => text(r.report_id),
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
    return `${head}\n${renderTable(rowsOf<NamespaceCost>(r.by_namespace), [
      ['namespace', (n) => n.namespace],
      ['workloads', (n) => n.workloads],
      ['total cost', (n) => n.total_cost],
    ])}`;
  },
  ids: (r) => [text(r.report_id)],
});
