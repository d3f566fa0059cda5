/**
 * The platform-metrics environment contract of the cluster services (cluster/shared/emf-publisher.ts),
 * read and written here. METRICS_LOG_GROUP unset means publishing is off (the local platform, tests): the
 * background loops still compute their metrics, nothing leaves the process.
 */
import { readContract, variablesOf, type EnvSource } from './env-source.js';

export interface EmfConfig {
  /** CloudWatch Logs group the EMF documents go to (METRICS_LOG_GROUP); undefined = publishing off. */
  logGroup: string | undefined;
  /** Value of the Project dimension (PROJECT_NAME). */
  project: string;
  /** Value of the Region dimension: the region this pod runs in (REGION, else AWS_REGION). */
  region: string;
  /** How often the loops publish and the publisher flushes (METRICS_INTERVAL_MS). */
  intervalMs: number;
}

const EMF_DEFAULTS = { intervalMs: 60_000 } as const;

/** CloudWatch stores metrics at one-minute resolution at best; more often only costs requests. */
const INTERVAL_BOUNDS = { min: 1_000, max: 3_600_000 } as const;

const VARIABLES = {
  logGroup: 'METRICS_LOG_GROUP',
  project: 'PROJECT_NAME',
  region: 'REGION',
  intervalMs: 'METRICS_INTERVAL_MS',
} as const satisfies Record<keyof EmfConfig, string>;

export function loadEmfConfig(env: EnvSource = process.env): EmfConfig {
  return readContract(env, (read) => {
    const logGroup = read.optional(VARIABLES.logGroup);
    // Published dimensions must match the alarms' (lib/monitoring): no silent default when publishing.
    const project =
      logGroup === undefined
        ? read.string(VARIABLES.project, 'local')
        : (read.required(VARIABLES.project, 'the Project dimension of the published metrics') ?? '');
    return {
      logGroup,
      project,
      region: read.optional(VARIABLES.region) ?? read.string('AWS_REGION', 'local'),
      intervalMs: read.integer(VARIABLES.intervalMs, EMF_DEFAULTS.intervalMs, INTERVAL_BOUNDS),
    };
  });
}

export function emfEnvironment(config: Partial<EmfConfig>): Record<string, string> {
  return variablesOf(VARIABLES, config);
}
