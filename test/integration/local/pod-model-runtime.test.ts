/**
 * The local platform's pod runtime and Service resolution, end to end below the API: the simulator (with
 * Deployments running pods) runs a real model server for each Ready pod whose `model` image is the sample
 * image, a stub for any other image, and the inference-proxy reaches them through the endpoint's Service
 * host as it would through CoreDNS + kube-proxy in a cluster.
 */
import { AppsV1Api, CoreV1Api, type V1Deployment, type V1Pod } from '@kubernetes/client-node';
import { connect } from 'node:net';
import { createInferenceProxy, type InferenceProxy } from '../../../cluster/inference-proxy/src/app.js';
import { DynamoEndpointSource } from '../../../cluster/inference-proxy/src/store.js';
import { silentServiceLogger } from '../../../cluster/shared/logger.js';
import {
  ENDPOINT_LABELS,
  INFERENCE_NAMESPACE,
  MODEL_TLS_PORT,
  endpointObjectName,
  endpointServiceHost,
} from '../../../contracts/inference-endpoints.js';
import { TABLES, tableName } from '../../../contracts/tables.js';
import { startLocalDynamo, type LocalDynamo } from '../../../local/dynamodb.js';
import { startKubeApiSimulator, type KubeApiSimulator } from '../../../local/kube-api-simulator/index.js';
import { tokenFor } from '../../../local/model-server.js';
import { PodModelRuntime } from '../../../local/pod-model-runtime.js';
import { createServiceProxy, type ServiceProxy } from '../../../local/service-proxy.js';
import { stubDetail } from '../../../local/stub-model-server.js';
import { createLocalCa } from '../../../local/tls.js';
import { endpointRecord, putEndpoint, REGION, send } from '../inference-proxy/harness.js';
import { testEnvelopeVerifier } from '../../support/cluster-fixtures.js';

const SAMPLE_IMAGE = '000000000000.dkr.ecr.us-east-1.amazonaws.com/gco/sample-model:1';
const OTHER_IMAGE = 'registry.k8s.io/some-team/llm-server:2';
const NS = INFERENCE_NAMESPACE;

let sim: KubeApiSimulator;
let runtime: PodModelRuntime;
let services: ServiceProxy;
let dynamo: LocalDynamo;
let proxy: InferenceProxy;
let base: string;
let apps: AppsV1Api;
let core: CoreV1Api;
const table = tableName('gco', TABLES.inferenceEndpoints);

/** The Deployment and Service the reconciler writes for an endpoint role (contracts/inference-endpoints.ts). */
function endpointObjects(endpoint: string, image: string, replicas: number) {
  const name = endpointObjectName(endpoint, 'primary');
  const labels = {
    [ENDPOINT_LABELS.managedBy]: ENDPOINT_LABELS.managedByValue,
    [ENDPOINT_LABELS.endpoint]: endpoint,
    [ENDPOINT_LABELS.role]: 'primary',
    [ENDPOINT_LABELS.generation]: '1',
  };
  const selector = { [ENDPOINT_LABELS.endpoint]: endpoint, [ENDPOINT_LABELS.role]: 'primary' };
  const deployment: V1Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS, labels },
    spec: {
      replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: 'model',
              image,
              ports: [{ containerPort: 8000 }],
              readinessProbe: { httpGet: { path: '/health', port: 8000 } },
            },
            {
              name: 'tls-sidecar',
              image: 'public.ecr.aws/docker/library/nginx:1.27',
              ports: [{ containerPort: MODEL_TLS_PORT }],
            },
          ],
        },
      },
    },
  };
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: NS, labels },
    spec: { selector, ports: [{ name: 'https', port: MODEL_TLS_PORT, targetPort: MODEL_TLS_PORT }] },
  };
  return { deployment, service };
}

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function podsOf(endpoint: string): V1Pod[] {
  const pods = sim.list('v1', 'Pod', NS) as unknown as V1Pod[];
  return pods.filter((p) => p.metadata?.labels?.[ENDPOINT_LABELS.endpoint] === endpoint);
}

function ready(pod: V1Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
}

async function deploy(endpoint: string, image: string, replicas: number): Promise<void> {
  const { deployment, service } = endpointObjects(endpoint, image, replicas);
  await apps.createNamespacedDeployment({ namespace: NS, body: deployment });
  await core.createNamespacedService({ namespace: NS, body: service });
  await until(`${endpoint} ready`, async () => {
    const d = await apps.readNamespacedDeployment({
      name: endpointObjectName(endpoint, 'primary'),
      namespace: NS,
    });
    return d.status?.readyReplicas === replicas ? d : undefined;
  });
  await putEndpoint(
    dynamo.client(),
    table,
    endpointRecord(endpoint, MODEL_TLS_PORT, { service: endpointServiceHost(endpoint, 'primary') }),
  );
}

const completion = (prompt: string, stream = true) => JSON.stringify({ prompt, max_tokens: 4, stream });

function post(endpoint: string, body: string) {
  return send(base, `/inference/${endpoint}/v1/completions`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
  });
}

