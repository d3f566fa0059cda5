// Immutable fields in the Kubernetes API simulator, driven through @kubernetes/client-node and plain
// HTTP: each update a Kubernetes 1.34 API server refuses is refused here with its 422 Invalid Status
// (field paths and messages of pkg/apis/*/validation), and the updates it allows still go through.

import type { KubeConfig, V1Job, V1Pod } from '@kubernetes/client-node';
import {
  ApiException,
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';

import type { KubeApiSimulator } from '../../local/kube-api-simulator/index.js';
import { kubeConfigFor, startKubeApiSimulator } from '../../local/kube-api-simulator/index.js';
import { at } from '../support/json.js';
import { waitUntil } from '../support/wait-for.js';

const NS = 'immutable-fields';

let sim: KubeApiSimulator;
let kc: KubeConfig;
let core: CoreV1Api;
let batch: BatchV1Api;
let apps: AppsV1Api;

beforeAll(async () => {
  sim = await startKubeApiSimulator({ kubelet: { pendingMs: 50, runningMs: 100 } });
  kc = kubeConfigFor(sim.url);
  core = kc.makeApiClient(CoreV1Api);
  batch = kc.makeApiClient(BatchV1Api);
  apps = kc.makeApiClient(AppsV1Api);
  await core.createNamespace({ body: { metadata: { name: NS } } });
});

afterAll(async () => {
  await sim.close();
});

// ---- helpers ----

interface Cause {
  reason: string;
  message: string;
  field: string;
}

interface Refusal {
  code: number;
  message: string;
  causes: Cause[];
  status: unknown;
}

/** Awaits a call that must fail with a Kubernetes Status and returns it. */
async function refusal(p: Promise<unknown>): Promise<Refusal> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof ApiException)) throw err;
    const body: unknown = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
    const causes = at(body, 'details.causes');
    return {
      code: err.code,
      message: String(at(body, 'message')),
      causes: Array.isArray(causes) ? (causes as Cause[]) : [],
      status: body,
    };
  }
  throw new Error('expected the update to be refused');
}

/** A refusal as a real API server shapes it: 422, reason Invalid, details naming the object. */
function expectInvalid(r: Refusal, kind: string, group: string, name: string): void {
  expect(r.code).toBe(422);
  expect(r.status).toMatchObject({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    reason: 'Invalid',
    code: 422,
    details: { name, kind, ...(group ? { group } : {}) },
  });
  expect(r.message.startsWith(`${group ? `${kind}.${group}` : kind} "${name}" is invalid: `)).toBe(true);
}

function fields(r: Refusal): string[] {
  return r.causes.map((c) => c.field);
}

