/** health-monitor configuration from environment variables (see the service README section). */
import { EnvReader } from '../../shared/env.js';

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

export const DEFAULT_THRESHOLDS: HealthThresholds = {
  cpuPercent: 80,
  memoryPercent: 85,
  gpuPercent: 95,
  pendingPods: 10,
};

export function loadHealthMonitorConfig(env: NodeJS.ProcessEnv = process.env): HealthMonitorConfig {
  const read = new EnvReader(env);
  const percent = (name: string, fallback: number) => {
    const value = read.number(name, fallback, { min: -1, max: 100 });
    return value < 0 ? -1 : value;
  };
  const config: HealthMonitorConfig = {
    clusterName: read.string('CLUSTER_NAME', 'local'),
    region: read.string('REGION', read.string('AWS_REGION', 'local')),
    thresholds: {
      cpuPercent: percent('HEALTH_CPU_THRESHOLD_PERCENT', DEFAULT_THRESHOLDS.cpuPercent),
      memoryPercent: percent('HEALTH_MEMORY_THRESHOLD_PERCENT', DEFAULT_THRESHOLDS.memoryPercent),
      gpuPercent: percent('HEALTH_GPU_THRESHOLD_PERCENT', DEFAULT_THRESHOLDS.gpuPercent),
      pendingPods: read.number('HEALTH_PENDING_PODS_THRESHOLD', DEFAULT_THRESHOLDS.pendingPods, {
        min: -1,
        integer: true,
      }),
    },
    refreshIntervalSeconds: read.number('STATUS_REFRESH_INTERVAL_SECONDS', 30, { min: 1, max: 3600 }),
  };
  read.done();
  return config;
}
