// The Kubernetes API simulator driven only through @kubernetes/client-node (plus plain fetch where the
// client has no call), the way the platform's services use it.

import { Writable } from 'node:stream';

import type { KubeConfig, V1Job, V1Pod } from '@kubernetes/client-node';
import {
  ApiException,
  BatchV1Api,
  CoreV1Api,
  KubernetesObjectApi,
  Log,
  Metrics,
  PatchStrategy,
  setHeaderOptions,
} from '@kubernetes/client-node';

import type { KubeApiSimulator, KubeObject } from '../../local/kube-api-simulator/index.js';
import { at } from '../support/json.js';
import { waitUntil } from '../support/wait-for.js';
import {
  CPU_NODE,
  GPU_NODE,
  kubeConfigFor,
  startKubeApiSimulator,
} from '../../local/kube-api-simulator/index.js';

const NS = 'svc-jobs';

let sim: KubeApiSimulator;
let kc: KubeConfig;
let core: CoreV1Api;
let batch: BatchV1Api;
let objects: KubernetesObjectApi;

beforeAll(async () => {
  sim = await startKubeApiSimulator({ kubelet: { pendingMs: 50, runningMs: 100 } });
  kc = kubeConfigFor(sim.url);
  core = kc.makeApiClient(CoreV1Api);
  batch = kc.makeApiClient(BatchV1Api);
  objects = KubernetesObjectApi.makeApiClient(kc);
});

afterAll(async () => {
  await sim.close();
});

// ---- helpers ----

/** The `name` of every element of the array at `path`. */
function namesAt(v: unknown, path: string): unknown[] {
  const list = at(v, path);
  return Array.isArray(list) ? list.map((x) => at(x, 'name')) : [];
}

/** Awaits a rejected client-node call and returns the parsed Kubernetes Status body. */
async function statusOf(p: Promise<unknown>): Promise<{ code: number; status: unknown }> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof ApiException)) throw err;
    const body: unknown = typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
    return { code: err.code, status: body };
  }
  throw new Error('expected the call to fail');
}

function expectStatusShape(status: unknown, code: number, reason: string): void {
  expect(status).toMatchObject({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    reason,
    code,
  });
  expect(typeof at(status, 'message')).toBe('string');
}

async function raw(
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(`${sim.url}${path}`, init);
  const text = await res.text();
  let body: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json')) body = JSON.parse(text);
  return { status: res.status, body, headers: res.headers };
}

function jobSpec(
  name: string,
  opts: {
    command?: string;
    backoffLimit?: number;
    annotations?: Record<string, string>;
    parallelism?: number;
    completions?: number;
    cpu?: string;
    gpu?: string;
  } = {},
): V1Job {
  const requests: Record<string, string> = { cpu: opts.cpu ?? '250m', memory: '64Mi' };
  const limits: Record<string, string> = {};
  if (opts.gpu) {
    requests['nvidia.com/gpu'] = opts.gpu;
    limits['nvidia.com/gpu'] = opts.gpu;
  }
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: NS, labels: { app: 'sim-test' } },
    spec: {
      backoffLimit: opts.backoffLimit ?? 6,
      parallelism: opts.parallelism,
      completions: opts.completions,
      template: {
        metadata: { annotations: opts.annotations },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'main',
              image: 'busybox:1.36',
              command: ['sh', '-c', opts.command ?? 'echo working on it; exit 0'],
              resources: { requests, limits },
            },
          ],
        },
      },
    },
  };
}

async function jobPods(name: string): Promise<V1Pod[]> {
  const list = await core.listNamespacedPod({
    namespace: NS,
    labelSelector: `batch.kubernetes.io/job-name=${name}`,
  });
  return list.items;
}

function condition(job: V1Job, type: string): { status?: string; reason?: string } | undefined {
  return job.status?.conditions?.find((c) => c.type === type);
}

// ---- discovery ----

describe('discovery', () => {
  test('version, core and group discovery documents', async () => {
    const version = await raw('/version');
    expect(version.body).toMatchObject({ major: '1', gitVersion: expect.stringMatching(/^v1\./) });

    const api = await raw('/api');
    expect(api.body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });

    const v1 = await core.getAPIResources();
    const pods = v1.resources.find((r) => r.name === 'pods');
    expect(pods).toMatchObject({ kind: 'Pod', namespaced: true, shortNames: ['po'] });
    expect(pods?.verbs).toEqual(
      expect.arrayContaining(['create', 'get', 'list', 'delete', 'patch', 'update']),
    );
    for (const name of [
      'namespaces',
      'nodes',
      'pods/log',
      'services',
      'configmaps',
      'secrets',
      'serviceaccounts',
      'events',
      'limitranges',
      'resourcequotas',
      'persistentvolumeclaims',
    ]) {
      expect(v1.resources.map((r) => r.name)).toContain(name);
    }
    expect(v1.resources.find((r) => r.name === 'nodes')?.namespaced).toBe(false);

    const groups = await raw('/apis');
    expect(namesAt(groups.body, 'groups')).toEqual(
      expect.arrayContaining([
        'batch',
        'apps',
        'networking.k8s.io',
        'rbac.authorization.k8s.io',
        'policy',
        'metrics.k8s.io',
      ]),
    );
    const batchV1 = await batch.getAPIResources();
    expect(batchV1.groupVersion).toBe('batch/v1');
    expect(batchV1.resources.map((r) => r.name)).toEqual(
      expect.arrayContaining(['jobs', 'jobs/status', 'cronjobs']),
    );
    const metrics = await raw('/apis/metrics.k8s.io/v1beta1');
    expect(at(metrics.body, 'resources')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'nodes', kind: 'NodeMetrics' }),
        expect.objectContaining({ name: 'pods', kind: 'PodMetrics' }),
      ]),
    );
  });

  test('unknown resources and groups are 404 Status', async () => {
    const r = await raw('/apis/batch/v1/namespaces/svc-jobs/widgets');
    expect(r.status).toBe(404);
    expectStatusShape(r.body, 404, 'NotFound');
    expect((await raw('/apis/example.com/v1')).status).toBe(404);
  });
});

// ---- namespaces and nodes ----

