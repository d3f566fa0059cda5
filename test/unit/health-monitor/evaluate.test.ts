import { loadHealthMonitorConfig } from '../../../cluster/health-monitor/src/config.js';
import { evaluateHealth, utilization } from '../../../cluster/health-monitor/src/evaluate.js';
import {
  podRequests,
  type ClusterSnapshot,
  type NodeSnapshot,
} from '../../../cluster/health-monitor/src/snapshot.js';
import { EnvironmentError } from '../../../contracts/env/reader.js';

const GiB = 2 ** 30;

function node(overrides: Partial<NodeSnapshot> = {}): NodeSnapshot {
  return {
    name: 'n1',
    ready: true,
    instanceType: 'm6i.2xlarge',
    zone: 'us-east-1a',
    allocatable: { cpu: 8, memory: 32 * GiB, gpu: 0 },
    requested: { cpu: 1, memory: 2 * GiB, gpu: 0 },
    usage: { cpu: 2, memory: 8 * GiB },
    pods: 3,
    ...overrides,
  };
}

function snapshot(nodes: NodeSnapshot[], pending = 0, metricsError: string | null = null): ClusterSnapshot {
  return {
    collectedAt: new Date('2026-01-01T00:00:00Z'),
    nodes,
    pods: { total: 10, pending, running: 10 - pending, succeeded: 0, failed: 0, unknown: 0 },
    metricsError,
  };
}

const thresholds = { cpuPercent: 80, memoryPercent: 85, gpuPercent: 95, pendingPods: 10 };

describe('health evaluation', () => {
  test('healthy when every enabled threshold holds', () => {
    const result = evaluateHealth(snapshot([node()]), thresholds);
    expect(result.healthy).toBe(true);
    expect(result.checks.cpu).toEqual({ status: 'ok', threshold: 80, value: 25, unit: 'percent' });
    expect(result.checks.memory.value).toBe(25);
    expect(result.checks.gpu.status).toBe('not_applicable');
    expect(result.checks.pending_pods).toEqual({ status: 'ok', threshold: 10, value: 0, unit: 'pods' });
  });

  test.each([
    ['cpu', node({ usage: { cpu: 7, memory: 1 * GiB } }), 0],
    ['memory', node({ usage: { cpu: 1, memory: 30 * GiB } }), 0],
    ['pending_pods', node(), 11],
  ] as const)('a %s violation makes the cluster unhealthy', (check, n, pending) => {
    const result = evaluateHealth(snapshot([n], pending), thresholds);
    expect(result.healthy).toBe(false);
    expect(result.checks[check].status).toBe('violated');
  });

  test('GPU: requested vs allocatable across nodes', () => {
    const gpuNode = node({
      name: 'g1',
      allocatable: { cpu: 48, memory: 192 * GiB, gpu: 4 },
      requested: { cpu: 4, memory: 8 * GiB, gpu: 4 },
    });
    const result = evaluateHealth(snapshot([node(), gpuNode]), thresholds);
    expect(result.checks.gpu).toEqual({ status: 'violated', threshold: 95, value: 100, unit: 'percent' });
    expect(result.utilization.gpu).toEqual({ allocatable: 4, requested: 4, utilization_percent: 100 });
  });

  test('the threshold is inclusive', () => {
    const result = evaluateHealth(snapshot([node({ usage: { cpu: 6.4, memory: 1 } })]), thresholds);
    expect(result.checks.cpu).toMatchObject({ status: 'ok', value: 80 });
  });

  test('-1 disables a threshold', () => {
    const disabled = { cpuPercent: -1, memoryPercent: -1, gpuPercent: -1, pendingPods: -1 };
    const result = evaluateHealth(snapshot([node({ usage: { cpu: 8, memory: 32 * GiB } })], 500), disabled);
    expect(result.healthy).toBe(true);
    expect(Object.values(result.checks).map((c) => c.status)).toEqual([
      'disabled',
      'disabled',
      'disabled',
      'disabled',
    ]);
  });

  test('unmeasurable usage is unknown and never reported healthy', () => {
    const result = evaluateHealth(
      snapshot([node({ usage: null })], 0, '503 Service Unavailable'),
      thresholds,
    );
    expect(result.healthy).toBe(false);
    expect(result.checks.cpu).toMatchObject({
      status: 'unknown',
      reason: expect.stringContaining('metrics.k8s.io unavailable'),
    });
    expect(utilization(snapshot([node({ usage: null })], 0, 'x')).cpu.used_cores).toBeNull();
  });

  test('pod requests follow the scheduler: init containers, GPU limits as requests', () => {
    const requests = podRequests({
      spec: {
        containers: [
          {
            name: 'a',
            resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { 'nvidia.com/gpu': '2' } },
          },
          { name: 'b', resources: { requests: { cpu: '0.5', memory: '512Mi' } } },
        ],
        initContainers: [{ name: 'init', resources: { requests: { cpu: '2', memory: '256Mi' } } }],
      },
    });
    expect(requests).toEqual({ cpu: 2, memory: 1.5 * GiB, gpu: 2 });
  });
});

describe('health-monitor configuration', () => {
  test('defaults', () => {
    expect(loadHealthMonitorConfig({})).toEqual({
      clusterName: 'local',
      region: 'local',
      thresholds,
      refreshIntervalSeconds: 30,
    });
  });

  test('reads thresholds, -1 disables', () => {
    const config = loadHealthMonitorConfig({
      HEALTH_CPU_THRESHOLD_PERCENT: '-1',
      HEALTH_PENDING_PODS_THRESHOLD: '0',
      REGION: 'us-east-1',
      STATUS_REFRESH_INTERVAL_SECONDS: '5',
    });
    expect(config.thresholds.cpuPercent).toBe(-1);
    expect(config.thresholds.pendingPods).toBe(0);
    expect(config.region).toBe('us-east-1');
    expect(config.refreshIntervalSeconds).toBe(5);
  });

  test('every bad variable is named in one error', () => {
    expect(() =>
      loadHealthMonitorConfig({
        HEALTH_CPU_THRESHOLD_PERCENT: '120',
        HEALTH_PENDING_PODS_THRESHOLD: '1.5',
        STATUS_REFRESH_INTERVAL_SECONDS: 'x',
      }),
    ).toThrow(EnvironmentError);
    try {
      loadHealthMonitorConfig({ HEALTH_CPU_THRESHOLD_PERCENT: '120', HEALTH_PENDING_PODS_THRESHOLD: '1.5' });
    } catch (error) {
      expect(String(error)).toContain('HEALTH_CPU_THRESHOLD_PERCENT: expected a value in -1..100, got 120');
      expect(String(error)).toContain('HEALTH_PENDING_PODS_THRESHOLD: expected an integer');
    }
  });
});
