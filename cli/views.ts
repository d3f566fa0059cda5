/**
 * The human views of the API's answers (`-o table`, the default on a terminal): tables for lists and
 * reports, text for logs, and for single records a table of their main fields (the full record is one
 * `-o yaml` away). Shapes follow docs/manifest-processor.md, docs/queue.md, docs/templates.md,
 * docs/webhooks.md, docs/cost.md, docs/aggregator.md and docs/analytics-api.md.
 */
import type { View } from './output.js';
import { renderFields, renderTable, type Column } from './table.js';

type Json = Record<string, unknown>;

const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const record = (v: unknown): Json => (isRecord(v) ? v : {});
const records = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isRecord) : []);
const text = (v: unknown): string =>
  typeof v === 'string'
    ? v
    : typeof v === 'number' || typeof v === 'boolean'
      ? String(v)
      : v === undefined || v === null
        ? ''
        : JSON.stringify(v);

/** A list under `key` of the body as a table. */
function listView(key: string, columns: readonly Column<Json>[], id: (row: Json) => string): View {
  return {
    render: (body) => renderTable(records(record(body)[key]), columns),
    ids: (body) => records(record(body)[key]).map(id),
  };
}

/** One record: its scalar fields as a FIELD/VALUE table (objects and long lists are left to -o yaml). */
function fieldsView(fields: readonly string[], id: (body: Json) => string): View {
  return {
    render: (body) => renderFields(fields.map((f) => [f, record(body)[f]] as const)),
    ids: (body) => [id(record(body))],
  };
}

const jobName = (row: Json) => `${text(row.namespace)}/${text(row.name)}`;

const JOB_COLUMNS: readonly Column<Json>[] = [
  ['namespace', (j) => j.namespace],
  ['name', (j) => j.name],
  ['status', (j) => j.status],
  ['active', (j) => j.active],
  ['succeeded', (j) => j.succeeded],
  ['failed', (j) => j.failed],
  ['created', (j) => j.created_at],
];

export const jobListView: View = {
  render(body) {
    const b = record(body);
    const jobs = records(b.jobs);
    const regional = jobs.some((j) => j.region !== undefined);
    const table = renderTable(
      jobs,
      regional ? [['region', (j) => j.region], ...JOB_COLUMNS] : JOB_COLUMNS,
      'No jobs found.',
    );
    const failed =
      Array.isArray(b.failed_regions) && b.failed_regions.length > 0
        ? `failed regions: ${b.failed_regions.join(', ')}\n`
        : '';
    const more = b.has_more === true ? `(${jobs.length} of ${text(b.total)}; more with --offset)\n` : '';
    return table + more + failed;
  },
  ids: (body) => records(record(body).jobs).map(jobName),
};

export const jobView = fieldsView(
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
);

/** An answer that carries the job it created under `job` (retry, template run). */
export const createdJobView: View = {
  render: (body) => jobView.render?.(record(body).job),
  ids: (body) => [jobName(record(record(body).job))],
};

