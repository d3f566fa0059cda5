/** cost-monitor's internal operations, mounted under /internal (docs/cost.md, "Operations"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { COST_MONITOR_RESPONSES as RESPONSES } from '../../../contracts/api/cost-monitor.js';
import { HttpError } from '../../shared/errors.js';
import type { ServiceApp } from '../../shared/service.js';
import type { CostMonitorConfig } from './config.js';
import { SERVICE_NAME, SERVICE_VERSION } from './identity.js';
import { OpenCostError } from './opencost.js';
import { summaryOf } from './report.js';
import type { ReportService } from './reports.js';
import type { ReportScheduler } from './scheduler.js';
import { AdhocReportRequest, ListReportsQuery } from './schemas.js';
import { ReportStoreError } from './store.js';

export const INTERNAL_PREFIX = '/internal';

export interface InternalRoutesOptions {
  config: CostMonitorConfig;
  reports: ReportService;
  scheduler: ReportScheduler;
  clock: () => Date;
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

function listReportsRoute(app: ServiceApp, { config, reports }: InternalRoutesOptions): void {
  app.get(
    '/reports',
    {
      schema: {
        operationId: 'list_reports_internal_reports_get',
        summary: 'Most recent report objects of this region, newest first',
        querystring: ListReportsQuery,
        response: RESPONSES.listReports,
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
}

function generateReportRoute(app: ServiceApp, { reports }: InternalRoutesOptions): void {
  app.post(
    '/reports',
    {
      schema: {
        operationId: 'generate_adhoc_report_internal_reports_post',
        summary: 'Generate and store an ad-hoc report of the trailing window',
        body: AdhocReportRequest,
        response: RESPONSES.generateReport,
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
}

function statusRoute(app: ServiceApp, { config, reports, scheduler, clock }: InternalRoutesOptions): void {
  app.get(
    '/status',
    {
      schema: {
        operationId: 'get_status_internal_status_get',
        summary: 'Status: cost-data source health, the data-returning probe, the scheduled-report task',
        response: RESPONSES.status,
      },
    },
    async () => {
      const source = await reports.probeSource();
      const schedule = scheduler.status();
      const healthy = source.healthy && source.probe.data_returned && schedule.alive;
      return {
        service: SERVICE_NAME,
        version: SERVICE_VERSION,
        region: config.region,
        cluster: config.clusterName,
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
}

export const internalRoutes: FastifyPluginAsyncTypebox<InternalRoutesOptions> = async (app, options) => {
  for (const route of [listReportsRoute, generateReportRoute, statusRoute]) route(app, options);
};
