/**
 * The /api/v1/cost operations of manifest-processor (docs/cost.md): the authenticated front of cost-monitor.
 * The HMAC envelope is verified here like on every manifest-processor route; the calls then go to
 * cost-monitor over verified TLS. Answers: cost-monitor's body with 200 (201 belongs only to
 * cost-monitor's own POST), its 422s as they are, 502 when it is unreachable, fails TLS
 * verification, answers malformed or with an error, 504 when it does not answer in time.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger } from 'fastify';
import {
  COST_FRONT_RESPONSES as RESPONSES,
  type CostReport,
  type CostReportList,
  type CostStatus,
} from '../../../../contracts/api/cost-monitor.js';
import { ListReportsQuery, reportRequest } from '../../../cost-monitor/src/schemas.js';
import { HttpError } from '../../../shared/errors.js';
import { CostMonitorError, type CostMonitorClient, type CostMonitorReply } from './client.js';

/** cost-monitor validates the same bodies; this front publishes the request under its own title. */
const CostReportRequest = reportRequest('CostReportRequest');

export interface CostRoutesDeps {
  client: CostMonitorClient;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Turns a cost-monitor call into this route's answer body, or throws the HttpError to answer with. The
 * body is typed as the route answers it: cost-monitor serialised it through the same response schema.
 */
async function forward<Body>(log: FastifyBaseLogger, call: () => Promise<CostMonitorReply>): Promise<Body> {
  let reply: CostMonitorReply;
  try {
    reply = await call();
  } catch (error) {
    if (error instanceof CostMonitorError) {
      // The reason (TLS, DNS, refused…) goes to the log; callers learn only which side failed.
      log.warn({ err: error, kind: error.kind }, 'cost-monitor call failed');
      if (error.kind === 'timeout') throw new HttpError(504, 'cost-monitor did not answer in time');
      throw new HttpError(502, 'cost-monitor unavailable');
    }
    throw error;
  }
  if (reply.status >= 200 && reply.status < 300 && isRecord(reply.body)) return reply.body as Body;
  // The bodies are validated identically on both sides, so a 422 from cost-monitor is the caller's.
  if (reply.status === 422 && isRecord(reply.body)) throw new HttpError(422, reply.body.detail);
  const detail =
    isRecord(reply.body) && typeof reply.body.detail === 'string' ? reply.body.detail : undefined;
  log.warn({ status: reply.status, detail }, 'cost-monitor answered with an error');
  throw new HttpError(502, detail ? `cost-monitor: ${detail}` : `cost-monitor answered HTTP ${reply.status}`);
}

// The bodies are cost-monitor's, re-serialised here through the same schemas (contracts/api/cost-monitor.ts).
export const COST_PREFIX = '/api/v1/cost';

export const costRoutes: FastifyPluginAsyncTypebox<CostRoutesDeps> = async (app, deps) => {
  const { client } = deps;
  app.addHook('onClose', async () => client.close());

  app.get(
    '/reports',
    {
      schema: {
        operationId: 'list_cost_reports_api_v1_cost_reports_get',
        summary: 'Most recent cost report objects of this region (scheduled, or ad-hoc with adhoc=true)',
        querystring: ListReportsQuery,
        response: RESPONSES.listReports,
      },
    },
    async (request) =>
      forward<CostReportList>(request.log, () => client.listReports(request.query, request.id)),
  );

  app.post(
    '/reports',
    {
      schema: {
        operationId: 'generate_cost_report_api_v1_cost_reports_post',
        summary: 'Generate an ad-hoc cost report of the trailing window',
        body: CostReportRequest,
        response: RESPONSES.generateReport,
      },
    },
    async (request) =>
      forward<CostReport>(request.log, () => client.generateReport(request.body, request.id)),
  );

  app.get(
    '/status',
    {
      schema: {
        operationId: 'get_cost_status_api_v1_cost_status_get',
        summary: 'Cost monitoring status of the region, including cost-data source health',
        response: RESPONSES.status,
      },
    },
    async (request) => forward<CostStatus>(request.log, () => client.status(request.id)),
  );
};
