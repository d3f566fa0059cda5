/**
 * cost-monitor (seed 000, version 1.0.0): scheduled and on-demand cost allocation reports of one region.
 * Internal only: reached by manifest-processor over HTTPS on 8443, confined by a NetworkPolicy, and by the
 * seed without authentication middleware of its own (`envelope: false`).
 */
import { hostname } from 'node:os';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Logger } from 'pino';
import { Type } from 'typebox';
import { HttpError } from '../../shared/errors.js';
import { createLogger } from '../../shared/logger.js';
import { FreeFormObject } from '../../shared/schema.js';
import { createService, type Service } from '../../shared/service.js';
import { WindowClaims } from './claims.js';
import type { CostMonitorConfig } from './config.js';
import { OpenCostClient, OpenCostError } from './opencost.js';
import { summaryOf } from './report.js';
import { ReportService } from './reports.js';
import { ReportScheduler } from './scheduler.js';
import { ReportStore, ReportStoreError } from './store.js';

export const SERVICE_NAME = 'cost-monitor';
export const SERVICE_VERSION = '1.0.0';

export const ListReportsQuery = Type.Object({
  adhoc: Type.Boolean({ default: false, description: 'List ad-hoc reports instead of scheduled ones' }),
  limit: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 50,
    description: 'Most recent reports to return',
  }),
});

export const AdhocReportRequest = Type.Object(
  {
    include_rows: Type.Boolean({
      default: false,
      description: 'Include normalized allocation rows in the response',
    }),
    window_hours: Type.Integer({
      minimum: 1,
      maximum: 168,
      default: 24,
      description: 'Trailing window in hours',
    }),
  },
  { title: 'AdhocReportRequest' },
);

export interface CostMonitorDeps {
  config: CostMonitorConfig;
  s3: S3Client;
  dynamo: DynamoDBClient;
  /** PEM key and certificate: serve HTTPS (production: 8443). Plain HTTP without it (local runs). */
  https?: { key: string | Buffer; cert: string | Buffer };
  clock?: () => Date;
  fetch?: typeof fetch;
  logger?: Logger;
  /** Identifies this replica in window claims; defaults to the host (pod) name plus a random suffix. */
  instanceId?: string;
  scheduler?: { tickMs?: number; leaseSeconds?: number; staleAfterMs?: number; autoStart?: boolean };
}

export interface CostMonitor extends Service {
  readonly reports: ReportService;
  readonly scheduler: ReportScheduler;
  readonly claims: WindowClaims;
}

/** Maps dependency failures to caller-safe gateway errors; anything else stays a 500. */
function upstreamError(error: unknown): unknown {
  if (error instanceof OpenCostError) {
    return new HttpError(
      error.reason === 'timeout' ? 504 : 502,
      `Cost data source unavailable: ${error.message}`,
    );
  }
  if (error instanceof ReportStoreError) return new HttpError(502, 'Report storage unavailable');
  return error;
}

export async function createCostMonitor(deps: CostMonitorDeps): Promise<CostMonitor> {
  const { config } = deps;
  const clock = deps.clock ?? (() => new Date());
  const owner = deps.instanceId ?? `${hostname()}-${Math.random().toString(16).slice(2, 10)}`;
  const opencost = new OpenCostClient({
    baseUrl: config.opencostUrl,
    timeoutMs: config.opencostTimeoutMs,
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  const store = new ReportStore(deps.s3, config.bucket, config.region);
  const reports = new ReportService({
    region: config.region,
    cluster: config.clusterName,
    opencost,
    store,
    clock,
  });
  const claims = new WindowClaims(deps.dynamo, {
    table: config.table,
    region: config.region,
    owner,
    ...(deps.scheduler?.leaseSeconds ? { leaseSeconds: deps.scheduler.leaseSeconds } : {}),
  });
  // One logger for the app and the scheduler (the framework would otherwise create its own).
  const log = deps.logger ?? createLogger(SERVICE_NAME, SERVICE_VERSION);
  const scheduler = new ReportScheduler({
    intervalMinutes: config.intervalMinutes,
    settleMinutes: config.settleMinutes,
    claims,
    write: (window) => reports.ensureScheduled(window),
    clock,
    ...(deps.scheduler?.tickMs ? { tickMs: deps.scheduler.tickMs } : {}),
    ...(deps.scheduler?.staleAfterMs ? { staleAfterMs: deps.scheduler.staleAfterMs } : {}),
    log,
  });
  let closed = false;
  const base = {
    service: SERVICE_NAME,
    version: SERVICE_VERSION,
    region: config.region,
    cluster: config.clusterName,
  };

  const service = await createService({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description: 'Scheduled and on-demand cost allocation reports of one region (internal)',
    envelope: false,
    ...(deps.https ? { https: deps.https } : {}),
    logger: log,
    readiness: {
      monitor: () => !closed,
      scheduled_reports: () => scheduler.alive,
    },
    onClose: async () => {
      closed = true;
      await scheduler.stop();
    },
    routes: (app) => {
      app.get(
        '/internal/reports',
        {
          schema: {
            operationId: 'list_reports_internal_reports_get',
            summary: 'Most recent report objects of this region, newest first',
            querystring: ListReportsQuery,
            response: { 200: FreeFormObject },
          },
        },
        async (request) => {
          const kind = request.query.adhoc ? 'adhoc' : 'scheduled';
          try {
            const listed = await reports.list(kind, request.query.limit);
            return {
              region: config.region,
              cluster: config.clusterName,
              kind,
              count: listed.length,
              reports: listed,
            };
          } catch (error) {
            throw upstreamError(error);
          }
        },
      );

      app.post(
        '/internal/reports',
        {
          schema: {
            operationId: 'generate_adhoc_report_internal_reports_post',
            summary: 'Generate and store an ad-hoc report of the trailing window',
            body: AdhocReportRequest,
            response: { 201: FreeFormObject },
          },
        },
        async (request, reply) => {
          try {
            const report = await reports.createAdhoc(request.body.window_hours);
            return reply.code(201).send(request.body.include_rows ? report : summaryOf(report));
          } catch (error) {
            throw upstreamError(error);
          }
        },
      );

      app.get(
        '/internal/status',
        {
          schema: {
            operationId: 'get_status_internal_status_get',
            summary: 'Status: cost-data source health, the data-returning probe, the scheduled-report task',
            response: { 200: FreeFormObject },
          },
        },
        async () => {
          const source = await reports.probeSource();
          const schedule = scheduler.status();
          const healthy = source.healthy && source.probe.data_returned && schedule.alive;
          return {
            ...base,
            status: healthy ? 'healthy' : 'degraded',
            timestamp: clock().toISOString(),
            cost_data_source: source,
            scheduler: schedule,
            storage: {
              bucket: config.bucket,
              scheduled_prefix: `reports/region=${config.region}/`,
              adhoc_prefix: `adhoc/region=${config.region}/`,
            },
          };
        },
      );
    },
  });
  if (deps.scheduler?.autoStart !== false) scheduler.start();
  return Object.assign(service, { reports, scheduler, claims });
}
