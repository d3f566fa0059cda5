/** manifest-processor's cost routes and its HTTPS client of cost-monitor (wired by app.ts). */
export { CostMonitorClient, costMonitorClientEnvironment, loadCostMonitorClientSettings } from './client.js';
export { COST_PREFIX, costRoutes } from './routes.js';
