/** Views of the central job queue's answers (docs/queue.md). */
import type {
  QueuedJobList,
  QueuedJobSubmitted,
  QueuedJobSummary,
  QueueStats,
} from '../../contracts/api/manifest-processor-central.js';
import { renderTable, type Column } from '../table.js';
import { fieldsView, recordOf, rowsOf, text, viewOf, type Fields } from './common.js';

const queueId = (j: Fields<QueuedJobSummary>) => text(j.job_id);

/** What `-o name` calls a job of the queue (`queuedjob/ID`; the queue commands take the bare ID too). */
const QUEUED_JOB_KIND = 'queuedjob';

export const queueListView = viewOf<QueuedJobList>({
  render(b) {
    const table = renderTable(
      rowsOf<QueuedJobSummary>(b.jobs),
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
  ids: (b) => rowsOf<QueuedJobSummary>(b.jobs).map(queueId),
  kind: QUEUED_JOB_KIND,
});

/** One queued job (GET) or a submission's answer, which adds `idempotent_replay`. */
export const queuedJobView = fieldsView<QueuedJobSubmitted>(
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
  QUEUED_JOB_KIND,
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
