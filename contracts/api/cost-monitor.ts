/**
 * cost-monitor's answers (docs/cost.md): cost reports, their listing and the status of the region's
 * cost monitoring. manifest-processor's /api/v1/cost front answers the same bodies (with 200 where
 * cost-monitor's POST answers 201). Response schemas of both: Fastify serialises through them, so a
 * field left out here is left out of the answer.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { EnvelopeRejected, ErrorDetail, HTTPValidationError } from './errors.js';
import { NullableInteger, NullableString } from './schema.js';

const figure = () => Type.Number();

/** The cost figures of a row, a namespace or the whole report (USD, hours, bytes). */
const CostFigures = {
  cpu_core_hours: figure(),
  cpu_cost: figure(),
  gpu_hours: figure(),
  gpu_cost: figure(),
  ram_byte_hours: figure(),
  ram_cost: figure(),
  pv_byte_hours: figure(),
  pv_cost: figure(),
  network_transfer_bytes: figure(),
  network_receive_bytes: figure(),
  network_cost: figure(),
  load_balancer_cost: figure(),
  shared_cost: figure(),
  external_cost: figure(),
  total_cost: figure(),
};

const CostRow = Type.Object({
  region: Type.String(),
  cluster: Type.String(),
  namespace: Type.String(),
  workload: Type.String({ description: 'Controller name, __unallocated__ or __idle__' }),
  workload_kind: NullableString,
  window_start: Type.String(),
  window_end: Type.String(),
  cpu_efficiency: Type.Number(),
  ram_efficiency: Type.Number(),
  ...CostFigures,
});

const ReportSummaryFields = {
  report_id: Type.String(),
  kind: Type.String({ description: 'scheduled or adhoc' }),
  region: Type.String(),
  cluster: Type.String(),
  key: Type.String(),
  window: Type.Object({ start: Type.String(), end: Type.String(), hours: Type.Number() }),
  generated_at: Type.String(),
  source: Type.Object({
    type: Type.String(),
    endpoint: Type.String(),
    aggregate: Type.String(),
    include_idle: Type.Boolean(),
  }),
  totals: Type.Object({ ...CostFigures, allocated_cost: figure(), idle_cost: figure() }),
  by_namespace: Type.Array(
    Type.Object({ namespace: Type.String(), workloads: Type.Integer(), ...CostFigures }),
  ),
  row_count: Type.Integer(),
};

/** A report as POST answers it: its rows only when include_rows was asked for. */
export const CostReport = Type.Object({ ...ReportSummaryFields, rows: Type.Optional(Type.Array(CostRow)) });
export type CostReport = Static<typeof CostReport>;

const ListedCostReport = Type.Object({
  ...ReportSummaryFields,
  last_modified: NullableString,
  size: NullableInteger,
});

export const CostReportList = Type.Object({
  region: Type.String(),
  cluster: Type.String(),
  kind: Type.String({ description: 'scheduled or adhoc' }),
  count: Type.Integer(),
  reports: Type.Array(ListedCostReport),
});
export type CostReportList = Static<typeof CostReportList>;

const CostWindow = Type.Object({ start: Type.String(), end: Type.String() });

export const CostStatus = Type.Object({
  service: Type.String(),
  version: Type.String(),
  region: Type.String(),
  cluster: Type.String(),
  status: Type.String({ description: 'healthy or degraded' }),
  timestamp: Type.String(),
  cost_data_source: Type.Object({
    type: Type.String(),
    healthy: Type.Boolean(),
    latency_ms: Type.Number(),
    error: Type.Optional(Type.String()),
    probe: Type.Object({
      window: CostWindow,
      aggregate: Type.String(),
      data_returned: Type.Boolean(),
      allocations: Type.Integer(),
      total_cost: Type.Number(),
    }),
  }),
  scheduler: Type.Object({
    running: Type.Boolean(),
    alive: Type.Boolean(),
    interval_minutes: Type.Number(),
    settle_minutes: Type.Number(),
    current_window: Type.Union([CostWindow, Type.Null()]),
    last_tick_at: NullableString,
    last_outcome: NullableString,
    last_written: Type.Union([
      Type.Object({ window_start: Type.String(), window_end: Type.String(), key: Type.String() }),
      Type.Null(),
    ]),
    last_error: NullableString,
    died: NullableString,
  }),
  storage: Type.Object({
    bucket: Type.String(),
    scheduled_prefix: Type.String(),
    adhoc_prefix: Type.String(),
  }),
});
export type CostStatus = Static<typeof CostStatus>;

const sourceFailed = {
  502: ErrorDetail('The cost-data source or the report storage failed'),
  504: ErrorDetail('The cost-data source did not answer in time'),
};

/** cost-monitor's own operations (no HMAC envelope: no 403). */
export const COST_MONITOR_RESPONSES = {
  listReports: { 200: CostReportList, 422: HTTPValidationError, ...sourceFailed },
  generateReport: { 201: CostReport, 422: HTTPValidationError, ...sourceFailed },
  status: { 200: CostStatus, 422: HTTPValidationError },
};

const frontFailed = {
  403: EnvelopeRejected,
  422: HTTPValidationError,
  502: ErrorDetail('cost-monitor unreachable, refused by TLS verification, or answered with an error'),
  504: ErrorDetail('cost-monitor did not answer in time'),
};

/**
 * A cost-monitor body the front passes on as it is (an open object: nothing is dropped on the way),
 * typed as cost-monitor's schema says it is.
 */
function passedOn<T extends TSchema>(schema: T, operation: string) {
  return Type.Unsafe<Static<T>>({
    type: 'object',
    additionalProperties: true,
    description: `cost-monitor's answer to ${operation}, passed on as it is`,
  });
}

/** manifest-processor's /api/v1/cost front: cost-monitor's bodies, always with 200. */
export const COST_FRONT_RESPONSES = {
  listReports: { 200: passedOn(CostReportList, 'GET /internal/reports'), ...frontFailed },
  generateReport: { 200: passedOn(CostReport, 'POST /internal/reports'), ...frontFailed },
  status: { 200: passedOn(CostStatus, 'GET /internal/status'), ...frontFailed },
};
