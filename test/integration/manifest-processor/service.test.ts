import { MANIFEST_PROCESSOR_KUBERNETES } from '../../support/cluster-operations.js';
import { jsonOf } from '../../support/json.js';
import { startHarness, type Harness } from './harness.js';

describe('manifest-processor: service operations', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  test('root, status, probes', async () => {
    expect((await h.call('GET', '/')).body).toMatchObject({
      service: 'manifest-processor',
      version: '2.0.0',
    });
    const status = (await h.call('GET', '/api/v1/status')).body;
    expect(status).toMatchObject({
      kubernetes_api: 'ok',
      allowed_namespaces: ['svc-jobs', 'default'],
      resource_limits: { max_cpu_cores: 16, max_gpus: 4 },
    });
    expect((await fetch(`${h.base}/healthz`)).status).toBe(200);
    expect((await fetch(`${h.base}/readyz`)).status).toBe(200);
  });

  test('/api/v1/health: 200 while the orchestrator answers, 503 when it does not', async () => {
    const up = await fetch(`${h.base}/api/v1/health`);
    expect([up.status, ((await jsonOf(up)) as { kubernetes_api: string }).kubernetes_api]).toEqual([
      200,
      'ok',
    ]);
    await h.sim.close();
    const down = await fetch(`${h.base}/api/v1/health`);
    expect([down.status, ((await jsonOf(down)) as { status: string }).status]).toEqual([503, 'unhealthy']);
  });

  test('policy report: three layers; a layer the orchestrator cannot supply is unavailable and the report still succeeds', async () => {
    h.sim.put({
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'limits', namespace: 'svc-jobs' },
      spec: {
        limits: [
          { type: 'Container', max: { cpu: '4', memory: '8Gi' }, default: { cpu: '500m', memory: '512Mi' } },
        ],
      },
    });
    const full = await h.call('GET', '/api/v1/policy');
    expect(full.status).toBe(200);
    expect(Object.keys(full.body).sort()).toEqual(['cluster_enforcement', 'policy']);
    expect(full.body.cluster_enforcement.limit_ranges.status).toBe('ok');
    expect(full.body.cluster_enforcement.resource_quotas.status).toBe('ok');
    expect(JSON.stringify(full.body.cluster_enforcement.limit_ranges)).toContain('8Gi');

    h.sim.setUnavailable('limitranges', 403);
    const partial = await h.call('GET', '/api/v1/policy');
    expect(partial.status).toBe(200);
    expect(partial.body.cluster_enforcement.limit_ranges.status).toBe('unavailable');
    expect(partial.body.cluster_enforcement.resource_quotas.status).toBe('ok');
  });

  test('the policy report shows the effective registry allowlist strictly larger than the configured one', async () => {
    const policy = (await h.call('GET', '/api/v1/policy')).body.policy;
    const text = JSON.stringify(policy);
    expect(text).toContain('public.ecr.aws');
    expect(text).toContain('123456789012.dkr.ecr.us-east-1.amazonaws.com');
  });

  test('OpenAPI 3.1 document lists every part-1 operation id of the seed', async () => {
    const doc = (await h.call('GET', '/openapi.json')).body;
    expect(doc.info.version).toBe('2.0.0');
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap(
      (ops) => Object.values(ops).map((o) => o.operationId),
    );
    // The Kubernetes-facing half (part 2 adds templates, queue, webhooks, cost).
    expect([...ids].sort()).toEqual([...MANIFEST_PROCESSOR_KUBERNETES].sort());
  });
});