describe('namespaces and nodes', () => {
  test('seeded namespaces, create/get/delete, protected namespaces', async () => {
    const list = await core.listNamespace();
    expect(list.items.map((n) => n.metadata?.name)).toEqual(
      expect.arrayContaining(['default', 'kube-system', 'svc-jobs']),
    );
    const created = await core.createNamespace({ body: { metadata: { name: 'team-a' } } });
    expect(created.status?.phase).toBe('Active');
    expect(created.metadata?.labels?.['kubernetes.io/metadata.name']).toBe('team-a');
    const sa = await core.readNamespacedServiceAccount({ name: 'default', namespace: 'team-a' });
    expect(sa.metadata?.name).toBe('default');
    await core.deleteNamespace({ name: 'team-a' });
    const gone = await statusOf(core.readNamespace({ name: 'team-a' }));
    expect(gone.code).toBe(404);
    const denied = await statusOf(core.deleteNamespace({ name: 'default' }));
    expectStatusShape(denied.status, 403, 'Forbidden');
    const missingNs = await statusOf(
      core.createNamespacedConfigMap({ namespace: 'nope', body: { metadata: { name: 'x' } } }),
    );
    expectStatusShape(missingNs.status, 404, 'NotFound');
  });

  test('seeded CPU and GPU nodes', async () => {
    const nodes = await core.listNode();
    expect(nodes.items).toHaveLength(2);
    const gpu = await core.readNode({ name: GPU_NODE });
    expect(gpu.status?.allocatable).toMatchObject({ cpu: '48', memory: '192Gi', 'nvidia.com/gpu': '4' });
    expect(gpu.metadata?.labels).toMatchObject({
      'node.kubernetes.io/instance-type': expect.any(String),
      'topology.kubernetes.io/zone': expect.any(String),
      'kubernetes.io/arch': 'amd64',
    });
    const cpu = await core.readNode({ name: CPU_NODE });
    expect(cpu.status?.allocatable).toMatchObject({ cpu: '8', memory: '32Gi' });
    expect(cpu.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  });
});

// ---- jobs and the simulated kubelet ----

describe('jobs', () => {
  test('a job goes Pending → Running → Succeeded with status, pods, events and logs', async () => {
    const job = await batch.createNamespacedJob({
      namespace: NS,
      body: jobSpec('ok-job', { command: 'echo crunching numbers; exit 0' }),
    });
    const uid = job.metadata?.uid ?? '';
    expect(uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(job.spec?.selector?.matchLabels).toEqual({ 'batch.kubernetes.io/controller-uid': uid });

    const phases: string[] = [];
    const pods = await waitUntil(
      async () => {
        const items = await jobPods('ok-job');
        const phase = items[0]?.status?.phase;
        if (phase && phases[phases.length - 1] !== phase) phases.push(phase);
        return items;
      },
      (items) => items[0]?.status?.phase === 'Succeeded',
      'pod to succeed',
    );
    expect(phases).toEqual(['Pending', 'Running', 'Succeeded']);
    expect(pods).toHaveLength(1);
    const [pod] = pods;
    if (!pod) throw new Error('no pod');
    expect(pod.metadata?.name).toMatch(/^ok-job-[a-z0-9]{5}$/);
    expect(pod.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Job', name: 'ok-job', uid, controller: true, apiVersion: 'batch/v1' }),
    ]);
    expect(pod.metadata?.labels).toMatchObject({
      'job-name': 'ok-job',
      'batch.kubernetes.io/job-name': 'ok-job',
      'controller-uid': uid,
      'batch.kubernetes.io/controller-uid': uid,
    });
    expect(pod.spec?.nodeName).toBe(CPU_NODE); // no GPU requested: the CPU node is preferred
    expect(pod.status?.startTime).toBeInstanceOf(Date);
    expect(pod.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
      exitCode: 0,
      reason: 'Completed',
    });

    const done = await waitUntil(
      () => batch.readNamespacedJobStatus({ name: 'ok-job', namespace: NS }),
      (j) => condition(j, 'Complete')?.status === 'True',
      'job Complete',
    );
    expect(done.status).toMatchObject({ succeeded: 1 });
    expect(done.status?.active).toBeUndefined();
    expect(done.status?.startTime).toBeInstanceOf(Date);
    expect(done.status?.completionTime).toBeInstanceOf(Date);

    const podEvents = await core.listNamespacedEvent({
      namespace: NS,
      fieldSelector: `involvedObject.name=${pod.metadata?.name ?? ''}`,
    });
    expect(podEvents.items.map((e) => e.reason)).toEqual([
      'Scheduled',
      'Pulling',
      'Pulled',
      'Created',
      'Started',
    ]);

    const log = await core.readNamespacedPodLog({ name: pod.metadata?.name ?? '', namespace: NS });
    expect(log).toContain('main');
    expect(log).toContain('echo crunching numbers; exit 0');
    expect(log).toContain('crunching numbers\n');
    expect(log).toContain('exited with code 0');
  });

  test('job events are selectable by involvedObject fields', async () => {
    const job = await batch.readNamespacedJob({ name: 'ok-job', namespace: NS });
    const byName = await core.listNamespacedEvent({
      namespace: NS,
      fieldSelector: 'involvedObject.kind=Job,involvedObject.name=ok-job',
    });
    expect(byName.items.map((e) => e.reason)).toEqual(['SuccessfulCreate', 'Completed']);
    expect(byName.items[0]?.source?.component).toBe('job-controller');
    const byUid = await core.listEventForAllNamespaces({
      fieldSelector: `involvedObject.uid=${job.metadata?.uid ?? ''}`,
    });
    expect(byUid.items).toHaveLength(2);
    const warnings = await core.listNamespacedEvent({
      namespace: NS,
      fieldSelector: 'involvedObject.name=ok-job,type=Warning',
    });
    expect(warnings.items).toHaveLength(0);
  });

  test('a failing job retries until backoffLimit, then fails with BackoffLimitExceeded', async () => {
    await batch.createNamespacedJob({
      namespace: NS,
      body: jobSpec('bad-job', { command: 'echo boom >&2; exit 3', backoffLimit: 1 }),
    });
    const failed = await waitUntil(
      () => batch.readNamespacedJob({ name: 'bad-job', namespace: NS }),
      (j) => condition(j, 'Failed')?.status === 'True',
      'job Failed',
    );
    expect(condition(failed, 'Failed')?.reason).toBe('BackoffLimitExceeded');
    expect(failed.status?.failed).toBe(2);
    expect(failed.status?.succeeded).toBeUndefined();
    const pods = await jobPods('bad-job');
    expect(pods).toHaveLength(2);
    for (const p of pods) {
      expect(p.status?.phase).toBe('Failed');
      expect(p.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
        exitCode: 3,
        reason: 'Error',
      });
    }
    const events = await core.listNamespacedEvent({
      namespace: NS,
      fieldSelector: 'involvedObject.name=bad-job',
    });
    expect(events.items.map((e) => e.reason)).toEqual([
      'SuccessfulCreate',
      'SuccessfulCreate',
      'BackoffLimitExceeded',
    ]);
    expect(events.items[2]?.type).toBe('Warning');
  });

  test('restartPolicy OnFailure restarts in place; restarts count against backoffLimit; previous logs', async () => {
    const body = jobSpec('restarting', { command: 'echo try; exit 1', backoffLimit: 1 });
    const podSpec = body.spec?.template.spec;
    if (podSpec) podSpec.restartPolicy = 'OnFailure';
    await batch.createNamespacedJob({ namespace: NS, body });
    const [restarted] = await waitUntil(
      () => jobPods('restarting'),
      (items) => (items[0]?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1,
      'a container restart',
    );
    const status = restarted?.status?.containerStatuses?.[0];
    expect(status?.lastState?.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    const previous = await core.readNamespacedPodLog({
      name: restarted?.metadata?.name ?? '',
      namespace: NS,
      previous: true,
    });
    expect(previous).toContain('exited with code 1');
    const failed = await waitUntil(
      () => batch.readNamespacedJob({ name: 'restarting', namespace: NS }),
      (j) => condition(j, 'Failed')?.status === 'True',
      'job Failed',
    );
    expect(condition(failed, 'Failed')?.reason).toBe('BackoffLimitExceeded');
    expect(failed.status?.failed).toBe(1);
    expect(await jobPods('restarting')).toHaveLength(0); // the controller deletes the failing pod
  });

  test('follow=true streams a running container until it exits', async () => {
    await core.createNamespacedPod({
      namespace: NS,
      body: {
        metadata: { name: 'follow-me' },
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'c', image: 'busybox:1.36', command: ['sh', '-c', 'echo streaming'] }],
        },
      },
    });
    await waitUntil(
      () => core.readNamespacedPod({ name: 'follow-me', namespace: NS }),
      (p) => p.status?.phase === 'Running',
      'pod running',
    );
    const res = await raw(`/api/v1/namespaces/${NS}/pods/follow-me/log?follow=true`);
    expect(res.status).toBe(200);
    expect(res.body).toContain('streaming\n');
    expect(res.body).toMatch(/exited with code 0\n$/);
  });

  test('the exit-code annotation fails a job with backoffLimit 0', async () => {
    await batch.createNamespacedJob({
      namespace: NS,
      body: jobSpec('annotated-fail', { backoffLimit: 0, annotations: { 'sim.gco.dev/exit-code': '42' } }),
    });
    const failed = await waitUntil(
      () => batch.readNamespacedJob({ name: 'annotated-fail', namespace: NS }),
      (j) => condition(j, 'Failed')?.status === 'True',
      'job Failed',
    );
    expect(failed.status?.failed).toBe(1);
    const [pod] = await jobPods('annotated-fail');
    expect(pod?.status?.containerStatuses?.[0]?.state?.terminated?.exitCode).toBe(42);
  });

  test('parallelism and completions; GPU pods land on the GPU node; unschedulable pods stay Pending', async () => {
    await batch.createNamespacedJob({
      namespace: NS,
      body: jobSpec('par-job', { parallelism: 2, completions: 3, gpu: '1' }),
    });
    const done = await waitUntil(
      () => batch.readNamespacedJob({ name: 'par-job', namespace: NS }),
      (j) => condition(j, 'Complete')?.status === 'True',
      'parallel job Complete',
    );
    expect(done.status?.succeeded).toBe(3);
    const pods = await jobPods('par-job');
    expect(pods).toHaveLength(3);
    expect(new Set(pods.map((p) => p.spec?.nodeName))).toEqual(new Set([GPU_NODE]));

    await batch.createNamespacedJob({ namespace: NS, body: jobSpec('too-big', { gpu: '8' }) });
    const [pending] = await waitUntil(
      () => jobPods('too-big'),
      (items) =>
        items[0]?.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'False') === true,
      'FailedScheduling',
    );
    expect(pending?.status?.phase).toBe('Pending');
    expect(pending?.spec?.nodeName).toBeUndefined();
    const events = await core.listNamespacedEvent({
      namespace: NS,
      fieldSelector: `involvedObject.name=${pending?.metadata?.name ?? ''},reason=FailedScheduling`,
    });
    expect(events.items[0]?.message).toMatch(/0\/2 nodes are available: .*Insufficient nvidia.com\/gpu/);
    await batch.deleteNamespacedJob({ name: 'too-big', namespace: NS, propagationPolicy: 'Background' });
  });

  test('list jobs across namespaces, replace, patch and the status subresource', async () => {
    const all = await batch.listJobForAllNamespaces({ labelSelector: 'app=sim-test' });
    expect(all.items.map((j) => j.metadata?.name)).toEqual(expect.arrayContaining(['ok-job', 'bad-job']));
    const job = await batch.readNamespacedJob({ name: 'ok-job', namespace: NS });
    job.metadata = { ...job.metadata, labels: { ...job.metadata?.labels, replaced: 'yes' } };
    const replaced = await batch.replaceNamespacedJob({ name: 'ok-job', namespace: NS, body: job });
    expect(replaced.metadata?.labels?.replaced).toBe('yes');
    const stale = await statusOf(batch.replaceNamespacedJob({ name: 'ok-job', namespace: NS, body: job }));
    expectStatusShape(stale.status, 409, 'Conflict');
    const patched = await batch.patchNamespacedJob(
      { name: 'ok-job', namespace: NS, body: { metadata: { annotations: { note: 'merged' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(patched.metadata?.annotations?.note).toBe('merged');
    expect(condition(patched, 'Complete')?.status).toBe('True');
  });
});

// ---- pods/log ----

describe('pods/log', () => {
  const podName = 'two-containers';

  beforeAll(async () => {
    await core.createNamespacedPod({
      namespace: NS,
      body: {
        metadata: { name: podName },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'app',
              image: 'python:3.12',
              command: ['python', '-c', 'print("hi")'],
              args: ['--verbose'],
            },
            { name: 'sidecar', image: 'envoyproxy/envoy:v1.31', command: ['sh', '-c', 'echo proxy up'] },
          ],
        },
      },
    });
    await waitUntil(
      () => core.readNamespacedPod({ name: podName, namespace: NS }),
      (p) => p.status?.phase === 'Succeeded',
      'bare pod to succeed',
    );
  });

  test('container, tailLines and timestamps', async () => {
    const full = await core.readNamespacedPodLog({ name: podName, namespace: NS, container: 'app' });
    const lines = full.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    expect(full).toContain('"app"');
    expect(full).toContain('python -c print("hi") --verbose');
    const tail = await core.readNamespacedPodLog({
      name: podName,
      namespace: NS,
      container: 'sidecar',
      tailLines: 2,
    });
    expect(tail.trimEnd().split('\n')).toEqual([
      'proxy up',
      '[gco-sim] container "sidecar" exited with code 0',
    ]);
    const stamped = await core.readNamespacedPodLog({
      name: podName,
      namespace: NS,
      container: 'sidecar',
      tailLines: 1,
      timestamps: true,
    });
    expect(stamped).toMatch(
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z \[gco-sim\] container "sidecar" exited with code 0\n$/,
    );
    const since = await core.readNamespacedPodLog({
      name: podName,
      namespace: NS,
      container: 'app',
      sinceSeconds: 3600,
    });
    expect(since).toBe(full);
  });

  test('the Log class streams the same text', async () => {
    let text = '';
    const sink = new Writable({
      write(chunk: Buffer, _enc, cb) {
        text += chunk.toString('utf8');
        cb();
      },
    });
    const finished = new Promise((resolve) => sink.on('finish', resolve));
    await new Log(kc).log(NS, podName, 'sidecar', sink, { tailLines: 1 });
    await finished;
    expect(text).toBe('[gco-sim] container "sidecar" exited with code 0\n');
  });

  test('errors like the real kubelet', async () => {
    const noContainer = await statusOf(core.readNamespacedPodLog({ name: podName, namespace: NS }));
    expectStatusShape(noContainer.status, 400, 'BadRequest');
    expect(at(noContainer.status, 'message')).toBe(
      `a container name must be specified for pod ${podName}, choose one of: [app sidecar]`,
    );
    const previous = await statusOf(
      core.readNamespacedPodLog({ name: podName, namespace: NS, container: 'app', previous: true }),
    );
    expect(previous.code).toBe(400);
    expect(at(previous.status, 'message')).toContain('previous terminated container "app"');
    const wrong = await statusOf(
      core.readNamespacedPodLog({ name: podName, namespace: NS, container: 'nope' }),
    );
    expect(wrong.code).toBe(400);
    const missing = await statusOf(
      core.readNamespacedPodLog({ name: 'ghost', namespace: NS, container: 'x' }),
    );
    expectStatusShape(missing.status, 404, 'NotFound');
  });
});

