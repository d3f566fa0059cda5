/**
 * Cost reports: report windows, deterministic S3 keys, and the normalization of OpenCost allocations into
 * rows, per-namespace totals and report totals (format documented in docs/cost.md).
 */
import { IDLE, rfc3339, UNALLOCATED, type Allocation } from './opencost.js';

export type ReportKind = 'scheduled' | 'adhoc';

export interface ReportWindow {
  start: Date;
  end: Date;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/**
 * The last window of `intervalMinutes` (aligned to multiples of it since the epoch, i.e. since midnight
 * UTC because the interval divides a day) that ended at least `settleMinutes` before `now`.
 * E.g. interval 60, settle 5: at 10:07 → 09:00–10:00; at 10:03 → 08:00–09:00.
 */
export function lastCompletedWindow(now: Date, intervalMinutes: number, settleMinutes = 0): ReportWindow {
  const intervalMs = intervalMinutes * MINUTE_MS;
  const reference = now.getTime() - settleMinutes * MINUTE_MS;
  const end = Math.floor(reference / intervalMs) * intervalMs;
  return { start: new Date(end - intervalMs), end: new Date(end) };
}

/** The trailing `hours` ending at the current whole minute (OpenCost resolves data per minute). */
export function trailingWindow(now: Date, hours: number): ReportWindow {
  const end = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS;
  return { start: new Date(end - hours * HOUR_MS), end: new Date(end) };
}

function windowHours(window: ReportWindow): number {
  return (window.end.getTime() - window.start.getTime()) / HOUR_MS;
}

/** Key prefix under which a region's reports of one kind live (listing reads below it). */
export function reportPrefix(kind: ReportKind, region: string): string {
  return kind === 'scheduled' ? `reports/region=${region}/` : `adhoc/region=${region}/`;
}

/** `reports/region=<r>/date=<YYYY-MM-DD>/<windowStart>_<windowEnd>.json` (date of the window start, UTC). */
export function scheduledKey(region: string, window: ReportWindow): string {
  const date = rfc3339(window.start).slice(0, 10);
  return `${reportPrefix('scheduled', region)}date=${date}/${rfc3339(window.start)}_${rfc3339(window.end)}.json`;
}

/** `adhoc/region=<r>/<generatedAt ISO-8601 with ms>-<id>.json`: fixed-width timestamps sort by time. */
export function adhocKey(region: string, generatedAt: Date, id: string): string {
  return `${reportPrefix('adhoc', region)}${generatedAt.toISOString()}-${id}.json`;
}

/** Deterministic id of a scheduled report: the same window always yields the same id (and S3 key). */
export function scheduledReportId(region: string, window: ReportWindow): string {
  const compact = (d: Date) => rfc3339(d).replace(/[-:]/g, '').replace(/00Z$/, 'Z');
  return `scheduled-${region}-${compact(window.start)}-${compact(window.end)}`;
}

/** Costs and usage shared by rows, namespace totals and report totals. */
interface CostFigures {
  cpu_core_hours: number;
  cpu_cost: number;
  gpu_hours: number;
  gpu_cost: number;
  ram_byte_hours: number;
  ram_cost: number;
  pv_byte_hours: number;
  pv_cost: number;
  network_transfer_bytes: number;
  network_receive_bytes: number;
  network_cost: number;
  load_balancer_cost: number;
  shared_cost: number;
  external_cost: number;
  total_cost: number;
}

export interface CostRow extends CostFigures {
  region: string;
  cluster: string;
  namespace: string;
  /** Controller name, `__unallocated__` for pods without one, `__idle__` for the idle row. */
  workload: string;
  /** Controller kind (deployment, statefulset, job…), null when there is none. */
  workload_kind: string | null;
  window_start: string;
  window_end: string;
  cpu_efficiency: number;
  ram_efficiency: number;
}

export interface NamespaceTotals extends CostFigures {
  namespace: string;
  workloads: number;
}

export interface ReportTotals extends CostFigures {
  /** Cost attributed to namespaces (total minus idle). */
  allocated_cost: number;
  /** Cost of capacity no workload used (OpenCost's `__idle__`). */
  idle_cost: number;
}

export interface CostReport {
  report_id: string;
  kind: ReportKind;
  region: string;
  cluster: string;
  key: string;
  window: { start: string; end: string; hours: number };
  generated_at: string;
  source: { type: 'opencost'; endpoint: '/allocation/compute'; aggregate: string; include_idle: true };
  totals: ReportTotals;
  by_namespace: NamespaceTotals[];
  row_count: number;
  rows: CostRow[];
}

/** A report without its rows: what listings return and what POST returns unless include_rows. */
export type CostReportSummary = Omit<CostReport, 'rows'>;

/** The aggregation reports ask OpenCost for: one allocation per (namespace, controller). */
export const REPORT_AGGREGATE = 'namespace,controller';

const FIGURE_SOURCES: Record<keyof CostFigures, keyof Allocation['values']> = {
  cpu_core_hours: 'cpuCoreHours',
  cpu_cost: 'cpuCost',
  gpu_hours: 'gpuHours',
  gpu_cost: 'gpuCost',
  ram_byte_hours: 'ramByteHours',
  ram_cost: 'ramCost',
  pv_byte_hours: 'pvByteHours',
  pv_cost: 'pvCost',
  network_transfer_bytes: 'networkTransferBytes',
  network_receive_bytes: 'networkReceiveBytes',
  network_cost: 'networkCost',
  load_balancer_cost: 'loadBalancerCost',
  shared_cost: 'sharedCost',
  external_cost: 'externalCost',
  total_cost: 'totalCost',
};
const FIGURES = Object.keys(FIGURE_SOURCES) as (keyof CostFigures)[];

/** Six decimals, as OpenCost itself rounds; also hides float noise from summing. */
const round = (n: number): number => Math.round(n * 1e6) / 1e6;

function zeroFigures(): CostFigures {
  return Object.fromEntries(FIGURES.map((f) => [f, 0])) as unknown as CostFigures;
}

function addFigures(into: CostFigures, from: CostFigures): void {
  for (const f of FIGURES) into[f] += from[f];
}

function roundFigures<T extends CostFigures>(figures: T): T {
  for (const f of FIGURES) figures[f] = round(figures[f]);
  return figures;
}

/** Namespace and workload of an allocation: from its properties, else from the `namespace/kind:name` key. */
function identify(a: Allocation): { namespace: string; workload: string; kind: string | null } {
  if (a.key === IDLE || a.key.startsWith(`${IDLE}/`) || a.properties.namespace === IDLE) {
    return { namespace: IDLE, workload: IDLE, kind: null };
  }
  const [keyNamespace = '', keyController = ''] = a.key.split('/');
  const namespace = a.properties.namespace ?? (keyNamespace || UNALLOCATED);
  if (a.properties.controller) {
    return { namespace, workload: a.properties.controller, kind: a.properties.controllerKind ?? null };
  }
  if (!keyController || keyController === UNALLOCATED)
    return { namespace, workload: UNALLOCATED, kind: null };
  const colon = keyController.indexOf(':');
  return colon > 0
    ? { namespace, workload: keyController.slice(colon + 1), kind: keyController.slice(0, colon) }
    : { namespace, workload: keyController, kind: null };
}

/**
 * Normalized rows, one per (namespace, workload); allocations of the same key from several steps are
 * summed. Sorted by total cost, highest first, then by name for a stable order.
 */
export function normalizeRows(
  allocations: readonly Allocation[],
  ctx: { region: string; cluster: string; window: ReportWindow },
): CostRow[] {
  const byKey = new Map<string, CostRow>();
  for (const a of allocations) {
    const { namespace, workload, kind } = identify(a);
    const id = `${namespace}\u0000${kind ?? ''}\u0000${workload}`;
    const figures = zeroFigures();
    for (const f of FIGURES) figures[f] = a.values[FIGURE_SOURCES[f]];
    const existing = byKey.get(id);
    if (existing) {
      // Efficiency is a ratio: weight it by the cost it applies to when merging steps.
      const cpuWeight = existing.cpu_cost + figures.cpu_cost;
      const ramWeight = existing.ram_cost + figures.ram_cost;
      existing.cpu_efficiency =
        cpuWeight > 0
          ? (existing.cpu_efficiency * existing.cpu_cost + a.values.cpuEfficiency * figures.cpu_cost) /
            cpuWeight
          : existing.cpu_efficiency;
      existing.ram_efficiency =
        ramWeight > 0
          ? (existing.ram_efficiency * existing.ram_cost + a.values.ramEfficiency * figures.ram_cost) /
            ramWeight
          : existing.ram_efficiency;
      addFigures(existing, figures);
      continue;
    }
    byKey.set(id, {
      region: ctx.region,
      cluster: a.properties.cluster ?? ctx.cluster,
      namespace,
      workload,
      workload_kind: kind,
      // The report's window, not OpenCost's per-allocation one: rows of a report must line up.
      window_start: rfc3339(ctx.window.start),
      window_end: rfc3339(ctx.window.end),
      ...figures,
      cpu_efficiency: a.values.cpuEfficiency,
      ram_efficiency: a.values.ramEfficiency,
    });
  }
  const rows = [...byKey.values()].map((r) => {
    roundFigures(r);
    r.cpu_efficiency = round(r.cpu_efficiency);
    r.ram_efficiency = round(r.ram_efficiency);
    return r;
  });
  return rows.sort(
    (a, b) =>
      b.total_cost - a.total_cost ||
      a.namespace.localeCompare(b.namespace) ||
      a.workload.localeCompare(b.workload),
  );
}

export function summarize(rows: readonly CostRow[]): {
  totals: ReportTotals;
  by_namespace: NamespaceTotals[];
} {
  const totals: ReportTotals = { ...zeroFigures(), allocated_cost: 0, idle_cost: 0 };
  const namespaces = new Map<string, NamespaceTotals>();
  for (const row of rows) {
    addFigures(totals, row);
    if (row.namespace === IDLE) {
      totals.idle_cost += row.total_cost;
      continue;
    }
    totals.allocated_cost += row.total_cost;
    let ns = namespaces.get(row.namespace);
    if (!ns) {
      ns = { namespace: row.namespace, workloads: 0, ...zeroFigures() };
      namespaces.set(row.namespace, ns);
    }
    ns.workloads += 1;
    addFigures(ns, row);
  }
  roundFigures(totals);
  totals.allocated_cost = round(totals.allocated_cost);
  totals.idle_cost = round(totals.idle_cost);
  const by_namespace = [...namespaces.values()]
    .map((ns) => roundFigures(ns))
    .sort((a, b) => b.total_cost - a.total_cost || a.namespace.localeCompare(b.namespace));
  return { totals, by_namespace };
}

export function buildReport(input: {
  reportId: string;
  kind: ReportKind;
  region: string;
  cluster: string;
  key: string;
  window: ReportWindow;
  generatedAt: Date;
  allocations: readonly Allocation[];
}): CostReport {
  const rows = normalizeRows(input.allocations, input);
  const { totals, by_namespace } = summarize(rows);
  return {
    report_id: input.reportId,
    kind: input.kind,
    region: input.region,
    cluster: input.cluster,
    key: input.key,
    window: {
      start: rfc3339(input.window.start),
      end: rfc3339(input.window.end),
      hours: windowHours(input.window),
    },
    generated_at: input.generatedAt.toISOString(),
    source: {
      type: 'opencost',
      endpoint: '/allocation/compute',
      aggregate: REPORT_AGGREGATE,
      include_idle: true,
    },
    totals,
    by_namespace,
    row_count: rows.length,
    rows,
  };
}

/** The report without its rows. */
export function summaryOf(report: CostReport): CostReportSummary {
  const { rows: _rows, ...summary } = report;
  return summary;
}
