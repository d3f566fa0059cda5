/** manifest-processor's cost routes and its HTTPS client of cost-monitor (wired by app.ts). */
export {
  CostMonitorClient,
  CostMonitorError,
  DEFAULT_TIMEOUT_MS,
  type CostMonitorClientOptions,
  type CostMonitorReply,
} from './client.js';
export {
  CostReportRequest,
  ListCostReportsQuery,
  registerCostRoutes,
  type CostRoutesDeps,
} from './routes.js';
