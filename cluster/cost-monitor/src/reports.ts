/** Generates, stores and lists cost reports; probes the cost-data source for GET /internal/status. */
import { mapLimit } from '../../../contracts/runtime/semaphore.js';
import { randomUUID } from 'node:crypto';
import { OpenCostError, rfc3339, type OpenCostClient } from './opencost.js';
import {
  adhocKey,
  buildReport,
  REPORT_AGGREGATE,
  scheduledKey,
  scheduledReportId,
  summaryOf,
  trailingWindow,
  type CostReport,
  type CostReportSummary,
  type ReportKind,
  type ReportWindow,
} from './report.js';
import type { ReportStore, StoredObject } from './store.js';

export interface ReportServiceOptions {
  region: string;
  cluster: string;
  opencost: OpenCostClient;
  store: ReportStore;
  clock: () => Date;
}

export interface ListedReport extends CostReportSummary {
  last_modified: string | null;
  size: number | null;
}

export interface SourceProbe {
  type: 'opencost';
  healthy: boolean;
  latency_ms: number;
  error?: string;
  probe: {
    window: { start: string; end: string };
    aggregate: string;
    data_returned: boolean;
    allocations: number;
    total_cost: number;
  };
}

/** Reads of report objects run this many at a time (a listing may return up to 1000). */
const READ_CONCURRENCY = 16;
/** The status probe asks OpenCost for the last few minutes: small, but wide enough to hold data. */
const PROBE_MINUTES = 10;

export class ReportService {
  constructor(private readonly opts: ReportServiceOptions) {}

  get region(): string {
    return this.opts.region;
  }

  get store(): ReportStore {
    return this.opts.store;
  }

  async generate(kind: ReportKind, window: ReportWindow, generatedAt: Date): Promise<CostReport> {
    const allocations = await this.opts.opencost.allocations(window, REPORT_AGGREGATE);
    const reportId = kind === 'scheduled' ? scheduledReportId(this.opts.region, window) : randomUUID();
    const key =
      kind === 'scheduled'
        ? scheduledKey(this.opts.region, window)
        : adhocKey(this.opts.region, generatedAt, reportId);
    return buildReport({
      reportId,
      kind,
      region: this.opts.region,
      cluster: this.opts.cluster,
      key,
      window,
      generatedAt,
      allocations,
    });
  }

  /** An ad-hoc report of the trailing `hours`, stored (always with its rows) and returned. */
  async createAdhoc(hours: number): Promise<CostReport> {
    const now = this.opts.clock();
    const report = await this.generate('adhoc', trailingWindow(now, hours), now);
    await this.opts.store.put(report);
    return report;
  }

  /**
   * Writes the scheduled report of `window` unless its object already exists (a previous winner wrote
   * it but died before recording that). Deterministic keys make a rewrite replace, never duplicate.
   */
  async ensureScheduled(window: ReportWindow): Promise<{ key: string; created: boolean }> {
    const key = scheduledKey(this.opts.region, window);
    if (await this.opts.store.exists(key)) return { key, created: false };
    const report = await this.generate('scheduled', window, this.opts.clock());
    await this.opts.store.put(report);
    return { key, created: true };
  }

  async list(kind: ReportKind, limit: number): Promise<ListedReport[]> {
    const objects = await this.opts.store.listNewest(kind, limit);
    const reports = await mapLimit(objects, READ_CONCURRENCY, async (o: StoredObject) => {
      const report = await this.opts.store.get(o.key);
      return report
        ? { ...summaryOf(report), key: o.key, last_modified: o.last_modified, size: o.size }
        : undefined;
    });
    return reports.filter((r): r is ListedReport => r !== undefined);
  }

  /** Source health (OpenCost answered a well-formed allocation response) and whether data came back. */
  async probeSource(): Promise<SourceProbe> {
    const window = trailingWindow(this.opts.clock(), PROBE_MINUTES / 60);
    const started = performance.now();
    const probe = {
      window: { start: rfc3339(window.start), end: rfc3339(window.end) },
      aggregate: 'cluster',
      data_returned: false,
      allocations: 0,
      total_cost: 0,
    };
    try {
      const allocations = await this.opts.opencost.allocations(window, 'cluster');
      probe.allocations = allocations.length;
      probe.data_returned = allocations.length > 0;
      probe.total_cost = Math.round(allocations.reduce((s, a) => s + a.values.totalCost, 0) * 1e6) / 1e6;
      return { type: 'opencost', healthy: true, latency_ms: Math.round(performance.now() - started), probe };
    } catch (error) {
      return {
        type: 'opencost',
        healthy: false,
        latency_ms: Math.round(performance.now() - started),
        error: error instanceof OpenCostError ? error.message : 'OpenCost probe failed',
        probe,
      };
    }
  }
}
