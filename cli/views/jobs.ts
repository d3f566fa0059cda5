/** Views of manifest-processor's job answers (docs/manifest-processor.md) and the global job list (docs/aggregator.md). */
import type { GlobalBulkDelete, GlobalJobList } from '../../contracts/api/aggregator.js';
import type { TemplateJobCreated } from '../../contracts/api/manifest-processor-central.js';
import type {
  ApplyReport,
  BulkDeleteResult,
  JobEvents,
  JobList,
  JobLogs,
  JobMetrics,
  JobPods,
  JobRetried,
  JobView,
  ResourceResult,
  ValidationReport,
} from '../../contracts/api/manifest-processor.js';
import { requestViolations } from '../api-errors.js';
import type { View } from '../output.js';
import { renderTable, type Column } from '../table.js';
import { fieldsView, lines, listView, recordOf, rowsOf, text, viewOf, type Fields } from './common.js';

/** What `-o name` calls a Job (kubectl prints `job.batch/NAME`; gco's commands take `job/NAME`). */
export const JOB_KIND = 'job';

const jobName = (j: Fields<Job>) => text(j.name);

/** A job, tagged with its region in the global API's merged list. */
type Job = JobView & Partial<Pick<GlobalJobList['jobs'][number], 'region'>>;

/** An answer that carries the job it created (retry, template run). */
export type CreatedJob = Pick<JobRetried | TemplateJobCreated, 'job'>;

/** The per-resource report of a manifest submission or validation (only a validation says `valid`). */
export type SubmissionReport = ApplyReport & Partial<Pick<ValidationReport, 'valid'>>;

type JobEvent = JobEvents['events'][number];
type PodMetrics = JobMetrics['pods'][number];
type BulkDeleteRow = GlobalBulkDelete['jobs'][number];

/** The columns of a list, led by the region when the rows come from several (the global API). */
function withRegion<Row extends { region?: string }>(
  rows: readonly Fields<Row>[],
  columns: readonly Column<Fields<Row>>[],
): readonly Column<Fields<Row>>[] {
  return rows.some((r) => r.region !== undefined) ? [['region', (r) => r.region], ...columns] : columns;
}

const JOB_COLUMNS: readonly Column<Fields<Job>>[] = [
  ['namespace', (j) => j.namespace],
  ['name', (j) => j.name],
  ['status', (j) => j.status],
  ['active', (j) => j.active],
  ['succeeded', (j) => j.succeeded],
  ['failed', (j) => j.failed],
  ['created', (j) => j.created_at],
  ['started', (j) => j.started_at, 'wide'],
  ['completed', (j) => j.completed_at, 'wide'],
  ['images', (j) => j.images, 'wide'],
  ['uid', (j) => j.uid, 'wide'],
];

/** A regional list, or the global API's merged one (rows with `region`, and `failed_regions`). */
export const jobListView = viewOf<JobList & Partial<Pick<GlobalJobList, 'failed_regions'>>>({
  render(b) {
    const jobs = rowsOf<Job>(b.jobs);
    const table = renderTable(jobs, withRegion(jobs, JOB_COLUMNS), 'No jobs found.');
    const failed =
      Array.isArray(b.failed_regions) && b.failed_regions.length > 0
        ? `failed regions: ${b.failed_regions.join(', ')}\n`
        : '';
    const more = b.has_more === true ? `(${jobs.length} of ${text(b.total)}; more with --offset)\n` : '';
    return table + more + failed;
  },
  ids: (b) => rowsOf<Job>(b.jobs).map(jobName),
  kind: JOB_KIND,
});

export const jobView = fieldsView<Job>(
  [
    'namespace',
    'name',
    'uid',
    'status',
    'created_at',
    'started_at',
    'completed_at',
    'active',
    'ready',
    'succeeded',
    'failed',
    'images',
  ],
  jobName,
  JOB_KIND,
);

export const createdJobView = viewOf<CreatedJob>({
  render: (b) => jobView.render?.(b.job),
  ids: (b) => [jobName(recordOf<Job>(b.job))],
  kind: JOB_KIND,
});

/**
 * What a dry run or a validation reports for a resource the server says it `created`/`updated`: nothing
 * was created, so the table says what would happen (kubectl prints `job.batch/x created (server dry
 * run)`, https://kubernetes.io/docs/reference/kubectl/generated/kubectl_apply/).
 */
function statusOf(report: Fields<SubmissionReport>, status: unknown): unknown {
  if (status !== 'created' && status !== 'updated' && status !== 'unchanged') return status;
  if (report.valid !== undefined) return 'valid';
  return report.dry_run === true && status !== 'unchanged' ? `would ${status.slice(0, -1)}` : status;
}

