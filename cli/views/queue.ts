/** Views of the central job queue's answers (docs/queue.md). */
import { renderTable, type Column } from '../table.js';
import { fieldsView, recordOf, rowsOf, text, viewOf, type Fields } from './common.js';

/** A queued job's record. */
export interface QueuedJob {
  job_id: string;
  status: string;
  target_region: string;
  namespace: string;
  priority: number;
  attempts: number;
  waiting_reason: string | null;
  k8s: { namespace: string; name: string; uid: string } | null;
  error: string | null;
  idempotency_key: string | null;
  /** True when a submission's key had queued this job before. */
  idempotent_replay: boolean;
  created_at: string;
  updated_at: string;
}

interface QueuePage {
  jobs: QueuedJob[];
  next_cursor: string | null;
}

interface QueueStats {
  total: number;
  /** Region → state → count, with the region's `total`. */
  by_region: Record<string, Record<string, number>>;
}

const queueId = (j: Fields<QueuedJob>) => text(j.job_id);

export const queueListView = viewOf<QueuePage>({
  render(b) {
    const table = renderTable(
      rowsOf<QueuedJob>(b.jobs),
      [
        ['job id', (j) => j.job_id],
        ['status', (j) => j.status],
        ['target region', (j) => j.target_region],
        ['priority', (j) => j.priority],
        ['namespace', (j) => j.namespace],
        ['waiting', (j) => j.waiting_reason],
        ['created', (j) => j.created_at],
      ],
      'No queued jobs found.',
    );
    return table + (typeof b.next_cursor === 'string' ? `more: --cursor ${b.next_cursor}\n` : '');
  },
  ids: (b) => rowsOf<QueuedJob>(b.jobs).map(queueId),
});

export const queuedJobView = fieldsView<QueuedJob>(
  [
    'job_id',
    'status',
    'target_region',
    'namespace',
    'priority',
    'attempts',
    'waiting_reason',
    'k8s',
    'error',
    'idempotency_key',
    'idempotent_replay',
    'created_at',
    'updated_at',
  ],
  queueId,
);

/** A row of the stats table: the region and its count per state. */
type RegionRow = Record<string, unknown>;

export const queueStatsView = viewOf<QueueStats>({
  render(b) {
    const byRegion = Object.entries(recordOf<QueueStats['by_region']>(b.by_region)).map(
      ([region, counts]) => [region, recordOf<Record<string, number>>(counts)] as const,
    );
    const statuses = [
      ...new Set(byRegion.flatMap(([, counts]) => Object.keys(counts).filter((k) => k !== 'total'))),
    ].sort();
    const rows: RegionRow[] = byRegion.map(([region, counts]) => ({ region, ...counts }));
    const columns: Column<RegionRow>[] = [
      ['region', (r) => r.region],
      ['total', (r) => r.total ?? 0],
      ...statuses.map((s): Column<RegionRow> => [s, (r) => r[s] ?? 0]),
    ];
    return `${renderTable(rows, columns, 'The queue is empty.')}total: ${text(b.total)}\n`;
  },
});
