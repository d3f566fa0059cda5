/**
 * The per-region inference reconciler against dynalite and the Kubernetes API simulator: records become
 * labelled Deployments, Services and PodDisruptionBudgets in gco-inference, every lifecycle change shows
 * up in the objects and in `regions.<region>`, and a delete leaves no object and then no record.
 */
import type { InferenceReconcilerService } from '../../../cluster/manifest-processor/src/inference-reconciler/index.js';
import {
  ENDPOINT_LABELS,
  INFERENCE_NAMESPACE,
  type EndpointRecord,
} from '../../../contracts/inference-endpoints.js';
import type { KubeObject } from '../../../local/kube-api-simulator/index.js';
import {
  endpointObjectName,
  EndpointTable,
  OTHER_REGION,
  REGION,
  startCluster,
  startLocalDynamo,
  type LocalDynamo,
  type RegionCluster,
} from './harness.js';

type Json = Record<string, unknown>;
const labels = (o: KubeObject | undefined) => (o?.metadata.labels ?? {}) as Record<string, string>;
const spec = (o: KubeObject | undefined) => (o?.spec ?? {}) as Json;
const template = (d: KubeObject | undefined) =>
  (spec(d).template ?? {}) as { metadata: { labels: Record<string, string> }; spec: { containers: Json[] } };

