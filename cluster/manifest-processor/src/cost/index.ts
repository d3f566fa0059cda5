/** manifest-processor's cost routes and its HTTPS client of cost-monitor (wired by app.ts). */
export {
  CostMonitorClient,
  costMonitorClientEnvironment,
  CostMonitorError,
  DEFAULT_TIMEOUT_MS,
  loadCostMonitorClientSettings,
  type CostMonitorClientOptions,
  type CostMonitorClientSettings,
  type CostMonitorReply,
} from './client.js';
export { COST_PREFIX, CostReportRequest, costRoutes, type CostRoutesDeps } from './routes.js';