/** The `text` of every SSE event of a completion stream, in order. */
function streamedTokens(text: string): string[] {
  return text
    .split('\n\n')
    .filter((e) => e.startsWith('data: ') && e !== 'data: [DONE]')
    .map((e) => (JSON.parse(e.slice(6)) as { choices: { text: string }[] }).choices[0]?.text ?? '');
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });
}

beforeAll(async () => {
  const ca = createLocalCa('pod-model-runtime test CA');
  const simRef: { current?: KubeApiSimulator } = {};
  runtime = new PodModelRuntime({
    ca,
    sampleImage: SAMPLE_IMAGE,
    modelServer: { tokenDelayMs: 5 },
    serviceHostsFor: (pod) => services.serviceHostsFor(pod),
  });
  services = createServiceProxy(
    () => simRef.current,
    (ns, name, uid) => runtime.portOf(ns, name, uid),
  );
  sim = await startKubeApiSimulator({
    kubelet: { pendingMs: 20 },
    deploymentPods: true,
    podRuntime: runtime,
  });
  simRef.current = sim;
  const kc = sim.kubeConfig();
  apps = kc.makeApiClient(AppsV1Api);
  core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: NS } } });
  dynamo = await startLocalDynamo({ tables: [TABLES.inferenceEndpoints] });
  proxy = await createInferenceProxy({
    config: { region: REGION, upstreamTimeoutMs: 5_000, streamIdleTimeoutMs: 30_000, endpointCacheTtlMs: 0 },
    envelope: testEnvelopeVerifier(),
    endpoints: new DynamoEndpointSource(dynamo.client(), table),
    ca: ca.cert,
    resolveUpstream: (host, port) => services.resolve(host, port),
    logger: silentServiceLogger(),
  });
  base = await proxy.app.listen({ host: '127.0.0.1', port: 0 });
}, 60_000);

afterAll(async () => {
  await proxy?.app.close();
  await sim?.close();
  await runtime?.close();
  await dynamo?.close();
});

describe('a Deployment with the sample image', () => {
  test('runs one model server per Ready pod, reached by Service host round-robin, streaming tokens', async () => {
    await deploy('demo', SAMPLE_IMAGE, 2);
    const pods = podsOf('demo');
    expect(pods).toHaveLength(2);
    expect(pods.every(ready)).toBe(true);
    // Pods belong to a ReplicaSet the Deployment owns, as the Deployment controller makes them.
    const rs = sim.list('apps/v1', 'ReplicaSet', NS).filter((r) => r.metadata.name.startsWith('ep-demo-'));
    expect(rs).toHaveLength(1);
    expect(pods.every((p) => p.metadata?.ownerReferences?.[0]?.name === rs[0]?.metadata.name)).toBe(true);

    const ports = pods.map((p) => runtime.portOf(NS, p.metadata?.name ?? '', p.metadata?.uid ?? ''));
    expect(ports.every((p) => typeof p === 'number')).toBe(true);
    const host = endpointServiceHost('demo', 'primary');
    const picked = [];
    for (let i = 0; i < 4; i++) picked.push((await services.resolve(host, MODEL_TLS_PORT)).port);
    expect(new Set(picked)).toEqual(new Set(ports));
    expect(picked[0]).not.toBe(picked[1]);
    expect(picked[0]).toBe(picked[2]);

    const answer = await post('demo', completion('Hello'));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toContain('text/event-stream');
    expect(streamedTokens(answer.text)).toEqual([0, 1, 2, 3].map((i) => tokenFor('Hello', i)));
    expect(answer.text.endsWith('data: [DONE]\n\n')).toBe(true);

    // `kubectl logs` of the model container says what serves the pod.
    const log = await core.readNamespacedPodLog({
      name: pods[0]?.metadata?.name ?? '',
      namespace: NS,
      container: 'model',
    });
    expect(log).toContain('local sample model server listening on https://127.0.0.1:');
    expect(log).toContain(host);
  });

  test('scaling down stops the removed pod’s server; every request still reaches a running one', async () => {
    const before = podsOf('demo').map((p) =>
      runtime.portOf(NS, p.metadata?.name ?? '', p.metadata?.uid ?? ''),
    );
    const d = await apps.readNamespacedDeployment({ name: 'ep-demo', namespace: NS });
    await apps.replaceNamespacedDeployment({
      name: 'ep-demo',
      namespace: NS,
      body: { ...d, spec: { ...d.spec!, replicas: 1 } },
    });
    await until('one pod', () => (podsOf('demo').length === 1 ? true : undefined));
    const [kept] = podsOf('demo').map((p) =>
      runtime.portOf(NS, p.metadata?.name ?? '', p.metadata?.uid ?? ''),
    );
    const gone = before.filter((p) => p !== kept);
    expect(gone).toHaveLength(1);
    expect(
      await until('server stopped', async () => ((await refused(gone[0] ?? 0)) ? true : undefined)),
    ).toBe(true);
    for (let i = 0; i < 3; i++) expect((await post('demo', completion('Hi', false))).status).toBe(200);
  });

  test('deleting the Deployment stops its model servers: the endpoint answers 502', async () => {
    const ports = podsOf('demo').map((p) =>
      runtime.portOf(NS, p.metadata?.name ?? '', p.metadata?.uid ?? ''),
    );
    await apps.deleteNamespacedDeployment({ name: 'ep-demo', namespace: NS });
    await until('pods gone', () => (podsOf('demo').length === 0 ? true : undefined));
    for (const port of ports)
      expect(await until('refused', async () => ((await refused(port ?? 0)) ? true : undefined))).toBe(true);
    // The Service remains with no ready endpoints: kube-proxy rejects the connection.
    await expect(
      services.resolve(endpointServiceHost('demo', 'primary'), MODEL_TLS_PORT),
    ).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    const answer = await post('demo', completion('Hello'));
    expect(answer.status).toBe(502);
    expect(answer.text).toContain('connection refused');
  });
});