// ---- selectors and pagination ----

describe('selectors and pagination', () => {
  const ns = 'selectors';
  const tiers = ['a', 'b', 'c', 'a', 'b', 'c', 'a'];

  beforeAll(async () => {
    await core.createNamespace({ body: { metadata: { name: ns } } });
    for (const [i, tier] of tiers.entries()) {
      const labels: Record<string, string> = { tier, idx: String(i) };
      if (i % 2 === 0) labels.env = 'prod';
      await core.createNamespacedConfigMap({
        namespace: ns,
        body: { metadata: { name: `cm-${i}`, labels }, data: { i: String(i) } },
      });
    }
  });

  async function names(labelSelector?: string, fieldSelector?: string): Promise<string[]> {
    const list = await core.listNamespacedConfigMap({ namespace: ns, labelSelector, fieldSelector });
    return list.items.map((c) => c.metadata?.name ?? '');
  }

  test('label selectors: equality, set-based, existence, AND', async () => {
    expect(await names('tier=a')).toEqual(['cm-0', 'cm-3', 'cm-6']);
    expect(await names('tier==b')).toEqual(['cm-1', 'cm-4']);
    expect(await names('tier!=a')).toEqual(['cm-1', 'cm-2', 'cm-4', 'cm-5']);
    expect(await names('tier in (b, c)')).toEqual(['cm-1', 'cm-2', 'cm-4', 'cm-5']);
    expect(await names('tier notin (a,b)')).toEqual(['cm-2', 'cm-5']);
    expect(await names('env')).toEqual(['cm-0', 'cm-2', 'cm-4', 'cm-6']);
    expect(await names('!env')).toEqual(['cm-1', 'cm-3', 'cm-5']);
    expect(await names('env=prod,tier in (a)')).toEqual(['cm-0', 'cm-6']);
    expect(await names('idx>4')).toEqual(['cm-5', 'cm-6']);
  });

  test('field selectors', async () => {
    expect(await names(undefined, 'metadata.name=cm-3')).toEqual(['cm-3']);
    expect(await names(undefined, 'metadata.name!=cm-3,metadata.namespace==selectors')).toHaveLength(6);
    expect(await names('tier=a', 'metadata.name!=cm-0')).toEqual(['cm-3', 'cm-6']);
    const succeeded = await core.listNamespacedPod({
      namespace: NS,
      fieldSelector: 'status.phase=Succeeded',
    });
    expect(succeeded.items.length).toBeGreaterThan(0);
    expect(succeeded.items.every((p) => p.status?.phase === 'Succeeded')).toBe(true);
    const onGpu = await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${GPU_NODE}` });
    expect(onGpu.items.every((p) => p.spec?.nodeName === GPU_NODE)).toBe(true);
  });

  test('invalid selectors are 400 Status', async () => {
    for (const bad of ['tier in (a', 'tier in ()', 'a b', '-bad=x', 'tier=a b', 'x,,y']) {
      const r = await statusOf(core.listNamespacedConfigMap({ namespace: ns, labelSelector: bad }));
      expectStatusShape(r.status, 400, 'BadRequest');
    }
    const field = await statusOf(
      core.listNamespacedConfigMap({ namespace: ns, fieldSelector: 'spec.nodeName=x' }),
    );
    expectStatusShape(field.status, 400, 'BadRequest');
    expect(at(field.status, 'message')).toBe('field label not supported: spec.nodeName');
  });

  test('limit/continue pages through 7 objects in stable order', async () => {
    const seen: string[] = [];
    const p1 = await core.listNamespacedConfigMap({ namespace: ns, limit: 3 });
    expect(p1.items).toHaveLength(3);
    expect(p1.metadata?.remainingItemCount).toBe(4);
    expect(p1.metadata?._continue).toBeTruthy();
    expect(p1.metadata?.resourceVersion).toMatch(/^\d+$/);
    seen.push(...p1.items.map((c) => c.metadata?.name ?? ''));
    const p2 = await core.listNamespacedConfigMap({
      namespace: ns,
      limit: 3,
      _continue: p1.metadata?._continue,
    });
    expect(p2.metadata?.remainingItemCount).toBe(1);
    seen.push(...p2.items.map((c) => c.metadata?.name ?? ''));
    const p3 = await core.listNamespacedConfigMap({
      namespace: ns,
      limit: 3,
      _continue: p2.metadata?._continue,
    });
    expect(p3.items).toHaveLength(1);
    expect(p3.metadata?._continue).toBeUndefined();
    seen.push(...p3.items.map((c) => c.metadata?.name ?? ''));
    expect(seen).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4', 'cm-5', 'cm-6']);
    const bad = await statusOf(
      core.listNamespacedConfigMap({ namespace: ns, limit: 3, _continue: 'garbage' }),
    );
    expectStatusShape(bad.status, 400, 'BadRequest');
  });

  test('resourceVersion is a monotonic string; uid, creationTimestamp, generation and generateName', async () => {
    const a = await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { generateName: 'gen-' } },
    });
    const b = await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { generateName: 'gen-' } },
    });
    expect(a.metadata?.name).toMatch(/^gen-[a-z0-9]{5}$/);
    expect(a.metadata?.name).not.toBe(b.metadata?.name);
    expect(Number(b.metadata?.resourceVersion)).toBeGreaterThan(Number(a.metadata?.resourceVersion));
    expect(a.metadata?.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(a.metadata?.creationTimestamp).toBeInstanceOf(Date);
    expect(a.metadata?.generation).toBe(1);
  });
});

// ---- deletion ----

describe('delete', () => {
  const longRunning = { annotations: { 'sim.gco.dev/running-ms': '600000' } };

  async function runningJob(name: string): Promise<V1Job> {
    const job = await batch.createNamespacedJob({ namespace: NS, body: jobSpec(name, longRunning) });
    await waitUntil(
      () => jobPods(name),
      (items) => items[0]?.status?.phase === 'Running',
      `${name} running`,
    );
    return job;
  }

  test('propagationPolicy Background deletes the pods, Orphan keeps them without the owner', async () => {
    await runningJob('bg-job');
    const status = await batch.deleteNamespacedJob({
      name: 'bg-job',
      namespace: NS,
      propagationPolicy: 'Background',
    });
    expect(status).toMatchObject({ kind: 'Status', status: 'Success' });
    expect(await jobPods('bg-job')).toHaveLength(0);

    await runningJob('orphan-job');
    await batch.deleteNamespacedJob({ name: 'orphan-job', namespace: NS, propagationPolicy: 'Orphan' });
    const orphans = await jobPods('orphan-job');
    expect(orphans).toHaveLength(1);
    expect(orphans[0]?.metadata?.ownerReferences).toBeUndefined();
    expect(orphans[0]?.status?.phase).toBe('Running');
    await core.deleteNamespacedPod({ name: orphans[0]?.metadata?.name ?? '', namespace: NS });
  });

  test('the default for jobs orphans pods and warns, like batch/v1', async () => {
    await runningJob('default-policy');
    const r = await raw(`/apis/batch/v1/namespaces/${NS}/jobs/default-policy`, { method: 'DELETE' });
    expect(r.status).toBe(200);
    expect(r.headers.get('warning')).toContain('child pods are preserved by default');
    const pods = await jobPods('default-policy');
    expect(pods).toHaveLength(1);
    await core.deleteCollectionNamespacedPod({
      namespace: NS,
      labelSelector: 'batch.kubernetes.io/job-name=default-policy',
    });
    expect(await jobPods('default-policy')).toHaveLength(0);
  });

  test('uid and resourceVersion preconditions answer 409 Conflict on mismatch', async () => {
    const job = await runningJob('precond-job');
    const wrongUid = await statusOf(
      batch.deleteNamespacedJob({
        name: 'precond-job',
        namespace: NS,
        body: { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } },
      }),
    );
    expectStatusShape(wrongUid.status, 409, 'Conflict');
    expect(at(wrongUid.status, 'message')).toContain('Precondition failed: UID in precondition');
    expect(at(wrongUid.status, 'details')).toMatchObject({
      name: 'precond-job',
      group: 'batch',
      kind: 'jobs',
    });
    const wrongRv = await statusOf(
      batch.deleteNamespacedJob({
        name: 'precond-job',
        namespace: NS,
        body: { preconditions: { resourceVersion: '1' } },
      }),
    );
    expect(wrongRv.code).toBe(409);
    await batch.deleteNamespacedJob({
      name: 'precond-job',
      namespace: NS,
      propagationPolicy: 'Foreground',
      body: { preconditions: { uid: job.metadata?.uid } },
    });
    expect(await jobPods('precond-job')).toHaveLength(0);
  });

  test('dryRun=All on delete keeps the object', async () => {
    await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'keep-me' } } });
    await core.deleteNamespacedConfigMap({ name: 'keep-me', namespace: NS, dryRun: 'All' });
    expect((await core.readNamespacedConfigMap({ name: 'keep-me', namespace: NS })).metadata?.name).toBe(
      'keep-me',
    );
  });
});

// ---- errors ----

describe('Status errors', () => {
  test('AlreadyExists, NotFound and Invalid', async () => {
    await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'dup' } } });
    const dup = await statusOf(
      core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'dup' } } }),
    );
    expect(dup.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "dup" already exists',
      reason: 'AlreadyExists',
      details: { name: 'dup', kind: 'configmaps' },
      code: 409,
    });
    const missing = await statusOf(batch.readNamespacedJob({ name: 'ghost', namespace: NS }));
    expect(missing.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'jobs.batch "ghost" not found',
      reason: 'NotFound',
      details: { name: 'ghost', group: 'batch', kind: 'jobs' },
      code: 404,
    });
    const noTemplate = await statusOf(
      batch.createNamespacedJob({
        namespace: NS,
        // Deliberately invalid: V1JobSpec requires a template, which is what the server must reject.
        body: { metadata: { name: 'no-template' }, spec: {} } as V1Job,
      }),
    );
    expectStatusShape(noTemplate.status, 422, 'Invalid');
    expect(at(noTemplate.status, 'details')).toMatchObject({
      name: 'no-template',
      group: 'batch',
      kind: 'Job',
    });
    expect(at(noTemplate.status, 'details.causes')).toEqual(
      expect.arrayContaining([
        { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.template.spec.containers' },
      ]),
    );
    const badName = await statusOf(
      core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'Bad_Name' } } }),
    );
    expect(badName.code).toBe(422);
    expect(at(badName.status, 'details.causes.0.field')).toBe('metadata.name');
    const noName = await statusOf(core.createNamespacedConfigMap({ namespace: NS, body: { metadata: {} } }));
    expect(at(noName.status, 'message')).toBe(
      'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
    );
    const badRestart = await statusOf(
      batch.createNamespacedJob({
        namespace: NS,
        body: {
          metadata: { name: 'always' },
          spec: { template: { spec: { containers: [{ name: 'c', image: 'x' }] } } },
        },
      }),
    );
    expect(at(badRestart.status, 'details.causes')).toEqual([
      expect.objectContaining({
        field: 'spec.template.spec.restartPolicy',
        reason: 'FieldValueNotSupported',
      }),
    ]);
  });

  test('bad bodies never crash the server', async () => {
    const json = { 'Content-Type': 'application/json' };
    const malformed = await raw(`/api/v1/namespaces/${NS}/configmaps`, {
      method: 'POST',
      headers: json,
      body: '{"metadata":',
    });
    expectStatusShape(malformed.body, 400, 'BadRequest');
    const notObject = await raw(`/api/v1/namespaces/${NS}/configmaps`, {
      method: 'POST',
      headers: json,
      body: '[1,2]',
    });
    expect(notObject.status).toBe(400);
    const huge = await raw(`/api/v1/namespaces/${NS}/configmaps`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ metadata: { name: 'huge' }, data: { blob: 'x'.repeat(4 * 1024 * 1024) } }),
    });
    expectStatusShape(huge.body, 413, 'RequestEntityTooLarge');
    const yaml = await raw(`/api/v1/namespaces/${NS}/configmaps`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/yaml' },
      body: 'a: b',
    });
    expect(yaml.status).toBe(415);
    const badPatch = await raw(`/api/v1/namespaces/${NS}/configmaps/dup`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'text/plain' },
      body: '{}',
    });
    expect(badPatch.status).toBe(415);
    const wrongKind = await raw(`/api/v1/namespaces/${NS}/configmaps`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } }),
    });
    expect(wrongKind.status).toBe(400);
    const watch = await raw(`/api/v1/namespaces/${NS}/pods?watch=true`);
    expect(watch.status).toBe(405);
    expect((await raw('/version')).status).toBe(200);
  });
});

// ---- generic objects ----

describe('generic objects with KubernetesObjectApi', () => {
  const deployment = (replicas: number, image = 'nginx:1.27'): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: NS, labels: { app: 'web' } },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image, ports: [{ containerPort: 80 }] }] },
      },
    },
  });

  /** How reads, merge patches and deletes name the Deployment. */
  const web = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: NS } };

  test('create, patch (merge, strategic, apply), dryRun and delete of a Deployment', async () => {
    const dry = await objects.create(deployment(1), undefined, 'All');
    expect(dry.metadata?.name).toBe('web');
    expect((await statusOf(objects.read(web))).code).toBe(404);

    const created = await objects.create(deployment(1));
    expect(created.metadata?.generation).toBe(1);
    const ready = await waitUntil(
      () => objects.read(web),
      (d) => at(d, 'status.readyReplicas') === 1,
      'deployment ready',
    );
    expect(ready.metadata?.uid).toBe(created.metadata?.uid);

    const merged = await objects.patch(
      { ...web, spec: { replicas: 3 } },
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    );
    expect(at(merged, 'spec.replicas')).toBe(3);
    expect(at(merged, 'metadata.generation')).toBe(2);

    // Strategic merge keys containers by name: the image changes, the ports survive.
    const strategic = await objects.patch({
      ...web,
      spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } } },
    });
    expect(at(strategic, 'spec.template.spec.containers')).toHaveLength(1);
    expect(at(strategic, 'spec.template.spec.containers.0')).toMatchObject({
      image: 'nginx:1.28',
      ports: [{ containerPort: 80 }],
    });

    const dryPatch = await objects.patch(
      deployment(9),
      undefined,
      'All',
      'test',
      undefined,
      PatchStrategy.ServerSideApply,
    );
    expect(at(dryPatch, 'spec.replicas')).toBe(9);
    const afterDry = await objects.read(web);
    expect(at(afterDry, 'spec.replicas')).toBe(3);

    const applied = await objects.patch(
      deployment(5, 'nginx:1.29'),
      undefined,
      undefined,
      'gco-test',
      true,
      PatchStrategy.ServerSideApply,
    );
    expect(at(applied, 'spec.replicas')).toBe(5);

    const listed = await objects.list('apps/v1', 'Deployment', NS);
    expect(listed.items.map((d) => d.metadata?.name)).toEqual(['web']);
    await objects.delete(web);
    expect((await statusOf(objects.read(web))).code).toBe(404);
  });

  test('server-side apply creates missing objects and requires a fieldManager', async () => {
    const svc: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'api', namespace: NS },
      spec: { selector: { app: 'api' }, ports: [{ port: 443, targetPort: 8443 }] },
    };
    const created = await objects.patch(
      svc,
      undefined,
      undefined,
      'gco-test',
      undefined,
      PatchStrategy.ServerSideApply,
    );
    expect(at(created, 'spec.clusterIP')).toMatch(/^10\./);
    const noManager = await statusOf(
      objects.patch(svc, undefined, undefined, undefined, undefined, PatchStrategy.ServerSideApply),
    );
    expect(noManager.code).toBe(422);
    const netpol = await objects.create({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'deny-all', namespace: NS },
      spec: { podSelector: {}, policyTypes: ['Ingress'] },
    });
    expect(at(netpol, 'metadata.uid')).toBeTruthy();
    const unknown = await objects
      .create({
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w', namespace: NS },
      })
      .then(
        () => 'created',
        (e: unknown) => String(e),
      );
    expect(unknown).toContain('example.com/v1');
  });

  test('JSON patch (RFC 6902) and strategic merge through typed clients', async () => {
    await core.createNamespacedConfigMap({
      namespace: NS,
      body: { metadata: { name: 'jp', labels: { a: '1' } }, data: { k: 'v' } },
    });
    const patched = await core.patchNamespacedConfigMap({
      name: 'jp',
      namespace: NS,
      body: [
        { op: 'test', path: '/data/k', value: 'v' },
        { op: 'add', path: '/data/n', value: 'new' },
        { op: 'remove', path: '/metadata/labels/a' },
        { op: 'replace', path: '/data/k', value: 'v2' },
      ],
    });
    expect(patched.data).toEqual({ k: 'v2', n: 'new' });
    expect(patched.metadata?.labels).toEqual({});
    const failedTest = await statusOf(
      core.patchNamespacedConfigMap({
        name: 'jp',
        namespace: NS,
        body: [{ op: 'test', path: '/data/k', value: 'nope' }],
      }),
    );
    expect(failedTest.code).toBe(422);
    const strategic = await core.patchNamespacedConfigMap(
      { name: 'jp', namespace: NS, body: { data: { n: null, s: 'x' } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(strategic.data).toEqual({ k: 'v2', s: 'x' });
  });
});

// ---- metrics, quotas, availability ----

describe('metrics.k8s.io, quotas and simulated unavailability', () => {
  const metrics = (): Metrics => new Metrics(kc);

  test('node and pod metrics, with overrides', async () => {
    await core.createNamespace({ body: { metadata: { name: 'metrics' } } });
    await core.createNamespacedPod({
      namespace: 'metrics',
      body: {
        metadata: { name: 'server', annotations: { 'sim.gco.dev/running-ms': '600000' } },
        spec: {
          containers: [
            { name: 'srv', image: 'nginx:1.27', resources: { requests: { cpu: '500m', memory: '128Mi' } } },
          ],
        },
      },
    });
    await waitUntil(
      () => core.readNamespacedPod({ name: 'server', namespace: 'metrics' }),
      (p) => p.status?.phase === 'Running',
      'server running',
    );
    const nodes = await metrics().getNodeMetrics();
    expect(nodes.kind).toBe('NodeMetricsList');
    expect(nodes.items.map((n) => n.metadata.name).sort()).toEqual([CPU_NODE, GPU_NODE].sort());
    expect(nodes.items[0]?.usage.cpu).toMatch(/^\d+n$/);
    const pods = await metrics().getPodMetrics('metrics');
    expect(pods.items).toHaveLength(1);
    expect(pods.items[0]?.containers[0]).toEqual({
      name: 'srv',
      usage: { cpu: '500000000n', memory: '131072Ki' },
    });

    sim.setNodeUsage(CPU_NODE, { cpu: '3', memory: '10Gi' });
    sim.setPodUsage('metrics', 'server', { srv: { cpu: '250m', memory: '64Mi' } });
    const overridden = await metrics().getNodeMetrics();
    expect(overridden.items.find((n) => n.metadata.name === CPU_NODE)?.usage).toEqual({
      cpu: '3',
      memory: '10Gi',
    });
    expect((await metrics().getPodMetrics('metrics')).items[0]?.containers[0]?.usage).toEqual({
      cpu: '250m',
      memory: '64Mi',
    });
    const one = await raw(`/apis/metrics.k8s.io/v1beta1/nodes/${GPU_NODE}`);
    expect(one.body).toMatchObject({
      kind: 'NodeMetrics',
      metadata: { name: GPU_NODE },
      window: expect.any(String),
    });
  });

  test('resourcequota status.used is computed from pods; exceeding it is 403', async () => {
    const ns = 'quota';
    await core.createNamespace({ body: { metadata: { name: ns } } });
    await core.createNamespacedResourceQuota({
      namespace: ns,
      body: {
        metadata: { name: 'compute' },
        spec: { hard: { 'requests.cpu': '2', 'requests.memory': '1Gi', pods: '5', 'count/jobs.batch': '3' } },
      },
    });
    await core.createNamespacedLimitRange({
      namespace: ns,
      body: {
        metadata: { name: 'limits' },
        spec: {
          limits: [
            {
              type: 'Container',
              max: { cpu: '2' },
              defaultRequest: { cpu: '100m', memory: '64Mi' },
              _default: { cpu: '1', memory: '256Mi' },
            },
          ],
        },
      },
    });
    const pod = (name: string, cpu?: string): V1Pod => ({
      metadata: { name, annotations: { 'sim.gco.dev/running-ms': '600000' } },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'busybox:1.36',
            resources: cpu ? { requests: { cpu, memory: '256Mi' }, limits: { cpu } } : {},
          },
        ],
      },
    });
    await core.createNamespacedPod({ namespace: ns, body: pod('p1', '1500m') });
    const defaulted = await core.createNamespacedPod({ namespace: ns, body: pod('p2') });
    expect(defaulted.spec?.containers[0]?.resources).toEqual({
      requests: { cpu: '100m', memory: '64Mi' },
      limits: { cpu: '1', memory: '256Mi' },
    });
    const quota = await core.readNamespacedResourceQuota({ name: 'compute', namespace: ns });
    expect(quota.status?.hard).toEqual({
      'requests.cpu': '2',
      'requests.memory': '1Gi',
      pods: '5',
      'count/jobs.batch': '3',
    });
    expect(quota.status?.used).toEqual({
      'requests.cpu': '1600m',
      'requests.memory': '320Mi',
      pods: '2',
      'count/jobs.batch': '0',
    });
    const over = await statusOf(core.createNamespacedPod({ namespace: ns, body: pod('p3', '1') }));
    expectStatusShape(over.status, 403, 'Forbidden');
    expect(at(over.status, 'message')).toContain(
      'exceeded quota: compute, requested: requests.cpu=1, used: requests.cpu=1600m, limited: requests.cpu=2',
    );
    const tooBig = await statusOf(core.createNamespacedPod({ namespace: ns, body: pod('p4', '3') }));
    expect(at(tooBig.status, 'message')).toContain('maximum cpu usage per Container is 2, but limit is 3');
  });

  test('setUnavailable answers 403/404/503 and clearUnavailable restores', async () => {
    sim.setUnavailable('limitranges');
    const denied = await statusOf(core.listNamespacedLimitRange({ namespace: NS }));
    expectStatusShape(denied.status, 403, 'Forbidden');
    expect(at(denied.status, 'message')).toContain(
      'cannot list resource "limitranges" in API group "" in the namespace "svc-jobs"',
    );
    sim.clearUnavailable('limitranges');
    expect((await core.listNamespacedLimitRange({ namespace: NS })).items).toEqual([]);

    sim.setUnavailable('metrics.k8s.io', 404);
    const missing = await new Metrics(kc).getNodeMetrics().then(
      () => 0,
      (e: unknown) => (e instanceof ApiException ? e.code : -1),
    );
    expect(missing).toBe(404);
    const groups = (await raw('/apis')).body;
    expect(namesAt(groups, 'groups')).not.toContain('metrics.k8s.io');
    sim.setUnavailable('metrics.k8s.io', 503);
    expect((await raw('/apis/metrics.k8s.io/v1beta1/nodes')).status).toBe(503);
    sim.clearUnavailable('metrics.k8s.io');
    expect((await new Metrics(kc).getNodeMetrics()).items).toHaveLength(2);

    sim.setUnavailable('resourcequotas', 503);
    expect((await statusOf(core.listNamespacedResourceQuota({ namespace: NS }))).code).toBe(503);
    sim.clearUnavailable('resourcequotas');
  });
});

// ---- direct controls and server-side printing ----

describe('direct state access and tables', () => {
  test('put/get/list bypass HTTP and fill metadata', async () => {
    const put = sim.put({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'direct', namespace: NS },
      data: { a: '1' },
    });
    expect(put.metadata.uid).toBeTruthy();
    expect(put.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(put.metadata.creationTimestamp).toBeTruthy();
    const replaced = sim.put({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'direct', namespace: NS },
      data: { a: '2' },
    });
    expect(replaced.metadata.uid).toBe(put.metadata.uid);
    expect(sim.get('v1', 'ConfigMap', NS, 'direct')?.data).toEqual({ a: '2' });
    expect((await core.readNamespacedConfigMap({ name: 'direct', namespace: NS })).data).toEqual({ a: '2' });
    expect(sim.list('v1', 'Node').map((n) => n.metadata.name)).toEqual([CPU_NODE, GPU_NODE]);
    expect(sim.get('batch/v1', 'Job', NS, 'nope')).toBeUndefined();
    sim.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'put-ns' } });
    expect(sim.list('v1', 'Namespace').map((n) => n.metadata.name)).toContain('put-ns');
    expect(() => sim.put({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })).toThrow(
      /unknown kind/,
    );
  });

  /** Names of the default (priority 0) columns of a Table. */
  function columns(table: unknown): unknown[] {
    const defs = at(table, 'columnDefinitions');
    return Array.isArray(defs) ? defs.filter((c) => at(c, 'priority') === 0).map((c) => at(c, 'name')) : [];
  }

  function cells(table: unknown, row: number): unknown[] {
    const c = at(table, `rows.${row}.cells`);
    return Array.isArray(c) ? c : [];
  }

  test('as=Table for kubectl-style printing', async () => {
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json';
    const nodes = await raw('/api/v1/nodes', { headers: { Accept: accept } });
    expect(nodes.body).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(columns(nodes.body)).toEqual(['Name', 'Status', 'Roles', 'Age', 'Version']);
    expect(cells(nodes.body, 0).slice(0, 3)).toEqual([CPU_NODE, 'Ready', '<none>']);
    expect(at(nodes.body, 'rows.0.object.metadata.name')).toBe(CPU_NODE);
    const pods = (await raw(`/api/v1/namespaces/${NS}/pods`, { headers: { Accept: accept } })).body;
    expect(columns(pods)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age']);
    const rows = at(pods, 'rows');
    expect(Array.isArray(rows) ? rows.map((r) => at(r, 'cells.2')) : []).toContain('Completed');
    const jobs = (await raw(`/apis/batch/v1/namespaces/${NS}/jobs/ok-job`, { headers: { Accept: accept } }))
      .body;
    expect(cells(jobs, 0).slice(0, 3)).toEqual(['ok-job', 'Complete', '1/1']);
  });

  test('CustomResourceDefinitions register new kinds', async () => {
    await objects.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [
          { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } },
        ],
      },
    });
    const w = await KubernetesObjectApi.makeApiClient(kc).create({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w1', namespace: NS },
      spec: { size: 3 },
    });
    expect(at(w, 'metadata.uid')).toBeTruthy();
    expect((await raw(`/apis/example.com/v1/namespaces/${NS}/widgets/w1`)).status).toBe(200);
  });
});

test('close() stops the server and its timers', async () => {
  const other = await startKubeApiSimulator({ kubelet: { pendingMs: 10_000, runningMs: 10_000 } });
  const otherBatch = kubeConfigFor(other.url).makeApiClient(BatchV1Api);
  await otherBatch.createNamespacedJob({ namespace: NS, body: jobSpec('pending') });
  await other.close();
  await other.close(); // idempotent
  await expect(fetch(`${other.url}/version`)).rejects.toThrow();
});