async function raw(path: string, init: RequestInit): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${sim.url}${path}`, init);
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

function job(name: string, spec: Partial<NonNullable<V1Job['spec']>> = {}, command = 'exit 0'): V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: NS },
    spec: {
      backoffLimit: 0,
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', command] }],
        },
      },
      ...spec,
    },
  };
}

async function createJob(body: V1Job): Promise<V1Job> {
  return batch.createNamespacedJob({ namespace: NS, body });
}

async function readJob(name: string): Promise<V1Job> {
  return batch.readNamespacedJob({ name, namespace: NS });
}

async function patchJob(name: string, body: object, dryRun?: string): Promise<V1Job> {
  return batch.patchNamespacedJob({ name, namespace: NS, body, dryRun }, mergePatch);
}

// ---- batch/v1 Job ----

describe('Job', () => {
  test('a changed spec.template is refused on PUT with the real message and cause', async () => {
    const created = await createJob(job('tmpl-put', {}, 'echo one'));
    const changed = structuredClone(created);
    // Unconditional update: the job controller may have bumped resourceVersion since the create.
    delete changed.metadata?.resourceVersion;
    const ct = changed.spec?.template.spec?.containers[0];
    if (!ct) throw new Error('no container');
    ct.command = ['sh', '-c', 'echo two'];
    const r = await refusal(batch.replaceNamespacedJob({ name: 'tmpl-put', namespace: NS, body: changed }));
    expectInvalid(r, 'Job', 'batch', 'tmpl-put');
    expect(r.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.template', message: expect.any(String) as unknown },
    ]);
    expect(r.causes[0]?.message).toMatch(/^Invalid value: \{.*"echo two".*\}: field is immutable$/s);
    expect(r.message).toMatch(
      /^Job\.batch "tmpl-put" is invalid: spec\.template: Invalid value: .*: field is immutable$/s,
    );
    const stored = await readJob('tmpl-put');
    expect(stored.spec?.template.spec?.containers[0]?.command).toEqual(['sh', '-c', 'echo one']);
  });

  test('selector, completionMode, completions, podFailurePolicy and backoffLimitPerIndex are immutable', async () => {
    await createJob(job('many', { completions: 2, parallelism: 1 }));
    const r = await refusal(
      patchJob('many', {
        spec: {
          completions: 3,
          selector: { matchLabels: { team: 'x' } },
          podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }] },
        },
      }),
    );
    expectInvalid(r, 'Job', 'batch', 'many');
    expect(fields(r)).toEqual(['spec.completions', 'spec.selector', 'spec.podFailurePolicy']);
    expect(r.causes[0]?.message).toBe('Invalid value: 3: field is immutable');
    expect(r.message).toMatch(
      /^Job\.batch "many" is invalid: \[spec\.completions: Invalid value: 3: field is immutable, /,
    );

    const mode = await refusal(patchJob('many', { spec: { completionMode: 'Indexed' } }));
    expect(mode.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.completionMode',
        message: 'Invalid value: "Indexed": field is immutable',
      },
    ]);

    await createJob(
      job('per-index', {
        completionMode: 'Indexed',
        completions: 2,
        parallelism: 2,
        backoffLimitPerIndex: 1,
      }),
    );
    const perIndex = await refusal(patchJob('per-index', { spec: { backoffLimitPerIndex: 2 } }));
    expect(perIndex.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.backoffLimitPerIndex',
        message: 'Invalid value: 2: field is immutable',
      },
    ]);
  });

  test('Indexed Jobs change completions only in tandem with parallelism', async () => {
    await createJob(
      job('elastic', { completionMode: 'Indexed', completions: 2, parallelism: 2, suspend: true }),
    );
    const scaled = await patchJob('elastic', { spec: { completions: 4, parallelism: 4 } });
    expect(scaled.spec?.completions).toBe(4);
    const r = await refusal(patchJob('elastic', { spec: { completions: 5 } }));
    expect(r.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.completions',
        message: 'Invalid value: 5: can only be modified in tandem with spec.parallelism',
      },
    ]);
  });

  test('parallelism, suspend, activeDeadlineSeconds and labels stay mutable', async () => {
    await createJob(job('mutable', { parallelism: 1, completions: 3 }));
    const updated = await patchJob('mutable', {
      metadata: { labels: { tier: 'batch' } },
      spec: { parallelism: 2, suspend: true, activeDeadlineSeconds: 600 },
    });
    expect(updated.spec).toMatchObject({ parallelism: 2, suspend: true, activeDeadlineSeconds: 600 });
    expect(updated.metadata?.labels?.tier).toBe('batch');
  });

  test('a suspended, never-started Job may change its scheduling directives, nothing else', async () => {
    await createJob(job('gated', { suspend: true }));
    const moved = await patchJob('gated', {
      spec: {
        template: {
          metadata: { labels: { zone: 'a' }, annotations: { note: 'x' } },
          spec: {
            nodeSelector: { 'topology.kubernetes.io/zone': 'us-east-1a' },
            tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }],
          },
        },
      },
    });
    expect(moved.spec?.template.spec?.nodeSelector).toEqual({ 'topology.kubernetes.io/zone': 'us-east-1a' });
    const r = await refusal(
      patchJob('gated', {
        spec: { template: { spec: { containers: [{ name: 'main', image: 'busybox:1.37' }] } } },
      }),
    );
    expect(fields(r)).toEqual(['spec.template']);

    // Once it has started (status.startTime set), the template is frozen again.
    await createJob(job('started', {}, 'sleep 1'));
    await waitUntil(
      () => readJob('started'),
      (j) => j.status?.startTime !== undefined,
      'job to start',
    );
    await patchJob('started', { spec: { suspend: true } });
    const frozen = await refusal(
      patchJob('started', { spec: { template: { spec: { nodeSelector: { pool: 'b' } } } } }),
    );
    expect(fields(frozen)).toEqual(['spec.template']);
  });

  test('dry-run updates are refused the same way and change nothing', async () => {
    await createJob(job('dry', {}, 'echo dry'));
    const r = await refusal(
      patchJob(
        'dry',
        { spec: { template: { spec: { containers: [{ name: 'main', command: ['true'] }] } } } },
        'All',
      ),
    );
    expectInvalid(r, 'Job', 'batch', 'dry');
    expect(fields(r)).toEqual(['spec.template']);
    expect((await readJob('dry')).spec?.template.spec?.containers[0]?.command).toEqual([
      'sh',
      '-c',
      'echo dry',
    ]);
  });

  test('server-side apply of a changed Job template is refused', async () => {
    const first = job('ssa', {}, 'echo first');
    const apply = (body: V1Job, query = ''): Promise<{ status: number; body: unknown }> =>
      raw(`/apis/batch/v1/namespaces/${NS}/jobs/ssa?fieldManager=test${query}`, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/apply-patch+yaml' },
        body: JSON.stringify(body),
      });
    expect((await apply(first)).status).toBe(201);
    expect((await apply(first)).status).toBe(200);
    for (const query of ['', '&dryRun=All']) {
      const r = await apply(job('ssa', {}, 'echo second'), query);
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ reason: 'Invalid', details: { causes: [{ field: 'spec.template' }] } });
      expect(String(at(r.body, 'message'))).toMatch(/field is immutable$/);
    }
  });

  test('the status subresource is not subject to the spec rules', async () => {
    const created = await createJob(job('status-only', { suspend: true }));
    const body = structuredClone(created);
    delete body.metadata?.resourceVersion;
    const ct = body.spec?.template.spec?.containers[0];
    if (ct) ct.image = 'busybox:9';
    body.status = { active: 0 };
    await batch.replaceNamespacedJobStatus({ name: 'status-only', namespace: NS, body });
    expect((await readJob('status-only')).spec?.template.spec?.containers[0]?.image).toBe('busybox:1.36');
  });
});

// ---- core/v1 Pod ----

describe('Pod', () => {
  const pod = (name: string): V1Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, annotations: { 'sim.gco.dev/running-ms': '600000' } },
    spec: {
      restartPolicy: 'Never',
      activeDeadlineSeconds: 300,
      containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '600'] }],
    },
  });
  const patchPod = (name: string, body: object): Promise<V1Pod> =>
    core.patchNamespacedPod(
      { name, namespace: NS, body },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );

  test('image, activeDeadlineSeconds (lower) and added tolerations may change', async () => {
    await core.createNamespacedPod({ namespace: NS, body: pod('p-ok') });
    const updated = await patchPod('p-ok', {
      spec: {
        activeDeadlineSeconds: 100,
        containers: [{ name: 'app', image: 'busybox:1.37' }],
        tolerations: [{ key: 'spot', operator: 'Exists', effect: 'NoSchedule' }],
      },
    });
    expect(updated.spec?.containers[0]?.image).toBe('busybox:1.37');
    expect(updated.spec?.activeDeadlineSeconds).toBe(100);
  });

  test('any other spec change is Forbidden with the updatable-fields message', async () => {
    await core.createNamespacedPod({ namespace: NS, body: pod('p-cmd') });
    const r = await refusal(
      patchPod('p-cmd', { spec: { containers: [{ name: 'app', command: ['sleep', '1'] }] } }),
    );
    expectInvalid(r, 'Pod', '', 'p-cmd');
    expect(r.causes).toHaveLength(1);
    expect(r.causes[0]).toMatchObject({ reason: 'FieldValueForbidden', field: 'spec' });
    expect(r.message).toContain(
      'Pod "p-cmd" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n',
    );
    expect(r.message).toMatch(
      /\n- spec\.containers\[0\]\.command\[1\]: "600"\n\+ spec\.containers\[0\]\.command\[1\]: "1"$/,
    );

    const added = await refusal(
      patchPod('p-cmd', { spec: { containers: [{ name: 'sidecar', image: 'busybox:1.36' }] } }),
    );
    expect(added.causes).toEqual([
      {
        reason: 'FieldValueForbidden',
        field: 'spec.containers',
        message: 'Forbidden: pod updates may not add or remove containers',
      },
    ]);

    const longer = await refusal(patchPod('p-cmd', { spec: { activeDeadlineSeconds: 900 } }));
    expect(longer.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.activeDeadlineSeconds',
        message: 'Invalid value: 900: must be less than or equal to previous value',
      },
    ]);
  });
});

// ---- apps/v1 ----

describe('apps/v1 workloads', () => {
  const template = (app: string): object => ({
    metadata: { labels: { app } },
    spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
  });

  test('Deployment: selector immutable; replicas and template mutable', async () => {
    await apps.createNamespacedDeployment({
      namespace: NS,
      body: {
        metadata: { name: 'web' },
        spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: template('web') },
      },
    });
    const ok = await apps.patchNamespacedDeployment(
      {
        name: 'web',
        namespace: NS,
        body: {
          spec: { replicas: 3, template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(ok.spec?.replicas).toBe(3);
    const r = await refusal(
      apps.patchNamespacedDeployment(
        {
          name: 'web',
          namespace: NS,
          body: { spec: { selector: { matchLabels: { app: 'web2' } }, template: template('web2') } },
        },
        mergePatch,
      ),
    );
    expectInvalid(r, 'Deployment', 'apps', 'web');
    expect(r.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.selector',
        message: 'Invalid value: {"matchLabels":{"app":"web2"}}: field is immutable',
      },
    ]);
  });

  test('ReplicaSet and DaemonSet: selector immutable', async () => {
    await apps.createNamespacedReplicaSet({
      namespace: NS,
      body: {
        metadata: { name: 'rs' },
        spec: { replicas: 0, selector: { matchLabels: { app: 'rs' } }, template: template('rs') },
      },
    });
    const rs = await refusal(
      apps.patchNamespacedReplicaSet(
        { name: 'rs', namespace: NS, body: { spec: { selector: { matchLabels: { app: 'rs', v: '2' } } } } },
        mergePatch,
      ),
    );
    expect(fields(rs)).toEqual(['spec.selector']);
    await apps.createNamespacedDaemonSet({
      namespace: NS,
      body: {
        metadata: { name: 'ds' },
        spec: { selector: { matchLabels: { app: 'ds' } }, template: template('ds') },
      },
    });
    const ds = await refusal(
      apps.patchNamespacedDaemonSet(
        { name: 'ds', namespace: NS, body: { spec: { selector: { matchLabels: { app: 'other' } } } } },
        mergePatch,
      ),
    );
    expectInvalid(ds, 'DaemonSet', 'apps', 'ds');
    expect(fields(ds)).toEqual(['spec.selector']);
  });

  test('StatefulSet: only replicas, ordinals, template, updateStrategy, ... may change', async () => {
    await apps.createNamespacedStatefulSet({
      namespace: NS,
      body: {
        metadata: { name: 'db' },
        spec: {
          serviceName: 'db',
          replicas: 1,
          selector: { matchLabels: { app: 'db' } },
          template: template('db'),
          volumeClaimTemplates: [
            {
              metadata: { name: 'data' },
              spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
            },
          ],
        },
      },
    });
    const ok = await apps.patchNamespacedStatefulSet(
      {
        name: 'db',
        namespace: NS,
        body: { spec: { replicas: 2, minReadySeconds: 5, revisionHistoryLimit: 3 } },
      },
      mergePatch,
    );
    expect(ok.spec?.replicas).toBe(2);
    // Echoing a server default (podManagementPolicy, claim volumeMode) is no change.
    const echoed = await apps.patchNamespacedStatefulSet(
      { name: 'db', namespace: NS, body: { spec: { podManagementPolicy: 'OrderedReady' } } },
      mergePatch,
    );
    expect(echoed.spec?.podManagementPolicy).toBe('OrderedReady');
    const r = await refusal(
      apps.patchNamespacedStatefulSet(
        {
          name: 'db',
          namespace: NS,
          body: {
            spec: {
              volumeClaimTemplates: [
                {
                  metadata: { name: 'data' },
                  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } },
                },
              ],
            },
          },
        },
        mergePatch,
      ),
    );
    expectInvalid(r, 'StatefulSet', 'apps', 'db');
    expect(r.message).toBe(
      "StatefulSet.apps \"db\" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    );
    const sel = await refusal(
      apps.patchNamespacedStatefulSet(
        { name: 'db', namespace: NS, body: { spec: { serviceName: 'other' } } },
        mergePatch,
      ),
    );
    expect(fields(sel)).toEqual(['spec']);
  });
});

// ---- core/v1 Service, PersistentVolumeClaim, ConfigMap, Secret ----

describe('core/v1', () => {
  test('Service: clusterIP may not change once set; other fields may', async () => {
    const svc = await core.createNamespacedService({
      namespace: NS,
      body: { metadata: { name: 'api' }, spec: { selector: { app: 'api' }, ports: [{ port: 80 }] } },
    });
    const ip = svc.spec?.clusterIP ?? '';
    expect(ip).not.toBe('');
    const relabelled = await core.patchNamespacedService(
      {
        name: 'api',
        namespace: NS,
        body: { metadata: { labels: { tier: 'front' } }, spec: { ports: [{ port: 8080 }] } },
      },
      mergePatch,
    );
    expect(relabelled.spec?.clusterIP).toBe(ip);
    const r = await refusal(
      core.patchNamespacedService(
        {
          name: 'api',
          namespace: NS,
          body: { spec: { clusterIP: '10.100.200.200', clusterIPs: ['10.100.200.200'] } },
        },
        mergePatch,
      ),
    );
    expectInvalid(r, 'Service', '', 'api');
    expect(r.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.clusterIPs[0]',
        message: 'Invalid value: []string{"10.100.200.200"}: may not change once set',
      },
    ]);
  });

  test('PersistentVolumeClaim: spec frozen, except storage requests (grow) of a bound claim', async () => {
    await core.createNamespacedPersistentVolumeClaim({
      namespace: NS,
      body: {
        metadata: { name: 'data' },
        spec: {
          accessModes: ['ReadWriteOnce'],
          storageClassName: 'gp3',
          resources: { requests: { storage: '1Gi' } },
        },
      },
    });
    const grow = { spec: { resources: { requests: { storage: '2Gi' } } } };
    // The defaulted volumeMode echoed back is no change, even for a pending claim.
    const echoed = await core.patchNamespacedPersistentVolumeClaim(
      { name: 'data', namespace: NS, body: { spec: { volumeMode: 'Filesystem' } } },
      mergePatch,
    );
    expect(echoed.spec?.volumeMode).toBe('Filesystem');
    // Pending claim: even requests are frozen.
    const pending = await refusal(
      core.patchNamespacedPersistentVolumeClaim({ name: 'data', namespace: NS, body: grow }, mergePatch),
    );
    expectInvalid(pending, 'PersistentVolumeClaim', '', 'data');
    expect(pending.causes[0]).toMatchObject({ reason: 'FieldValueForbidden', field: 'spec' });
    expect(pending.message).toContain(
      'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n',
    );

    await core.patchNamespacedPersistentVolumeClaimStatus(
      { name: 'data', namespace: NS, body: { status: { phase: 'Bound', capacity: { storage: '1Gi' } } } },
      mergePatch,
    );
    const grown = await core.patchNamespacedPersistentVolumeClaim(
      { name: 'data', namespace: NS, body: grow },
      mergePatch,
    );
    expect(grown.spec?.resources?.requests?.storage).toBe('2Gi');

    const shrink = await refusal(
      core.patchNamespacedPersistentVolumeClaim(
        { name: 'data', namespace: NS, body: { spec: { resources: { requests: { storage: '512Mi' } } } } },
        mergePatch,
      ),
    );
    expect(shrink.causes).toEqual([
      {
        reason: 'FieldValueForbidden',
        field: 'spec.resources.requests.storage',
        message: 'Forbidden: field can not be less than status.capacity',
      },
    ]);
    const sc = await refusal(
      core.patchNamespacedPersistentVolumeClaim(
        { name: 'data', namespace: NS, body: { spec: { storageClassName: 'io2' } } },
        mergePatch,
      ),
    );
    expect(fields(sc)).toEqual(['spec']);
    expect(sc.message).toContain('+ spec.storageClassName: "io2"');
  });

  test('ConfigMap with immutable: true: data and immutable frozen, metadata not', async () => {
    await core.createNamespacedConfigMap({
      namespace: NS,
      body: { metadata: { name: 'frozen' }, data: { a: '1' }, immutable: true },
    });
    const labelled = await core.patchNamespacedConfigMap(
      { name: 'frozen', namespace: NS, body: { metadata: { labels: { x: 'y' } } } },
      mergePatch,
    );
    expect(labelled.metadata?.labels?.x).toBe('y');
    const r = await refusal(
      core.patchNamespacedConfigMap(
        { name: 'frozen', namespace: NS, body: { data: { a: '2' }, immutable: false } },
        mergePatch,
      ),
    );
    expectInvalid(r, 'ConfigMap', '', 'frozen');
    expect(r.causes).toEqual([
      {
        reason: 'FieldValueForbidden',
        field: 'immutable',
        message: 'Forbidden: field is immutable when `immutable` is set',
      },
      {
        reason: 'FieldValueForbidden',
        field: 'data',
        message: 'Forbidden: field is immutable when `immutable` is set',
      },
    ]);
    // A mutable ConfigMap still takes data changes.
    await core.createNamespacedConfigMap({
      namespace: NS,
      body: { metadata: { name: 'free' }, data: { a: '1' } },
    });
    const changed = await core.patchNamespacedConfigMap(
      { name: 'free', namespace: NS, body: { data: { a: '2' } } },
      mergePatch,
    );
    expect(changed.data).toEqual({ a: '2' });
  });

  test('Secret: type immutable; data frozen when immutable (stringData counts as data)', async () => {
    await core.createNamespacedSecret({
      namespace: NS,
      body: { metadata: { name: 'sealed' }, stringData: { token: 'abc' }, immutable: true },
    });
    const same = await core.replaceNamespacedSecret({
      name: 'sealed',
      namespace: NS,
      body: {
        metadata: { name: 'sealed', labels: { k: 'v' } },
        stringData: { token: 'abc' },
        immutable: true,
      },
    });
    expect(same.metadata?.labels?.k).toBe('v');
    const r = await refusal(
      core.patchNamespacedSecret(
        { name: 'sealed', namespace: NS, body: { stringData: { token: 'xyz' } } },
        mergePatch,
      ),
    );
    expect(r.causes).toEqual([
      {
        reason: 'FieldValueForbidden',
        field: 'data',
        message: 'Forbidden: field is immutable when `immutable` is set',
      },
    ]);
    const t = await refusal(
      core.patchNamespacedSecret(
        { name: 'sealed', namespace: NS, body: { type: 'kubernetes.io/tls' } },
        mergePatch,
      ),
    );
    expect(t.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'type',
        message: 'Invalid value: "kubernetes.io/tls": field is immutable',
      },
    ]);
  });
});