describe('a pod deleted while it streams', () => {
  test('finishes the stream in flight (grace period), while new requests find no endpoint', async () => {
    await deploy('drain', SAMPLE_IMAGE, 1);
    const body = JSON.stringify({ prompt: 'long', max_tokens: 100, stream: true });
    let deleted: Promise<unknown> | undefined;
    const answer = await send(base, '/inference/drain/v1/completions', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
      onChunk: () => {
        deleted ??= apps.deleteNamespacedDeployment({ name: 'ep-drain', namespace: NS });
      },
    });
    await deleted;
    expect(answer.status).toBe(200);
    expect(streamedTokens(answer.text)).toHaveLength(100);
    expect(answer.text.endsWith('data: [DONE]\n\n')).toBe(true);
    await until('pods gone', () => (podsOf('drain').length === 0 ? true : undefined));
    expect((await post('drain', completion('again'))).status).toBe(502);
  });
});

describe('a Deployment with another image', () => {
  test('turns Ready and answers as a stub that says the image is not runnable locally', async () => {
    await deploy('other', OTHER_IMAGE, 1);
    const health = await send(base, '/inference/other/health');
    expect(health.status).toBe(200);
    const answer = await post('other', completion('Hello'));
    expect(answer.status).toBe(501);
    expect(JSON.parse(answer.text)).toEqual({ detail: stubDetail(OTHER_IMAGE) });
    expect(answer.text).toContain(`image ${OTHER_IMAGE} is not runnable locally`);
  });

  test('a new image rolls out through a new ReplicaSet; the old pods go once the new ones are Ready', async () => {
    const d = await apps.readNamespacedDeployment({ name: 'ep-other', namespace: NS });
    const containers = d.spec?.template.spec?.containers ?? [];
    containers[0] = { ...containers[0]!, image: SAMPLE_IMAGE };
    await apps.replaceNamespacedDeployment({ name: 'ep-other', namespace: NS, body: d });
    await until('rolled out', () => {
      const pods = podsOf('other');
      return pods.length === 1 && ready(pods[0]!) && pods[0]?.spec?.containers[0]?.image === SAMPLE_IMAGE
        ? true
        : undefined;
    });
    const sets = sim.list('apps/v1', 'ReplicaSet', NS).filter((r) => r.metadata.name.startsWith('ep-other-'));
    expect(sets.map((r) => (r.spec as { replicas: number }).replicas).sort()).toEqual([0, 1]);
    const answer = await post('other', completion('Hey'));
    expect(answer.status).toBe(200);
    expect(streamedTokens(answer.text)).toEqual([0, 1, 2, 3].map((i) => tokenFor('Hey', i)));
  });
});

describe('Service resolution refuses what a cluster would refuse', () => {
  test('an unknown Service or namespace does not resolve; another port is refused; IP literals pass', async () => {
    await expect(
      services.resolve('ep-nope.gco-inference.svc.cluster.local', MODEL_TLS_PORT),
    ).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
    await expect(
      services.resolve('ep-other.nowhere.svc.cluster.local', MODEL_TLS_PORT),
    ).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
    await expect(services.resolve('example.com', 443)).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(services.resolve(endpointServiceHost('other', 'primary'), 80)).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
    await expect(services.resolve('127.0.0.1', 1234)).resolves.toEqual({ host: '127.0.0.1', port: 1234 });
  });

  test('a record naming a Service that does not exist answers 502 (name resolution failed)', async () => {
    await putEndpoint(
      dynamo.client(),
      table,
      endpointRecord('ghost', MODEL_TLS_PORT, { service: endpointServiceHost('ghost', 'primary') }),
    );
    const answer = await post('ghost', completion('Hello'));
    expect(answer.status).toBe(502);
    expect(answer.text).toContain('name resolution failed');
  });

  test('pods without a `model` container run no server and stay Ready', async () => {
    await core.createNamespacedPod({
      namespace: NS,
      body: { metadata: { name: 'plain' }, spec: { containers: [{ name: 'app', image: OTHER_IMAGE }] } },
    });
    const pod = await until('plain Ready', async () => {
      const p = await core.readNamespacedPod({ name: 'plain', namespace: NS });
      return ready(p) ? p : undefined;
    });
    expect(runtime.portOf(NS, 'plain', pod.metadata?.uid ?? '')).toBeUndefined();
  });
});
