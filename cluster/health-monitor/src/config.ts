/** health-monitor configuration: its environment contract, read and written here (docs/service-framework.md). */
import { readContract, variables, type EnvSource } from '../../shared/env-source.js';

/** A threshold of -1 disables that check. */
export interface HealthThresholds {
  /** Cluster CPU usage (metrics.k8s.io) as a percentage of allocatable CPU. */
  cpuPercent: number;
  /** Cluster memory usage as a percentage of allocatable memory. */
  memoryPercent: number;
  /** GPUs requested by live pods as a percentage of allocatable GPUs. */
  gpuPercent: number;
  /** Number of pods in phase Pending, across all namespaces. */
  pendingPods: number;
}

export interface HealthMonitorConfig {
  clusterName: string;
  region: string;
  thresholds: HealthThresholds;
  /** The status snapshot is refreshed this often and is never served older than this. */
  refreshIntervalSeconds: number;
}

const DEFAULT_THRESHOLDS: HealthThresholds = {
  cpuPercent: 80,
  memoryPercent: 85,
  gpuPercent: 95,
  pendingPods: 10,
};

const VARIABLES = {
  clusterName: 'CLUSTER_NAME',
  region: 'REGION',
  cpuPercent: 'HEALTH_CPU_THRESHOLD_PERCENT',
  memoryPercent: 'HEALTH_MEMORY_THRESHOLD_PERCENT',
  gpuPercent: 'HEALTH_GPU_THRESHOLD_PERCENT',
  pendingPods: 'HEALTH_PENDING_PODS_THRESHOLD',
  refreshIntervalSeconds: 'STATUS_REFRESH_INTERVAL_SECONDS',
} as const;

export function loadHealthMonitorConfig(env: EnvSource = process.env): HealthMonitorConfig {
  return readContract(env, (read) => {
    const percent = (name: string, fallback: number) => {
      const value = read.number(name, fallback, { min: -1, max: 100 });
      return value < 0 ? -1 : value;
    };
    return {
      clusterName: read.string(VARIABLES.clusterName, 'local'),
      region: read.string(VARIABLES.region, read.string('AWS_REGION', 'local')),
      thresholds: {
        cpuPercent: percent(VARIABLES.cpuPercent, DEFAULT_THRESHOLDS.cpuPercent),
        memoryPercent: percent(VARIABLES.memoryPercent, DEFAULT_THRESHOLDS.memoryPercent),
        gpuPercent: percent(VARIABLES.gpuPercent, DEFAULT_THRESHOLDS.gpuPercent),
        pendingPods: read.integer(VARIABLES.pendingPods, DEFAULT_THRESHOLDS.pendingPods, { min: -1 }),
      },
      refreshIntervalSeconds: read.number(VARIABLES.refreshIntervalSeconds, 30, { min: 1, max: 3600 }),
    };
  });
}

/** The variables that make loadHealthMonitorConfig() return these values (the local platform sets them). */
export function healthMonitorEnvironment(config: Partial<HealthMonitorConfig>): Record<string, string> {
  return variables({
    [VARIABLES.clusterName]: config.clusterName,
    [VARIABLES.region]: config.region,
    [VARIABLES.cpuPercent]: config.thresholds?.cpuPercent,
    [VARIABLES.memoryPercent]: config.thresholds?.memoryPercent,
    [VARIABLES.gpuPercent]: config.thresholds?.gpuPercent,
    [VARIABLES.pendingPods]: config.thresholds?.pendingPods,
    [VARIABLES.refreshIntervalSeconds]: config.refreshIntervalSeconds,
  });
}
