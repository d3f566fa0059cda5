/** Views of the global API's merged answers of every region (docs/aggregator.md, "Merged answers"). */
import type {
  GlobalHealth,
  GlobalStatus,
  MergedAnswer,
  RegionResult,
} from '../../contracts/api/aggregator.js';
import { renderTable, type Column } from '../table.js';
import { recordOf, text, viewOf, type Fields } from './common.js';

type RegionRow = readonly [name: string, outcome: Fields<RegionResult>];

/** The per-region outcome table, with `extra` columns after the HTTP status. */
function regionsTable(body: Fields<MergedAnswer>, extra: readonly Column<RegionRow>[]): string {
  const regions = Object.entries(recordOf<MergedAnswer['regions']>(body.regions)).map(
    ([name, r]): RegionRow => [name, recordOf<RegionResult>(r)],
  );
  return renderTable(regions, [
    ['region', ([name]) => name],
    ['http', ([, r]) => r.status],
    ...extra,
    ['error', ([, r]) => r.error],
    ['ms', ([, r]) => r.duration_ms],
  ]);
}

export const globalHealthView = viewOf<GlobalHealth>({
  render(b) {
    const regionStatus = recordOf<GlobalHealth['region_status']>(b.region_status);
    return `status: ${text(b.status)}\n${regionsTable(b, [['health', ([name]) => regionStatus[name]]])}`;
  },
  ids: (b) => [text(b.status)],
});

export const globalStatusView = viewOf<GlobalStatus>({
  render(b) {
    const namespaces = recordOf<GlobalStatus['allowed_namespaces']>(b.allowed_namespaces);
    const templates = recordOf<GlobalStatus['templates']>(b.templates);
    const webhooks = recordOf<GlobalStatus['webhooks']>(b.webhooks);
    return regionsTable(b, [
      ['namespaces', ([name]) => namespaces[name]],
      ['templates', ([name]) => summaryCount(templates[name])],
      ['webhooks', ([name]) => summaryCount(webhooks[name])],
    ]);
  },
});

/** A facet that is a count, a list, or an object with `count`/`total`. */
function summaryCount(value: unknown): unknown {
  if (Array.isArray(value)) return value.length;
  if (typeof value === 'object' && value !== null) {
    const summary = value as Fields<{ count: number; total: number }>;
    return summary.count ?? summary.total ?? JSON.stringify(value);
  }
  return value;
}
