// The cluster layers of GET /api/v1/policy read through @kubernetes/client-node from the Kubernetes API
// simulator: LimitRanges and ResourceQuotas are summarised, and a layer the API refuses is reported as
// unavailable while the other still reports.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { KubeConfig } from '@kubernetes/client-node';

import {
  buildPolicyReport,
  loadPolicyConfig,
  readClusterEnforcement,
  ValidationPolicy,
} from '../../cluster/manifest-processor/src/policy/index.js';
import type { KubeApiSimulator } from '../../local/kube-api-simulator/index.js';
import { kubeConfigFor, startKubeApiSimulator } from '../../local/kube-api-simulator/index.js';

let sim: KubeApiSimulator;
let kc: KubeConfig;

beforeAll(async () => {
  sim = await startKubeApiSimulator({ kubelet: { pendingMs: 50, runningMs: 100 } });
  kc = kubeConfigFor(sim.url);
  sim.put({
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: { name: 'container-ceilings', namespace: 'svc-jobs' },
    spec: {
      limits: [
        {
          type: 'Container',
          max: { cpu: '8', memory: '32Gi' },
          default: { cpu: '1', memory: '1Gi' },
          defaultRequest: { cpu: '500m', memory: '512Mi' },
        },
      ],
    },
  });
  sim.put({
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'compute', namespace: 'svc-jobs' },
    spec: { hard: { 'requests.cpu': '32', 'requests.memory': '128Gi', 'requests.nvidia.com/gpu': '4' } },
  });
  // Outside the allowed namespaces: must not be reported.
  sim.put({
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: { name: 'system', namespace: 'kube-system' },
    spec: { limits: [{ type: 'Container', max: { cpu: '64' } }] },
  });
});

afterAll(async () => {
  await sim.close();
});

afterEach(() => {
  sim.clearUnavailable('limitranges');
  sim.clearUnavailable('resourcequotas');
});

const NAMESPACES = ['svc-jobs', 'default'];

test('LimitRanges and ResourceQuotas of the allowed namespaces are summarised', async () => {
  const report = await readClusterEnforcement(kc, NAMESPACES);
  expect(report.limit_ranges).toEqual({
    status: 'ok',
    items: [
      {
        namespace: 'svc-jobs',
        name: 'container-ceilings',
        limits: [
          {
            type: 'Container',
            max: { cpu: '8', memory: '32Gi' },
            default: { cpu: '1', memory: '1Gi' },
            default_request: { cpu: '500m', memory: '512Mi' },
          },
        ],
      },
    ],
  });
  expect(report.resource_quotas.status).toBe('ok');
  expect(report.resource_quotas.items).toEqual([
    expect.objectContaining({
      namespace: 'svc-jobs',
      name: 'compute',
      hard: { 'requests.cpu': '32', 'requests.memory': '128Gi', 'requests.nvidia.com/gpu': '4' },
      used: expect.any(Object),
    }),
  ]);
});

test('a forbidden LimitRange list makes only that layer unavailable', async () => {
  sim.setUnavailable('limitranges', 403);
  const report = await readClusterEnforcement(kc, NAMESPACES);
  expect(report.limit_ranges.status).toBe('unavailable');
  expect(report.limit_ranges.items).toBeUndefined();
  expect(report.limit_ranges.error).toMatch(
    /^listNamespacedLimitRange\((svc-jobs|default)\): HTTP 403: .*limitranges/,
  );
  expect(report.resource_quotas.status).toBe('ok');
  expect(report.resource_quotas.items).toHaveLength(1);
});

test.each([404, 503] as const)('HTTP %d on ResourceQuotas leaves LimitRanges reporting', async (status) => {
  sim.setUnavailable('resourcequotas', status);
  const report = await readClusterEnforcement(kc, NAMESPACES);
  expect(report.resource_quotas).toEqual({
    status: 'unavailable',
    error: expect.stringContaining(`HTTP ${status}`),
  });
  expect(report.limit_ranges.status).toBe('ok');
});

test('an unreachable API server makes both layers unavailable without throwing', async () => {
  const unreachable = kubeConfigFor('http://127.0.0.1:1');
  const report = await readClusterEnforcement(unreachable, NAMESPACES);
  expect(report.limit_ranges.status).toBe('unavailable');
  expect(report.resource_quotas.status).toBe('unavailable');
  expect(report.limit_ranges.error).toContain('listNamespacedLimitRange');
});

test('an API server that never answers is cut off by the timeout', async () => {
  const silent = createServer(() => {
    // Never responds.
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = silent.address() as AddressInfo;
    const started = Date.now();
    const report = await readClusterEnforcement(kubeConfigFor(`http://127.0.0.1:${port}`), NAMESPACES, {
      timeoutMs: 200,
    });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(report.limit_ranges).toEqual({
      status: 'unavailable',
      error: 'listNamespacedLimitRange did not answer within 200 ms',
    });
    expect(report.resource_quotas.status).toBe('unavailable');
  } finally {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  }
});

test('a kubeconfig without a cluster is reported, not thrown', async () => {
  const report = await readClusterEnforcement(new KubeConfig(), NAMESPACES);
  expect(report.limit_ranges.status).toBe('unavailable');
  expect(report.resource_quotas.status).toBe('unavailable');
});

test('buildPolicyReport has the three layers and reads the policy namespaces', async () => {
  sim.setUnavailable('limitranges', 403);
  const policy = new ValidationPolicy(
    loadPolicyConfig({
      ALLOWED_NAMESPACES: 'svc-jobs',
      PROJECT_REGISTRIES: '123456789012.dkr.ecr.us-east-1.amazonaws.com',
    }),
  );
  const report = await buildPolicyReport(policy, kc);
  expect(Object.keys(report).sort()).toEqual(['cluster_enforcement', 'policy']);
  expect(report.policy).toEqual(policy.describe());
  expect(report.policy.registries).toMatchObject({ effective_strictly_larger: true });
  expect(report.cluster_enforcement.limit_ranges.status).toBe('unavailable');
  expect(report.cluster_enforcement.resource_quotas).toMatchObject({
    status: 'ok',
    items: [{ name: 'compute' }],
  });
  expect(JSON.parse(JSON.stringify(report))).toEqual(report);
});
