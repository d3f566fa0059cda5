import { jsonOf } from '../support/json.js';
import { createHealthMonitor, type HealthMonitor } from '../../cluster/health-monitor/src/app.js';
import type { HealthMonitorConfig } from '../../cluster/health-monitor/src/config.js';
import { SnapshotCollector } from '../../cluster/health-monitor/src/snapshot.js';
import { silentServiceLogger } from '../../cluster/shared/logger.js';
import { signEnvelope } from '../../contracts/envelope/envelope.js';
import {
  kubeConfigFor,
  startKubeApiSimulator,
  type KubeApiSimulator,
} from '../../local/kube-api-simulator/index.js';
import { KEY, testEnvelopeVerifier } from '../support/cluster-fixtures.js';
import { pythonSignedRequest } from '../support/python-envelope-client.js';
import { waitFor } from '../support/wait-for.js';

/** Requests signed and sent by the independent Python implementation of the envelope. */
const python = (base: string, request: Record<string, unknown>) =>
  pythonSignedRequest({ base, key: KEY, ...request });

const config: HealthMonitorConfig = {
  clusterName: 'sim-cluster',
  region: 'us-east-1',
  thresholds: { cpuPercent: 80, memoryPercent: 85, gpuPercent: 95, pendingPods: 5 },
  refreshIntervalSeconds: 30,
};

