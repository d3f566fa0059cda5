/**
 * "Healthy" = every enabled threshold holds. A check whose input cannot be measured (metrics API down)
 * is `unknown` and does not hold: the monitor never reports healthy on data it does not have.
 */
import type { HealthThresholds } from './config.js';
import type { ClusterSnapshot } from './snapshot.js';

type CheckStatus = 'ok' | 'violated' | 'disabled' | 'unknown' | 'not_applicable';

interface CheckResult {
  status: CheckStatus;
  threshold: number;
  value: number | null;
  unit: 'percent' | 'pods';
  reason?: string;
}

export interface ClusterUtilization {
  cpu: {
    allocatable_cores: number;
    used_cores: number | null;
    requested_cores: number;
    utilization_percent: number | null;
  };
  memory: {
    allocatable_bytes: number;
    used_bytes: number | null;
    requested_bytes: number;
    utilization_percent: number | null;
  };
  gpu: { allocatable: number; requested: number; utilization_percent: number | null };
}

export interface HealthEvaluation {
  healthy: boolean;
  checks: { cpu: CheckResult; memory: CheckResult; gpu: CheckResult; pending_pods: CheckResult };
  utilization: ClusterUtilization;
}

const round = (n: number): number => Math.round(n * 100) / 100;
const percent = (part: number, whole: number): number | null =>
  whole > 0 ? round((part / whole) * 100) : null;

export function utilization(snapshot: ClusterSnapshot): ClusterUtilization {
  const sum = (f: (n: ClusterSnapshot['nodes'][number]) => number) =>
    snapshot.nodes.reduce((a, n) => a + f(n), 0);
  const hasUsage = snapshot.metricsError === null && snapshot.nodes.every((n) => n.usage !== null);
  const cpuAlloc = sum((n) => n.allocatable.cpu);
  const memAlloc = sum((n) => n.allocatable.memory);
  const gpuAlloc = sum((n) => n.allocatable.gpu);
  const cpuUsed = hasUsage ? sum((n) => n.usage?.cpu ?? 0) : null;
  const memUsed = hasUsage ? sum((n) => n.usage?.memory ?? 0) : null;
  const gpuRequested = sum((n) => n.requested.gpu);
  return {
    cpu: {
      allocatable_cores: round(cpuAlloc),
      used_cores: cpuUsed === null ? null : round(cpuUsed),
      requested_cores: round(sum((n) => n.requested.cpu)),
      utilization_percent: cpuUsed === null ? null : percent(cpuUsed, cpuAlloc),
    },
    memory: {
      allocatable_bytes: memAlloc,
      used_bytes: memUsed,
      requested_bytes: sum((n) => n.requested.memory),
      utilization_percent: memUsed === null ? null : percent(memUsed, memAlloc),
    },
    gpu: {
      allocatable: gpuAlloc,
      requested: gpuRequested,
      utilization_percent: percent(gpuRequested, gpuAlloc),
    },
  };
}

function percentCheck(
  threshold: number,
  value: number | null,
  unknownReason: string | null,
  capacity: number,
): CheckResult {
  if (threshold < 0) return { status: 'disabled', threshold, value, unit: 'percent' };
  if (capacity === 0)
    return {
      status: 'not_applicable',
      threshold,
      value: null,
      unit: 'percent',
      reason: 'no allocatable capacity',
    };
  if (value === null)
    return { status: 'unknown', threshold, value, unit: 'percent', reason: unknownReason ?? 'not measured' };
  return { status: value <= threshold ? 'ok' : 'violated', threshold, value, unit: 'percent' };
}

export function evaluateHealth(snapshot: ClusterSnapshot, thresholds: HealthThresholds): HealthEvaluation {
  const u = utilization(snapshot);
  const metricsReason = snapshot.metricsError && `metrics.k8s.io unavailable: ${snapshot.metricsError}`;
  const checks = {
    cpu: percentCheck(
      thresholds.cpuPercent,
      u.cpu.utilization_percent,
      metricsReason,
      u.cpu.allocatable_cores,
    ),
    memory: percentCheck(
      thresholds.memoryPercent,
      u.memory.utilization_percent,
      metricsReason,
      u.memory.allocatable_bytes,
    ),
    // GPU "not applicable" on a cluster without GPUs: nothing can be over-committed.
    gpu: percentCheck(thresholds.gpuPercent, u.gpu.utilization_percent, null, u.gpu.allocatable),
    pending_pods:
      thresholds.pendingPods < 0
        ? ({
            status: 'disabled',
            threshold: thresholds.pendingPods,
            value: snapshot.pods.pending,
            unit: 'pods',
          } as CheckResult)
        : ({
            status: snapshot.pods.pending <= thresholds.pendingPods ? 'ok' : 'violated',
            threshold: thresholds.pendingPods,
            value: snapshot.pods.pending,
            unit: 'pods',
          } as CheckResult),
  };
  const healthy = Object.values(checks).every(
    (c) => c.status === 'ok' || c.status === 'disabled' || c.status === 'not_applicable',
  );
  return { healthy, checks, utilization: u };
}
