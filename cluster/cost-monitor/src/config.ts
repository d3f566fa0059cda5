/** cost-monitor configuration from environment variables (docs/cost.md lists them). */
import { TABLES } from '../../../lib/tables.js';
import { EnvConfigError, EnvReader } from '../../shared/env.js';

export interface CostMonitorConfig {
  region: string;
  clusterName: string;
  /** Base URL of the in-cluster OpenCost API (the /allocation endpoints live under it). */
  opencostUrl: string;
  /** Per-request deadline for OpenCost calls. */
  opencostTimeoutMs: number;
  /** S3 bucket (in this region) the report objects are written to. */
  bucket: string;
  /** Regional DynamoDB table that records which scheduled windows were claimed (TABLES.costReports). */
  table: string;
  /** Length of a scheduled window; windows are aligned to multiples of it since midnight UTC. */
  intervalMinutes: number;
  /** A window is reported only this long after it ends, so OpenCost has scraped its last minutes. */
  settleMinutes: number;
}

export function loadCostMonitorConfig(env: NodeJS.ProcessEnv = process.env): CostMonitorConfig {
  const read = new EnvReader(env);
  const problems: string[] = [];
  const required = (name: string): string => {
    const value = read.optionalString(name);
    if (value === undefined) problems.push(`${name}: required`);
    return value ?? '';
  };
  // EnvReader reports malformed values; the problems below (missing or inconsistent values) follow them.
  const config: CostMonitorConfig = {
    region: read.string('REGION', read.string('AWS_REGION', 'local')),
    clusterName: read.string('CLUSTER_NAME', 'local'),
    opencostUrl: read.string('OPENCOST_URL', 'http://opencost.opencost.svc.cluster.local:9003'),
    opencostTimeoutMs: read.number('OPENCOST_TIMEOUT_MS', 20_000, { min: 100, max: 300_000, integer: true }),
    bucket: required('COST_REPORTS_BUCKET'),
    table: required(TABLES.costReports.envVar),
    intervalMinutes: read.number('REPORT_INTERVAL_MINUTES', 60, { min: 5, max: 1440, integer: true }),
    settleMinutes: read.number('REPORT_SETTLE_MINUTES', 5, { min: 0, max: 60, integer: true }),
  };
  // Windows must tile a UTC day so every replica (and every restart) computes the same boundaries.
  if (1440 % config.intervalMinutes !== 0) {
    problems.push(`REPORT_INTERVAL_MINUTES: must divide 1440 (a day), got ${config.intervalMinutes}`);
  }
  if (!/^https?:\/\/[^/]+/.test(config.opencostUrl)) {
    problems.push(`OPENCOST_URL: expected an http(s) URL, got ${JSON.stringify(config.opencostUrl)}`);
  }
  read.done();
  if (problems.length > 0) throw new EnvConfigError(problems);
  return config;
}