describe('health-monitor against the Kubernetes API simulator', () => {
  let sim: KubeApiSimulator;
  let monitor: HealthMonitor;
  let base: string;

  beforeEach(async () => {
    sim = await startKubeApiSimulator({ kubelet: { pendingMs: 20, runningMs: 50 } });
    for (const n of sim.list('v1', 'Node')) sim.setNodeUsage(n.metadata.name, { cpu: '1', memory: '2Gi' });
    const collector = new SnapshotCollector(kubeConfigFor(sim.url));
    monitor = await createHealthMonitor({
      config,
      envelope: testEnvelopeVerifier(),
      collect: () => collector.collect(),
      logger: silentServiceLogger(),
    });
    base = await monitor.app.listen({ host: '127.0.0.1', port: 0 });
  });

  afterEach(async () => {
    await monitor.app.close();
    await sim.close();
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });
  const signedGet = (path: string) => get(path, signEnvelope({ key: KEY, method: 'GET', target: path }));

  test('/healthz and /api/v1/health need no envelope; a healthy cluster answers 200', async () => {
    expect((await get('/healthz')).status).toBe(200);
    const res = await get('/api/v1/health');
    expect(res.status).toBe(200);
    const body = await jsonOf(res);
    expect(body).toMatchObject({
      status: 'healthy',
      cluster: 'sim-cluster',
      region: 'us-east-1',
      nodes: { total: 2, ready: 2 },
    });
    expect(body.checks.cpu.status).toBe('ok');
    expect(body.checks.gpu).toMatchObject({ status: 'ok', value: 0 });
  });

  test('a request signed by an independent implementation is accepted', async () => {
    const [res] = await python(base, { target: '/api/v1/metrics' });
    expect(res?.status).toBe(200);
    const body = JSON.parse(res?.body ?? '{}');
    expect(body.nodes.map((n: { name: string }) => n.name).sort()).toEqual(
      sim
        .list('v1', 'Node')
        .map((n) => n.metadata.name)
        .sort(),
    );
    expect(body.utilization.gpu.allocatable).toBe(4);
    expect(body.metrics_source).toEqual({ status: 'ok' });
  });

  test('the same request replayed, stale, or with one query byte changed is 403 {"detail":"Forbidden"}', async () => {
    const replay = await python(base, { target: '/api/v1/status', repeat: 2 });
    expect(replay.map((r) => r.status)).toEqual([200, 403]);
    expect(JSON.parse(replay[1]?.body ?? '')).toEqual({ detail: 'Forbidden' });

    const [stale] = await python(base, { target: '/api/v1/status', timestamp_offset: -31 });
    expect([stale?.status, JSON.parse(stale?.body ?? '')]).toEqual([403, { detail: 'Forbidden' }]);

    // Signed with a query: the envelope verifies (the service then rejects the unknown parameter, 422)…
    const [original] = await python(base, { target: '/api/v1/status?verbose=1' });
    expect(original?.status).toBe(422);
    // …and the same signature with one byte of the query changed does not.
    const [tampered] = await python(base, {
      target: '/api/v1/status?verbose=1',
      send_target: '/api/v1/status?verbose=2',
    });
    expect([tampered?.status, JSON.parse(tampered?.body ?? '')]).toEqual([403, { detail: 'Forbidden' }]);
  });

  test.each(['/', '/api/v1/health', '/api/v1/metrics', '/api/v1/status', '/healthz', '/readyz'])(
    'a malformed query on %s is 422 HTTPValidationError',
    async (path) => {
      const res = await signedGet(`${path}?limit=abc`);
      expect(res.status).toBe(422);
      expect(await jsonOf(res)).toEqual({
        detail: [
          {
            loc: ['query', 'limit'],
            msg: 'Extra inputs are not permitted',
            type: 'extra_forbidden',
            input: 'abc',
          },
        ],
      });
    },
  );

  test('high node usage makes the cluster unhealthy (503)', async () => {
    for (const n of sim.list('v1', 'Node')) sim.setNodeUsage(n.metadata.name, { cpu: '50', memory: '200Gi' });
    await monitor.cache.refresh();
    const res = await get('/api/v1/health');
    expect(res.status).toBe(503);
    const body = await jsonOf(res);
    expect(body.status).toBe('unhealthy');
    expect(body.checks.cpu.status).toBe('violated');
    expect(body.checks.memory.status).toBe('violated');
  });

  test('unschedulable pods count as pending and trip the pending-pods threshold', async () => {
    for (let i = 0; i < 6; i++) {
      sim.put({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `huge-${i}`, namespace: 'svc-jobs' },
        spec: { containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '1000' } } }] },
      });
    }
    await monitor.cache.refresh();
    const body = await jsonOf(await get('/api/v1/health'));
    expect(body.checks.pending_pods).toMatchObject({ status: 'violated', value: 6, threshold: 5 });
  });

  test('GPU requests are counted against allocatable GPUs', async () => {
    sim.put({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'trainer', namespace: 'svc-jobs' },
      spec: {
        containers: [{ name: 'c', image: 'trainer', resources: { limits: { 'nvidia.com/gpu': '4' } } }],
      },
    });
    // The simulated scheduler binds it to the GPU node.
    await waitFor(() =>
      Boolean(
        (sim.get('v1', 'Pod', 'svc-jobs', 'trainer') as { spec?: { nodeName?: string } }).spec?.nodeName,
      ),
    );
    await monitor.cache.refresh();
    const res = await get('/api/v1/health');
    const body = await jsonOf(res);
    expect(body.checks.gpu).toMatchObject({ status: 'violated', value: 100 });
    expect(res.status).toBe(503);
  });

  test('metrics.k8s.io unavailable: usage checks are unknown (503), /api/v1/metrics says why', async () => {
    sim.setUnavailable('metrics.k8s.io', 503);
    await monitor.cache.refresh();
    const health = await get('/api/v1/health');
    expect(health.status).toBe(503);
    expect((await jsonOf(health)).checks.cpu.status).toBe('unknown');
    const metrics = await jsonOf(await signedGet('/api/v1/metrics'));
    expect(metrics.metrics_source.status).toBe('unavailable');
    expect(metrics.utilization.cpu.used_cores).toBeNull();
  });

  test('Kubernetes API down: health 503, status reports it, metrics 503 {"detail"}', async () => {
    await monitor.cache.refresh(); // a good snapshot first, so status can report the last known node count
    await sim.close();
    await monitor.cache.refresh();
    const health = await get('/api/v1/health');
    expect(health.status).toBe(503);
    expect((await jsonOf(health)).reason).toMatch(/Kubernetes API unavailable/);
    const status = await signedGet('/api/v1/status');
    expect(status.status).toBe(200);
    expect(await jsonOf(status)).toMatchObject({
      kubernetes_api: 'unavailable',
      health: 'unhealthy',
      node_count: 2,
    });
    const metrics = await signedGet('/api/v1/metrics');
    expect(metrics.status).toBe(503);
    expect((await jsonOf(metrics)).detail).toMatch(/^Cluster metrics are unavailable/);
    sim = await startKubeApiSimulator(); // for afterEach
  });

  test('status is never older than the refresh interval', async () => {
    const first = await jsonOf(await signedGet('/api/v1/status'));
    expect(Date.now() - Date.parse(first.last_refresh)).toBeLessThanOrEqual(
      config.refreshIntervalSeconds * 1000,
    );
    expect(first).toMatchObject({
      service: 'health-monitor',
      version: '1.0.0',
      refresh_interval_seconds: 30,
      kubernetes_api: 'ok',
    });
  });

  test('serves its OpenAPI 3.1 document with the seed operation ids', async () => {
    const doc = await jsonOf(await signedGet('/openapi.json'));
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap(
      (ops) => Object.values(ops).map((o) => o.operationId),
    );
    expect(ids.sort()).toEqual(
      [
        'root__get',
        'health_check_api_v1_health_get',
        'get_metrics_api_v1_metrics_get',
        'get_status_api_v1_status_get',
        'kubernetes_health_check_healthz_get',
        'kubernetes_readiness_check_readyz_get',
      ].sort(),
    );
  });
});