describe('inference reconciler: one region', () => {
  let dynamo: LocalDynamo;
  let cluster: RegionCluster;
  let table: EndpointTable;
  let rec: InferenceReconcilerService;

  beforeEach(async () => {
    dynamo = await startLocalDynamo();
    cluster = await startCluster(REGION, dynamo);
    table = new EndpointTable(dynamo);
    rec = cluster.newReconciler('replica-a');
  });

  afterEach(async () => {
    await cluster.close();
    await dynamo.close();
  });

  const object = (kind: 'Deployment' | 'Service' | 'PodDisruptionBudget', name: string) =>
    cluster.objects(kind).find((o) => o.metadata.name === name);

  /** Runs passes until this region's status satisfies `done` (the record is re-read after each). */
  async function reconcileUntil(
    name: string,
    done: (r: EndpointRecord | undefined) => boolean,
    what: string,
  ): Promise<EndpointRecord | undefined> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      await rec.reconciler.pass();
      const record = await table.get(name);
      if (done(record)) return record;
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}: ${JSON.stringify(record?.regions)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  const stateIs = (state: string, generation: number) => (r: EndpointRecord | undefined) =>
    r?.regions[REGION]?.state === state && r.regions[REGION]?.observed_generation === generation;

  it('creates labelled objects for a record of this region; pending, then running once replicas are ready', async () => {
    // A Deployment controller slow enough that the first pass sees no ready replica.
    await cluster.close();
    cluster = await startCluster(REGION, dynamo, 1_000);
    rec = cluster.newReconciler('replica-a');
    await table.create('tiny');
    const first = await rec.reconciler.pass();
    expect(first).toMatchObject({ leader: true, applied: 2 });
    const name = endpointObjectName('tiny', 'primary');
    const deployment = object('Deployment', name);
    const service = object('Service', name);
    const expected = {
      [ENDPOINT_LABELS.managedBy]: ENDPOINT_LABELS.managedByValue,
      [ENDPOINT_LABELS.endpoint]: 'tiny',
      [ENDPOINT_LABELS.role]: 'primary',
      [ENDPOINT_LABELS.generation]: '1',
    };
    expect(labels(deployment)).toMatchObject(expected);
    expect(labels(service)).toMatchObject(expected);
    expect(template(deployment).metadata.labels).toMatchObject(expected);
    // One replica: no PodDisruptionBudget (minAvailable 1 would block every node drain).
    expect(cluster.objects('PodDisruptionBudget')).toHaveLength(0);
    const [model, sidecar] = template(deployment).spec.containers;
    expect(model).toMatchObject({
      name: 'model',
      image: 'registry.example/models/tiny:1',
      ports: [{ containerPort: 8080 }],
      env: [{ name: 'MODEL_NAME', value: 'tiny' }],
      readinessProbe: { httpGet: { path: '/healthz', port: 8080 } },
      resources: { requests: { cpu: '250m', memory: '256Mi' } },
    });
    expect(sidecar).toMatchObject({ name: 'tls-sidecar', ports: [{ containerPort: 8443 }] });
    expect(spec(service)).toMatchObject({
      selector: { [ENDPOINT_LABELS.endpoint]: 'tiny', [ENDPOINT_LABELS.role]: 'primary' },
      ports: [{ port: 8443, targetPort: 8443 }],
    });
    // Server-side apply, as the reconciler's field manager, strict, forcing conflicts.
    const applies = cluster.requests.filter((r) => r.method === 'PATCH');
    expect(applies).toHaveLength(2);
    for (const request of applies) {
      expect(request.contentType).toBe('application/apply-patch+yaml');
      const query = new URL(request.path, 'http://x').searchParams;
      expect(query.get('fieldManager')).toBe('gco-inference-reconciler');
      expect(query.get('fieldValidation')).toBe('Strict');
      expect(query.get('force')).toBe('true');
    }

    const pending = await table.get('tiny');
    expect(pending?.regions[REGION]).toMatchObject({
      state: 'pending',
      observed_generation: 1,
      ready_replicas: 0,
    });
    const running = await reconcileUntil('tiny', stateIs('running', 1), 'running');
    expect(running?.regions[REGION]).toMatchObject({ ready_replicas: 1 });
    // Nothing left to apply: the next pass only observes.
    expect(await rec.reconciler.pass()).toMatchObject({ applied: 0, deleted: 0, statusWrites: 0 });
  });

  it('scale adds and removes the PodDisruptionBudget without rolling the pods', async () => {
    await table.create('scaly');
    await reconcileUntil('scaly', stateIs('running', 1), 'running');
    const name = endpointObjectName('scaly', 'primary');
    const generation = await table.update('scaly', () => ({ replicas: 3 }));
    await reconcileUntil('scaly', stateIs('running', generation), 'scaled to 3');
    expect(spec(object('Deployment', name)).replicas).toBe(3);
    expect(spec(object('PodDisruptionBudget', name))).toMatchObject({
      minAvailable: 1,
      selector: { matchLabels: { [ENDPOINT_LABELS.endpoint]: 'scaly', [ENDPOINT_LABELS.role]: 'primary' } },
    });
    expect((await table.get('scaly'))?.regions[REGION]?.ready_replicas).toBe(3);
    // The object moved to generation 2, its pod template did not (a scale must not restart pods).
    expect(labels(object('Deployment', name))[ENDPOINT_LABELS.generation]).toBe('2');
    expect(template(object('Deployment', name)).metadata.labels[ENDPOINT_LABELS.generation]).toBe('1');

    const down = await table.update('scaly', () => ({ replicas: 1 }));
    await reconcileUntil('scaly', stateIs('running', down), 'scaled to 1');
    expect(object('PodDisruptionBudget', name)).toBeUndefined();
  });

  it('update-image rolls the pod template; canary adds a second role; promote removes it', async () => {
    await table.create('roll');
    await reconcileUntil('roll', stateIs('running', 1), 'running');
    const primary = endpointObjectName('roll', 'primary');
    const canary = endpointObjectName('roll', 'canary');

    const g2 = await table.update('roll', () => ({ image: 'registry.example/models/tiny:2' }));
    await reconcileUntil('roll', stateIs('running', g2), 'new image running');
    expect(template(object('Deployment', primary)).spec.containers[0]?.image).toBe(
      'registry.example/models/tiny:2',
    );
    expect(template(object('Deployment', primary)).metadata.labels[ENDPOINT_LABELS.generation]).toBe(
      String(g2),
    );

    const g3 = await table.update('roll', () => ({
      replicas: 4,
      canary: { image: 'registry.example/models/tiny:3', weight: 20 },
    }));
    const withCanary = await reconcileUntil(
      'roll',
      (r) => stateIs('running', g3)(r) && r?.regions[REGION]?.canary_ready_replicas === 1,
      'canary running',
    );
    expect(withCanary?.regions[REGION]).toMatchObject({ ready_replicas: 4, canary_ready_replicas: 1 });
    expect(template(object('Deployment', canary)).spec.containers[0]?.image).toBe(
      'registry.example/models/tiny:3',
    );
    expect(labels(object('Service', canary))[ENDPOINT_LABELS.role]).toBe('canary');
    // The primary's selector never matches canary pods.
    expect(spec(object('Service', primary)).selector).toEqual({
      [ENDPOINT_LABELS.endpoint]: 'roll',
      [ENDPOINT_LABELS.role]: 'primary',
    });

    const g4 = await table.update('roll', (s) => ({
      image: s.canary?.image ?? '',
      previous_image: s.image,
      canary: null,
    }));
    const promoted = await reconcileUntil('roll', stateIs('running', g4), 'promoted');
    expect(promoted?.regions[REGION]?.canary_ready_replicas).toBeUndefined();
    expect(object('Deployment', canary)).toBeUndefined();
    expect(object('Service', canary)).toBeUndefined();
    expect(template(object('Deployment', primary)).spec.containers[0]?.image).toBe(
      'registry.example/models/tiny:3',
    );
  });

  it('stop scales to zero and reports stopped; start brings it back to running', async () => {
    await table.create('sleepy', { replicas: 2 });
    await reconcileUntil('sleepy', stateIs('running', 1), 'running');
    const name = endpointObjectName('sleepy', 'primary');
    const stopped = await table.update('sleepy', () => ({ stopped: true }));
    const record = await reconcileUntil('sleepy', stateIs('stopped', stopped), 'stopped');
    expect(record?.regions[REGION]?.ready_replicas).toBe(0);
    expect(spec(object('Deployment', name)).replicas).toBe(0);
    expect(object('PodDisruptionBudget', name)).toBeUndefined();
    // The Service stays: the record and its routing survive a stop.
    expect(object('Service', name)).toBeDefined();

    const started = await table.update('sleepy', () => ({ stopped: false }));
    await reconcileUntil('sleepy', stateIs('running', started), 'running again');
    expect(spec(object('Deployment', name)).replicas).toBe(2);
  });

  it('a record for another region creates nothing here and gets no status from this region', async () => {
    await table.create('elsewhere', { regions: [OTHER_REGION] });
    for (let i = 0; i < 3; i++) await rec.reconciler.pass();
    expect(cluster.objects('Deployment')).toHaveLength(0);
    expect(cluster.objects('Service')).toHaveLength(0);
    expect((await table.get('elsewhere'))?.regions).toEqual({});
    expect(cluster.applies()).toEqual([]);
  });

  it("a record moved away from this region: its objects and this region's status go", async () => {
    await table.create('mover', { regions: [REGION, OTHER_REGION] });
    await reconcileUntil('mover', stateIs('running', 1), 'running');
    await table.update('mover', () => ({ regions: [OTHER_REGION] }));
    await reconcileUntil(
      'mover',
      (r) => r !== undefined && r.regions[REGION] === undefined,
      'status removed',
    );
    expect(cluster.objects('Deployment')).toHaveLength(0);
    expect(cluster.objects('Service')).toHaveLength(0);
  });

  it('delete removes every object, reports deleted and removes the record', async () => {
    await table.create('gone', {
      replicas: 2,
      canary: { image: 'registry.example/models/tiny:9', weight: 50 },
    });
    await reconcileUntil('gone', stateIs('running', 1), 'running');
    expect(cluster.objects('Deployment')).toHaveLength(2);
    expect(cluster.objects('PodDisruptionBudget')).toHaveLength(1);
    await table.markDeleting('gone');
    await reconcileUntil('gone', (r) => r === undefined, 'record removed');
    for (const kind of ['Deployment', 'Service', 'PodDisruptionBudget', 'Pod'] as const) {
      expect(cluster.objects(kind).filter((o) => labels(o)[ENDPOINT_LABELS.endpoint] === 'gone')).toEqual([]);
    }
  });

  it('an orphan whose record is gone is removed; objects it does not manage are left alone', async () => {
    await table.create('orphan');
    await reconcileUntil('orphan', stateIs('running', 1), 'running');
    await table.remove('orphan'); // the record vanished without a delete
    cluster.sim.put({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'hand-made',
        namespace: INFERENCE_NAMESPACE,
        labels: { [ENDPOINT_LABELS.endpoint]: 'orphan' },
      },
      spec: { ports: [{ port: 80 }] },
    });
    const report = await rec.reconciler.pass();
    expect(report.deleted).toBe(2);
    expect(cluster.objects('Deployment')).toHaveLength(0);
    expect(cluster.objects('Service').map((s) => s.metadata.name)).toEqual(['hand-made']);
    // Nothing resurrects the record.
    expect(await table.get('orphan')).toBeUndefined();
  });

  it('an apply the API server refuses → failed with its reason, not retried; a fix recovers', async () => {
    await table.create('broken', { resources: { cpu: 'lots', memory: '256Mi' } });
    const failed = await reconcileUntil('broken', stateIs('failed', 1), 'failed');
    const reason = failed?.regions[REGION]?.reason ?? '';
    expect(reason).toMatch(/^Invalid: /);
    expect(reason).toContain('cpu');
    expect(reason.length).toBeLessThanOrEqual(300);
    const before = cluster.applies().length;
    await rec.reconciler.pass();
    expect(cluster.applies().length).toBe(before);

    const fixed = await table.update('broken', () => ({ resources: { cpu: '250m', memory: '256Mi' } }));
    const recovered = await reconcileUntil('broken', stateIs('running', fixed), 'running after fix');
    expect(recovered?.regions[REGION]?.reason).toBeUndefined();
  });

  it('a crash-looping model container before the rollout completes → degraded, naming the container', async () => {
    // A Deployment controller that never reports this rollout ready within the test…
    await cluster.close();
    cluster = await startCluster(REGION, dynamo, 60_000);
    rec = cluster.newReconciler('replica-a');
    await table.create('crashy');
    await reconcileUntil('crashy', stateIs('pending', 1), 'pending');
    // …and one of its pods, whose model container the simulated kubelet runs, exits 1 and backs off.
    cluster.sim.put({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'ep-crashy-abc12',
        namespace: INFERENCE_NAMESPACE,
        labels: {
          [ENDPOINT_LABELS.managedBy]: ENDPOINT_LABELS.managedByValue,
          [ENDPOINT_LABELS.endpoint]: 'crashy',
          [ENDPOINT_LABELS.role]: 'primary',
          [ENDPOINT_LABELS.generation]: '1',
        },
        annotations: {
          'sim.gco.dev/pending-ms': '10',
          'sim.gco.dev/running-ms': '10',
          'sim.gco.dev/exit-code': '1',
        },
      },
      spec: {
        restartPolicy: 'Always',
        containers: [{ name: 'model', image: 'registry.example/models/tiny:1' }],
      },
    });
    const degraded = await reconcileUntil('crashy', stateIs('degraded', 1), 'degraded');
    expect(degraded?.regions[REGION]?.reason).toMatch(
      /^container model of pod ep-crashy-abc12 is crash-looping/,
    );
  });

  it('skips a malformed record and still reconciles the others', async () => {
    await table.create('fine');
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { documentClient } = await import('../../../cluster/shared/dynamo.js');
    await documentClient(dynamo.client()).send(
      new PutCommand({
        TableName: table.tableName,
        Item: { endpoint_name: 'junk', spec: 'not a spec', generation: 'x' },
      }),
    );
    await reconcileUntil('fine', stateIs('running', 1), 'running');
    expect(cluster.objects('Deployment')).toHaveLength(1);
  });

  it('a record stored without a regions map gets one with this region', async () => {
    const created = await table.create('bare');
    const { regions: _dropped, ...withoutRegions } = created;
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { documentClient } = await import('../../../cluster/shared/dynamo.js');
    await documentClient(dynamo.client()).send(
      new PutCommand({ TableName: table.tableName, Item: withoutRegions }),
    );
    const record = await reconcileUntil('bare', stateIs('running', 1), 'running');
    expect(Object.keys(record?.regions ?? {})).toEqual([REGION]);
  });
});