/** `kind/name` of a reported resource, for `-o name` (`job/train`, `configmap/settings`). */
const resourceName = (r: Fields<ResourceResult>) => `${text(r.kind).toLowerCase()}/${text(r.name)}`;

export const submissionView = viewOf<SubmissionReport>({
  render(b) {
    const requestLevel = requestViolations(b);
    const table = renderTable(rowsOf<ResourceResult>(b.resources), [
      ['kind', (r) => r.kind],
      ['namespace', (r) => r.namespace],
      ['name', (r) => r.name],
      ['status', (r) => statusOf(b, r.status)],
      // A resource skipped because the request itself was refused (its namespace) shows that reason.
      ['message', (r) => r.message ?? (r.status === 'skipped' ? requestLevel.join('; ') : undefined)],
    ]);
    const verdict =
      b.valid === true
        ? 'valid\n'
        : b.valid === false
          ? 'not valid\n'
          : b.dry_run === true
            ? '(dry run: nothing applied)\n'
            : '';
    return table + verdict;
  },
  ids: (b) => rowsOf<ResourceResult>(b.resources).map((r) => text(r.name)),
  names: (b) => rowsOf<ResourceResult>(b.resources).map(resourceName),
});

const objectName = (o: Fields<JobEvent['object']>) => `${text(o.kind)}/${text(o.name)}`;

export const jobEventsView = listView<JobEvent>(
  'events',
  [
    ['last seen', (e) => e.last_timestamp],
    ['type', (e) => e.type],
    ['reason', (e) => e.reason],
    ['object', (e) => objectName(recordOf<JobEvent['object']>(e.object))],
    ['message', (e) => e.message],
  ],
  (e) => text(e.reason),
);

export const jobPodsView = listView<JobPods['pods'][number]>(
  'pods',
  [
    ['name', (p) => p.name],
    ['phase', (p) => p.phase],
    ['node', (p) => p.node],
    ['instance type', (p) => p.instance_type],
    ['zone', (p) => p.zone],
    ['capacity', (p) => p.capacity_type],
    ['started', (p) => p.started_at],
    ['ip', (p) => p.pod_ip, 'wide'],
    ['architecture', (p) => p.architecture, 'wide'],
    ['gpus', (p) => p.node_gpus, 'wide'],
  ],
  (p) => text(p.name),
  'pod',
);

/** Logs of every pod: the text, with a header per pod when there are several. */
export const jobLogsView: View = viewOf<JobLogs>({
  render(b) {
    const pods = rowsOf<JobLogs['pods'][number]>(b.pods);
    const header = (p: Fields<JobLogs['pods'][number]>) =>
      pods.length > 1 ? `==> ${text(p.pod)} (${text(p.container)}) <==\n` : '';
    return pods.map((p) => header(p) + lines(text(p.logs))).join('');
  },
});

/** A row of the metrics table: one container of a pod (or the pod alone when it reports none). */
interface ContainerUse {
  pod: string | undefined;
  phase: string | undefined;
  container: string | null | undefined;
  cpu: string | null | undefined;
  memory: string | null | undefined;
}

export const jobMetricsView: View = viewOf<JobMetrics>({
  render(b) {
    const rows = rowsOf<PodMetrics>(b.pods).flatMap((pod): ContainerUse[] => {
      const containers = rowsOf<PodMetrics['containers'][number]>(pod.containers);
      const { name, phase } = pod;
      return containers.length === 0
        ? [{ pod: name, phase, container: null, cpu: null, memory: null }]
        : containers.map((c) => ({ pod: name, phase, container: c.name, cpu: c.cpu, memory: c.memory }));
    });
    return renderTable(rows, [
      ['pod', (r) => r.pod],
      ['phase', (r) => r.phase],
      ['container', (r) => r.container],
      ['cpu', (r) => r.cpu],
      ['memory', (r) => r.memory],
    ]);
  },
});

const BULK_DELETE_COLUMNS: readonly Column<Fields<BulkDeleteRow>>[] = [
  ['namespace', (j) => j.namespace],
  ['name', (j) => j.name],
  ['deleted', (j) => j.deleted],
  ['note', (j) => j.error ?? j.skipped],
];

export const bulkDeleteView = viewOf<BulkDeleteResult | GlobalBulkDelete>({
  render(b) {
    const jobs = rowsOf<BulkDeleteRow>(b.jobs);
    const table = renderTable(jobs, withRegion(jobs, BULK_DELETE_COLUMNS), 'No job matched.');
    const verb = b.dry_run === true ? 'would delete (dry run)' : 'deleted';
    return `${table}matched: ${text(b.matched)}, ${verb}: ${text(b.dry_run === true ? b.matched : b.deleted)}, failed: ${text(b.failed)}\n`;
  },
  ids: (b) => rowsOf<BulkDeleteRow>(b.jobs).map((j) => text(j.name)),
  kind: JOB_KIND,
});
