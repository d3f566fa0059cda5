/**
 * What the `gco queue` verbs share: paths, the human views of queued jobs (the Kubernetes Job name,
 * reason and labels shown; views/queue.ts keeps the rest of each view), and finding a queued job by what
 * the user knows: its id, its Kubernetes Job name, or the name in its manifest.
 */
import type {
  QueuedJob,
  QueuedJobList,
  QueuedJobSummary,
} from '../../../contracts/api/manifest-processor-central.js';
import { apiErrorOf } from '../../api-errors.js';
import { bareName } from '../../command-kit.js';
import type { CommandContext } from '../../context.js';
import { ApiError } from '../../errors.js';
import { pathOf, type ApiClient } from '../../http.js';
import type { View } from '../../output.js';
import { renderFields, renderTable } from '../../table.js';
import { recordOf, rowsOf, text, viewOf, type Fields } from '../../views/common.js';
import { queueListView, queuedJobView } from '../../views/queue.js';

export const queuedJobPath = (id: string) => pathOf('api', 'v1', 'queue', 'jobs', id);

/**
 * A queued job as given on the command line: its id (or name, where the verb finds it by name), or
 * `queuedjob/…` as `-o name` prints it; another kind's `kind/name` is a usage error.
 */
export const queuedJobRefOf = (arg: string) => bareName(arg, ['queuedjob', 'queuedjobs'], 'ID');

/** Default `--wait-timeout` of the queue verbs: a queued job may wait for its region a while. */
export const QUEUE_WAIT_SECONDS = 3600;
export const QUEUE_WAIT_MAX_SECONDS = 7 * 24 * 3600;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Pages of the listing searched for a name (newest first, 1,000 a page). */
const MAX_NAME_PAGES = 10;

/** Why a job is where it is: waiting in the queue, failed, or cancelled. */
export const reasonOf = (j: Fields<QueuedJobSummary>): string | null | undefined =>
  j.waiting_reason ?? j.error ?? j.cancel_reason;

/** `k=v,k=v`, sorted by key. */
const labelsText = (labels: unknown): string =>
  Object.entries(recordOf<Record<string, unknown>>(labels))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${text(v)}`)
    .join(',');

/** The listing with the Kubernetes Job name first (what the user follows it by), reasons and labels. */
export const queueTableView: View = {
  ...queueListView,
  ...viewOf<QueuedJobList>({
    render(b) {
      const table = renderTable(
        rowsOf<QueuedJobSummary>(b.jobs),
        [
          ['name', (j) => j.job_name],
          ['job id', (j) => j.job_id],
          ['status', (j) => j.status],
          ['target region', (j) => j.target_region],
          ['priority', (j) => j.priority],
          ['namespace', (j) => j.namespace],
          ['reason', reasonOf],
          ['labels', (j) => labelsText(j.labels)],
          ['created', (j) => j.created_at],
        ],
        'No queued jobs found.',
      );
      return table + (typeof b.next_cursor === 'string' ? `more: --cursor ${b.next_cursor}\n` : '');
    },
  }),
};

/** One queued job's fields, with its Kubernetes Job, reason and labels. */
export const queuedRecordView: View = {
  ...queuedJobView,
  ...viewOf<QueuedJob & { idempotent_replay: boolean }>({
    render: (b) =>
      renderFields([
        ['job_id', b.job_id],
        ['job_name', b.job_name],
        ['status', b.status],
        ['reason', reasonOf(b)],
        ['target_region', b.target_region],
        ['namespace', b.namespace],
        ['priority', b.priority],
        ['labels', labelsText(b.labels)],
        ['attempts', b.attempts],
        ['kubernetes_job', b.k8s === null || b.k8s === undefined ? null : `${b.k8s.namespace}/${b.k8s.name}`],
        ['idempotency_key', b.idempotency_key],
        ...(b.idempotent_replay === undefined ? [] : [['idempotent_replay', b.idempotent_replay] as const]),
        ['created_at', b.created_at],
        ['dispatched_at', b.dispatched_at],
        ['finished_at', b.finished_at],
      ]),
  }),
};

/** A queued job found by id or name: its record (without manifest when found through the listing). */
export interface FoundQueuedJob {
  id: string;
  record: Fields<QueuedJobSummary>;
}

/**
 * The queued job `ref` names: an id (one GET), else the newest job whose Kubernetes Job name is `ref`
 * or whose manifest name is `ref` (its Job is `<ref>-q<10 hex>`), searched in the listing.
 */
export async function findQueuedJob(
  client: ApiClient,
  ref: string,
  namespace: string | undefined,
  ctx: CommandContext,
): Promise<FoundQueuedJob> {
  if (UUID.test(ref)) {
    const reply = await client.send({ method: 'GET', path: queuedJobPath(ref) });
    if (reply.status !== 200) throw apiErrorOf(reply);
    return { id: ref, record: recordOf<QueuedJobSummary>(reply.json) };
  }
  const fromManifest = new RegExp(`^${ref.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-q[0-9a-z]{1,10}$`);
  const matches: Fields<QueuedJobSummary>[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_NAME_PAGES; page++) {
    const reply = await client.send({
      method: 'GET',
      path: '/api/v1/queue/jobs',
      query: { namespace, limit: 1000, cursor },
    });
    if (reply.status !== 200) throw apiErrorOf(reply);
    const body = recordOf<QueuedJobList>(reply.json);
    const exact = rowsOf<QueuedJobSummary>(body.jobs).filter((j) => j.job_name === ref);
    if (exact.length > 0) return { id: text(exact[0]?.job_id), record: exact[0] ?? {} };
    matches.push(...rowsOf<QueuedJobSummary>(body.jobs).filter((j) => fromManifest.test(text(j.job_name))));
    if (typeof body.next_cursor !== 'string') break;
    cursor = body.next_cursor;
  }
  const [newest, ...older] = matches;
  if (newest === undefined) {
    throw new ApiError(
      `No queued job has the id or name ${ref}${namespace === undefined ? '' : ` in namespace ${namespace}`}`,
      '`gco queue list` shows the queued jobs with their names and ids.',
    );
  }
  if (older.length > 0) {
    ctx.out.info(
      `${matches.length} queued jobs are named ${ref}; this is the newest, ${text(newest.job_id)} (the others: ${older
        .map((j) => text(j.job_id))
        .join(', ')})`,
    );
  }
  return { id: text(newest.job_id), record: newest };
}