/** The per-resource report of a manifest submission or validation (also a template run). */
export const submissionView: View = {
  render(body) {
    const b = record(body);
    const resources = records(b.resources);
    const table = renderTable(resources, [
      ['kind', (r) => r.kind],
      ['namespace', (r) => r.namespace],
      ['name', (r) => r.name],
      ['status', (r) => r.status],
      ['message', (r) => r.message],
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
  ids: (body) => records(record(body).resources).map(jobName),
};

export const jobEventsView = listView(
  'events',
  [
    ['last seen', (e) => e.last_timestamp],
    ['type', (e) => e.type],
    ['reason', (e) => e.reason],
    ['object', (e) => `${text(record(e.object).kind)}/${text(record(e.object).name)}`],
    ['message', (e) => e.message],
  ],
  (e) => text(e.reason),
);

export const jobPodsView = listView(
  'pods',
  [
    ['name', (p) => p.name],
    ['phase', (p) => p.phase],
    ['node', (p) => p.node],
    ['instance type', (p) => p.instance_type],
    ['zone', (p) => p.zone],
    ['capacity', (p) => p.capacity_type],
    ['started', (p) => p.started_at],
  ],
  (p) => text(p.name),
);

/** Logs of every pod: the text, with a header per pod when there are several. */
export const jobLogsView: View = {
  render(body) {
    const pods = records(record(body).pods);
    return pods
      .map((p) => {
        const logs = text(p.logs);
        const header = pods.length > 1 ? `==> ${text(p.pod)} (${text(p.container)}) <==\n` : '';
        return header + (logs === '' || logs.endsWith('\n') ? logs : `${logs}\n`);
      })
      .join('');
  },
};

export const podLogsView: View = {
  render(body) {
    const logs = text(record(body).logs);
    return logs === '' || logs.endsWith('\n') ? logs : `${logs}\n`;
  },
};

export const jobMetricsView: View = {
  render(body) {
    const rows = records(record(body).pods).flatMap((pod) => {
      const containers = records(pod.containers);
      return containers.length === 0
        ? [{ pod: pod.name, phase: pod.phase, container: null, cpu: null, memory: null }]
        : containers.map((c) => ({
            pod: pod.name,
            phase: pod.phase,
            container: c.name,
            cpu: c.cpu,
            memory: c.memory,
          }));
    });
    return renderTable(rows, [
      ['pod', (r) => r.pod],
      ['phase', (r) => r.phase],
      ['container', (r) => r.container],
      ['cpu', (r) => r.cpu],
      ['memory', (r) => r.memory],
    ]);
  },
};

export const bulkDeleteView: View = {
  render(body) {
    const b = record(body);
    const jobs = records(b.jobs);
    const regional = jobs.some((j) => j.region !== undefined);
    const columns: Column<Json>[] = [
      ['namespace', (j) => j.namespace],
      ['name', (j) => j.name],
      ['deleted', (j) => j.deleted],
      ['note', (j) => j.error ?? j.skipped],
    ];
    const table = renderTable(
      jobs,
      regional ? [['region', (j) => j.region], ...columns] : columns,
      'No job matched.',
    );
    const verb = b.dry_run === true ? 'would delete (dry run)' : 'deleted';
    return `${table}matched: ${text(b.matched)}, ${verb}: ${text(b.dry_run === true ? b.matched : b.deleted)}, failed: ${text(b.failed)}\n`;
  },
  ids: (body) => records(record(body).jobs).map(jobName),
};

const queueId = (j: Json) => text(j.job_id);

export const queueListView: View = {
  render(body) {
    const b = record(body);
    const table = renderTable(
      records(b.jobs),
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
  ids: (body) => records(record(body).jobs).map(queueId),
};

export const queuedJobView = fieldsView(
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

export const queueStatsView: View = {
  render(body) {
    const b = record(body);
    const byRegion = record(b.by_region);
    const statuses = [
      ...new Set(Object.values(byRegion).flatMap((r) => Object.keys(record(r)).filter((k) => k !== 'total'))),
    ].sort();
    const rows: Json[] = Object.entries(byRegion).map(([region, counts]) => ({ region, ...record(counts) }));
    return `${renderTable(rows, [['region', (r) => r.region], ['total', (r) => r.total ?? 0], ...statuses.map((s): Column<Json> => [s, (r) => r[s] ?? 0])], 'The queue is empty.')}total: ${text(b.total)}\n`;
  },
};

export const templateListView = listView(
  'templates',
  [
    ['name', (t) => t.name],
    ['description', (t) => t.description],
    ['placeholders', (t) => t.placeholders],
    ['created', (t) => t.created_at],
  ],
  (t) => text(t.name),
);

export const templateView = fieldsView(
  ['name', 'description', 'placeholders', 'parameters', 'created_at', 'updated_at'],
  (t) => text(t.name),
);

export const webhookListView = listView(
  'webhooks',
  [
    ['webhook id', (w) => w.webhook_id],
    ['url', (w) => w.url],
    ['events', (w) => w.events],
    ['namespace', (w) => w.namespace],
    ['signed', (w) => w.has_secret],
    ['created', (w) => w.created_at],
  ],
  (w) => text(w.webhook_id),
);

export const webhookView = fieldsView(
  ['webhook_id', 'url', 'events', 'namespace', 'has_secret', 'created_at'],
  (w) => text(w.webhook_id),
);

export const deletedView: View = {
  render: (body) => (isRecord(body) ? renderFields(Object.entries(body)) : `${text(body)}\n`),
  ids: (body) => (isRecord(body) ? [text(body.webhook_id ?? body.name ?? body.job_id)] : [text(body)]),
};

const windowText = (r: Json) => {
  const w = record(r.window);
  return `${text(w.start)} → ${text(w.end)}`;
};

export const costReportListView = listView(
  'reports',
  [
    ['report id', (r) => r.report_id],
    ['kind', (r) => r.kind],
    ['window', windowText],
    ['total cost', (r) => record(r.totals).total_cost],
    ['generated', (r) => r.generated_at],
  ],
  (r) => text(r.report_id),
);

export const costReportView: View = {
  render(body) {
    const r = record(body);
    const head = renderFields([
      ['report_id', r.report_id],
      ['region', r.region],
      ['window', windowText(r)],
      ['total_cost', record(r.totals).total_cost],
      ['idle_cost', record(r.totals).idle_cost],
    ]);
    return `${head}\n${renderTable(records(r.by_namespace), [
      ['namespace', (n) => n.namespace],
      ['workloads', (n) => n.workloads],
      ['total cost', (n) => n.total_cost],
    ])}`;
  },
  ids: (body) => [text(record(body).report_id)],
};

/** An aggregate answer's per-region outcome (docs/aggregator.md, "Merged answers"). */
function regionsTable(body: Json, extra: readonly Column<[string, Json]>[]): string {
  const regions = Object.entries(record(body.regions)).map(
    ([name, r]) => [name, record(r)] as [string, Json],
  );
  return renderTable(regions, [
    ['region', ([name]) => name],
    ['http', ([, r]) => r.status],
    ...extra,
    ['error', ([, r]) => r.error],
    ['ms', ([, r]) => r.duration_ms],
  ]);
}

export const globalHealthView: View = {
  render(body) {
    const b = record(body);
    const regionStatus = record(b.region_status);
    return `status: ${text(b.status)}\n${regionsTable(b, [['health', ([name]) => regionStatus[name]]])}`;
  },
  ids: (body) => [text(record(body).status)],
};

export const globalStatusView: View = {
  render(body) {
    const b = record(body);
    const namespaces = record(b.allowed_namespaces);
    const templates = record(b.templates);
    const webhooks = record(b.webhooks);
    return regionsTable(b, [
      ['namespaces', ([name]) => namespaces[name]],
      ['templates', ([name]) => summaryCount(templates[name])],
      ['webhooks', ([name]) => summaryCount(webhooks[name])],
    ]);
  },
};

/** A facet that is a count, a list, or an object with `count`/`total`. */
function summaryCount(value: unknown): unknown {
  if (Array.isArray(value)) return value.length;
  if (isRecord(value)) return value.count ?? value.total ?? JSON.stringify(value);
  return value;
}

const applicationId = (a: Json) => text(a.ApplicationId);

export const applicationListView = listView(
  'Applications',
  [
    ['application id', (a) => a.ApplicationId],
    ['name', (a) => a.ApplicationName],
    ['description', (a) => a.Description],
    ['created', (a) => a.CreatedAt],
  ],
  applicationId,
);

export const applicationView = fieldsView(
  ['ApplicationId', 'ApplicationName', 'Description', 'CreatedAt', 'UpdatedAt'],
  applicationId,
);

const keyId = (k: Json) => text(k.ApiKeyId);

export const apiKeyListView = listView(
  'Authorizations',
  [
    ['key id', (k) => k.ApiKeyId],
    ['name', (k) => k.ApiKeyName],
    ['enabled', (k) => k.Enabled],
    ['key', (k) => k.ApiKeyValue],
    ['created', (k) => k.CreatedAt],
  ],
  keyId,
);

export const apiKeyView = fieldsView(
  [
    'ApiKeyId',
    'ApiKeyName',
    'ApiKeyValue',
    'ApplicationId',
    'ApiKeyDescription',
    'Enabled',
    'CreatedAt',
    'UpdatedAt',
  ],
  keyId,
);

/** The answer of creating a key: the full value is shown only this once, so it is what --quiet prints. */
export const createdApiKeyView: View = { ...apiKeyView, ids: (body) => [text(record(body).ApiKeyValue)] };
