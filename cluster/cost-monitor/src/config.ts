/** cost-monitor configuration: its environment contract, read and written here (docs/cost.md lists it). */
import { TABLES } from '../../../contracts/tables.js';
import { readContract, variablesOf, type EnvSource } from '../../shared/env-source.js';

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

const VARIABLES = {
  region: 'REGION',
  clusterName: 'CLUSTER_NAME',
  opencostUrl: 'OPENCOST_URL',
  opencostTimeoutMs: 'OPENCOST_TIMEOUT_MS',
  bucket: 'COST_REPORTS_BUCKET',
  table: TABLES.costReports.envVar,
  intervalMinutes: 'REPORT_INTERVAL_MINUTES',
  settleMinutes: 'REPORT_SETTLE_MINUTES',
} as const satisfies Record<keyof CostMonitorConfig, string>;

export function loadCostMonitorConfig(env: EnvSource = process.env): CostMonitorConfig {
  return readContract(env, (read) => {
    const config: CostMonitorConfig = {
      region: read.string(VARIABLES.region, read.string('AWS_REGION', 'local')),
      clusterName: read.string(VARIABLES.clusterName, 'local'),
      opencostUrl: read.string(VARIABLES.opencostUrl, 'http://opencost.opencost.svc.cluster.local:9003'),
      opencostTimeoutMs: read.integer(VARIABLES.opencostTimeoutMs, 20_000, { min: 100, max: 300_000 }),
      bucket: read.required(VARIABLES.bucket, 'the S3 bucket of the cost reports') ?? '',
      table: read.required(VARIABLES.table, `name of the ${TABLES.costReports.id} table`) ?? '',
      intervalMinutes: read.integer(VARIABLES.intervalMinutes, 60, { min: 5, max: 1440 }),
      settleMinutes: read.integer(VARIABLES.settleMinutes, 5, { min: 0, max: 60 }),
    };
    // Windows must tile a UTC day so every replica (and every restart) computes the same boundaries.
    if (1440 % config.intervalMinutes !== 0) {
      read.problem(`${VARIABLES.intervalMinutes}: must divide 1440 (a day), got ${config.intervalMinutes}`);
    }
    if (!/^https?:\/\/[^/]+/.test(config.opencostUrl)) {
      read.problem(
        `${VARIABLES.opencostUrl}: expected an http(s) URL, got ${JSON.stringify(config.opencostUrl)}`,
      );
    }
    return config;
  });
}

export function costMonitorEnvironment(config: Partial<CostMonitorConfig>): Record<string, string> {
  return variablesOf(VARIABLES, config);
}
