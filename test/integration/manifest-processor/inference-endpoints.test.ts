/**
 * The inference endpoint lifecycle API over real HTTP with the envelope, as app.ts registers it, against
 * dynalite: every route's happy path and refusals, the records it stores for the proxy and the
 * reconcilers, Idempotency-Key replay and optimistic concurrency.
 */
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createManifestProcessor } from '../../../cluster/manifest-processor/src/app.js';
import {
  InferenceEndpointStore,
  loadInferenceEndpointConfig,
} from '../../../cluster/manifest-processor/src/inference-endpoints/index.js';
import { loadPolicyConfig, ValidationPolicy } from '../../../cluster/manifest-processor/src/policy/index.js';
import { documentClient } from '../../../cluster/shared/dynamo.js';
import { silentServiceLogger } from '../../../cluster/shared/logger.js';
import type { Service } from '../../../cluster/shared/service.js';
import { endpointServiceHost, MODEL_TLS_PORT } from '../../../contracts/inference-endpoints.js';
import { TABLES } from '../../../contracts/tables.js';
import { startLocalDynamo, type LocalDynamo } from '../../../local/dynamodb.js';
import { registerInferenceEndpoint } from '../../../local/inference-endpoint.js';
import {
  kubeConfigFor,
  startKubeApiSimulator,
  type KubeApiSimulator,
} from '../../../local/kube-api-simulator/index.js';
import { IMAGE, POLICY_ENV, testEnvelopeVerifier } from '../../support/cluster-fixtures.js';
import { signedCaller, type SignedCall } from '../../support/signed-call.js';

const BASE = '/api/v1/inference/endpoints';
const REGIONS = ['us-east-1', 'eu-west-1'];
const IMAGE_2 = 'public.ecr.aws/docker/library/busybox:1.37';
const IMAGE_3 = '123456789012.dkr.ecr.us-east-1.amazonaws.com/models/llama:v3';

const body = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  image: IMAGE,
  regions: ['us-east-1'],
  ...extra,
});

describe('inference endpoint lifecycle API', () => {
  let dynamo: LocalDynamo;
  let sim: KubeApiSimulator;
  let service: Service;
  let base: string;
  let call: SignedCall;
  let table: string;

  beforeAll(async () => {
    dynamo = await startLocalDynamo({ tables: [TABLES.inferenceEndpoints] });
    sim = await startKubeApiSimulator();
    const config = loadInferenceEndpointConfig({ ...dynamo.env, INFERENCE_MAX_REPLICAS: '8' });
    table = config.tableName;
    service = await createManifestProcessor({
      config: { clusterName: 'sim', region: 'us-east-1', defaultJobNamespace: 'svc-jobs' },
      policy: new ValidationPolicy(loadPolicyConfig(POLICY_ENV)),
      kubeConfig: kubeConfigFor(sim.url),
      envelope: testEnvelopeVerifier(),
      logger: silentServiceLogger(),
      inferenceEndpoints: {
        store: new InferenceEndpointStore(dynamo.client(), table),
        config,
        deploymentRegions: REGIONS,
      },
    });
    base = await service.app.listen({ host: '127.0.0.1', port: 0 });
    call = signedCaller(base);
  });
  afterAll(async () => {
    await service?.app.close();
    await sim?.close();
    await dynamo?.close();
  });

  const items = async () =>
    (await documentClient(dynamo.client()).send(new ScanCommand({ TableName: table }))).Items ?? [];
  const item = async (name: string) => (await items()).find((i) => i.endpoint_name === name);

  test('create: 201 with the defaults, generation 1 and no region yet; the record carries the routing fields', async () => {
    const created = await call(
      'POST',
      BASE,
      body('alpha', { resources: { cpu: '2', memory: '8Gi', gpu: 1 } }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      name: 'alpha',
      spec: {
        image: IMAGE,
        container_port: 8000,
        serving_paths: ['/v1/completions', '/v1/chat/completions', '/v1/models/*'],
        health_path: '/health',
        replicas: 1,
        resources: { cpu: '2', memory: '8Gi', gpu: 1 },
        env: {},
        regions: ['us-east-1'],
        stopped: false,
        canary: null,
        previous_image: null,
      },
      generation: 1,
      deleting: false,
      created_at: expect.any(String),
      updated_at: created.body.created_at,
      regions: {},
    });
    expect(await item('alpha')).toMatchObject({
      endpoint_name: 'alpha',
      generation: 1,
      deleting: false,
      regions: {},
      service: endpointServiceHost('alpha', 'primary'),
      port: MODEL_TLS_PORT,
      canary: null,
      serving_paths: ['/v1/completions', '/v1/chat/completions', '/v1/models/*'],
      health_path: '/health',
    });

    const again = await call('POST', BASE, body('alpha', { image: IMAGE_2 }));
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe('Inference endpoint alpha already exists');
    expect((await item('alpha'))?.spec.image).toBe(IMAGE);
  });

  test('create: every field given is stored as given', async () => {
    const full = body('full', {
      image: IMAGE_3,
      port: 9000,
      serving_paths: ['/generate', '/v2/*'],
      health_path: '/ready',
      replicas: 0,
      env: { MODEL_ID: 'llama', 'dotted.name': 'x', _X: '' },
      regions: ['eu-west-1', 'us-east-1'],
    });
    const created = await call('POST', BASE, full);
    expect(created.status).toBe(201);
    expect(created.body.spec).toMatchObject({
      image: IMAGE_3,
      container_port: 9000,
      serving_paths: ['/generate', '/v2/*'],
      health_path: '/ready',
      replicas: 0,
      env: { MODEL_ID: 'llama', 'dotted.name': 'x', _X: '' },
      regions: ['eu-west-1', 'us-east-1'],
    });
    expect(await item('full')).toMatchObject({
      serving_paths: ['/generate', '/v2/*'],
      health_path: '/ready',
    });
  });

  const refusals: [string, Record<string, unknown>, (string | number)[]][] = [
    ['upper-case name', body('Bad'), ['body', 'name']],
    ['name starting with a digit', body('1abc'), ['body', 'name']],
    ['name of 41 characters', body(`a${'b'.repeat(40)}`), ['body', 'name']],
    ['untrusted registry', body('r1', { image: 'ghcr.io/evil/model:1' }), ['body', 'image']],
    ['untrusted Docker Hub organisation', body('r2', { image: 'evil/model:1' }), ['body', 'image']],
    [
      'malformed image reference',
      body('r3', { image: 'public.ecr.aws/docker/library/UP:1' }),
      ['body', 'image'],
    ],
    ['image with whitespace', body('r4', { image: 'busybox latest' }), ['body', 'image']],
    ['port of the TLS sidecar', body('r5', { port: 8443 }), ['body', 'port']],
    ['port 0', body('r6', { port: 0 }), ['body', 'port']],
    ['port 65536', body('r7', { port: 65536 }), ['body', 'port']],
    ['relative serving path', body('r8', { serving_paths: ['v1/x'] }), ['body', 'serving_paths', 0]],
    ['"*" inside a serving path', body('r9', { serving_paths: ['/v1/*/x'] }), ['body', 'serving_paths', 0]],
    [
      'dot segment in a serving path',
      body('r10', { serving_paths: ['/a/../b'] }),
      ['body', 'serving_paths', 0],
    ],
    ['no serving path', body('r11', { serving_paths: [] }), ['body', 'serving_paths']],
    ['relative health path', body('r12', { health_path: 'health' }), ['body', 'health_path']],
    ['prefix health path', body('r13', { health_path: '/h/*' }), ['body', 'health_path']],
    ['negative replicas', body('r14', { replicas: -1 }), ['body', 'replicas']],
    ['replicas above INFERENCE_MAX_REPLICAS', body('r15', { replicas: 9 }), ['body', 'replicas']],
    ['fractional GPU', body('r16', { resources: { gpu: 1.5 } }), ['body', 'resources', 'gpu']],
    ['negative GPU', body('r17', { resources: { gpu: -1 } }), ['body', 'resources', 'gpu']],
    [
      'GPUs above the ceiling over replicas',
      body('r18', { replicas: 3, resources: { gpu: 2 } }),
      ['body', 'resources', 'gpu'],
    ],
    ['CPU that is not a quantity', body('r19', { resources: { cpu: 'lots' } }), ['body', 'resources', 'cpu']],
    [
      'memory above the ceiling',
      body('r20', { resources: { memory: '65Gi' } }),
      ['body', 'resources', 'memory'],
    ],
    ['unknown resources field', body('r21', { resources: { gpus: 1 } }), ['body', 'resources', 'gpus']],
    ['env name starting with a digit', body('r22', { env: { '1X': 'v' } }), ['body', 'env', '1X']],
    ['env name with "="', body('r23', { env: { 'A=B': 'v' } }), ['body', 'env', 'A=B']],
    ['env value that is not a string', body('r24', { env: { A: 1 } }), ['body', 'env', 'A']],
    ['no region', body('r25', { regions: [] }), ['body', 'regions']],
    ['region outside the deployment', body('r26', { regions: ['ap-south-1'] }), ['body', 'regions', 0]],
    ['repeated region', body('r27', { regions: ['us-east-1', 'us-east-1'] }), ['body', 'regions']],
    ['unknown top-level field', body('r28', { replica: 2 }), ['body', 'replica']],
    ['regions missing', { name: 'r29', image: IMAGE }, ['body', 'regions']],
  ];

  test.each(refusals)('create refuses %s: 422 at the field, nothing stored', async (_what, request, loc) => {
    const before = (await items()).length;
    const refused = await call('POST', BASE, request);
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc })]));
    expect(refused.text).not.toMatch(/ConditionalCheck|at .*\.(ts|js):\d+/);
    expect((await items()).length).toBe(before);
  });

  test('get and list: the view; 404 for an unknown name', async () => {
    await call('POST', BASE, body('listed'));
    const got = await call('GET', `${BASE}/listed`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ name: 'listed', generation: 1, deleting: false, regions: {} });
    const list = await call('GET', BASE);
    expect(list.status).toBe(200);
    const names = list.body.endpoints.map((e: { name: string }) => e.name);
    expect(names).toContain('listed');
    expect(names).toEqual([...names].sort());
    expect(list.body.count).toBe(names.length);
    const missing = await call('GET', `${BASE}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: 'Inference endpoint nope not found' });
  });

  test('the lifecycle: scale, update-image, canary, promote, rollback, stop, start, each a new generation', async () => {
    expect((await call('POST', BASE, body('life'))).status).toBe(201);
    const path = `${BASE}/life`;

    const scaled = await call('POST', `${path}/scale`, { replicas: 2, expected_generation: 1 });
    expect(scaled.status).toBe(200);
    expect(scaled.body).toMatchObject({ generation: 2, spec: { replicas: 2 } });

    const imaged = await call('POST', `${path}/image`, { image: IMAGE_2 });
    expect(imaged.body).toMatchObject({ generation: 3, spec: { image: IMAGE_2, previous_image: IMAGE } });

    const canary = await call('POST', `${path}/canary`, { image: IMAGE_3, weight: 20 });
    expect(canary.status).toBe(200);
    expect(canary.body).toMatchObject({ generation: 4, spec: { canary: { image: IMAGE_3, weight: 20 } } });
    expect((await item('life'))?.canary).toEqual({
      service: endpointServiceHost('life', 'canary'),
      port: MODEL_TLS_PORT,
      weight: 20,
    });

    const promoted = await call('POST', `${path}/promote`, {});
    expect(promoted.body).toMatchObject({
      generation: 5,
      spec: { image: IMAGE_3, previous_image: IMAGE_2, canary: null },
    });
    expect((await item('life'))?.canary).toBeNull();

    const rolledBack = await call('POST', `${path}/rollback`, {});
    expect(rolledBack.body).toMatchObject({
      generation: 6,
      spec: { image: IMAGE_2, previous_image: null, canary: null },
    });
    const again = await call('POST', `${path}/rollback`, {});
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe('Endpoint life has no previous image to roll back to');

    // stop and start accept an absent body; a repeated stop is not a new generation.
    const stopped = await call('POST', `${path}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({ generation: 7, spec: { stopped: true } });
    expect((await call('POST', `${path}/stop`)).body.generation).toBe(7);
    const started = await call('POST', `${path}/start`, { expected_generation: 7 });
    expect(started.body).toMatchObject({ generation: 8, spec: { stopped: false } });
    expect((await item('life'))?.generation).toBe(8);
  });

  test('operations refuse what does not apply: 404, 409 and 422, leaving the record unchanged', async () => {
    await call('POST', BASE, body('refusals'));
    const path = `${BASE}/refusals`;
    const cases: [string, string, unknown, number][] = [
      ['scale', `${BASE}/ghost/scale`, { replicas: 1 }, 404],
      ['promote', `${path}/promote`, {}, 409],
      ['rollback', `${path}/rollback`, {}, 409],
      ['scale', `${path}/scale`, { replicas: 9 }, 422],
      ['scale', `${path}/scale`, { replicas: 1, expected_generation: 2 }, 409],
      ['scale', `${path}/scale`, { replicas: 1, expected_generation: 0 }, 422],
      ['scale', `${path}/scale`, { replicas: '2' }, 422],
      ['scale', `${path}/scale`, {}, 422],
      ['image', `${path}/image`, { image: 'quay.io/x/y:1' }, 422],
      ['canary', `${path}/canary`, { image: IMAGE_2, weight: 0 }, 422],
      ['canary', `${path}/canary`, { image: IMAGE_2, weight: 100 }, 422],
      ['canary', `${path}/canary`, { image: 'evil/x', weight: 10 }, 422],
      ['canary', `${path}/canary`, { image: IMAGE_2, weight: 10, extra: true }, 422],
      ['stop', `${path}/stop`, { force: true }, 422],
      ['stop', `${path}/stop`, null, 422],
      ['start', `${path}/start`, [], 422],
    ];
    for (const [, url, request, status] of cases) {
      const answer = await call('POST', url, request);
      expect([url, answer.status]).toEqual([url, status]);
    }
    expect((await item('refusals'))?.generation).toBe(1);
    const stale = await call('POST', `${path}/scale`, { replicas: 1, expected_generation: 2 });
    expect(stale.body.detail).toMatch(/at generation 1, not the expected 2/);
  });

  test('a region status written by a reconciler survives every API change', async () => {
    await call('POST', BASE, body('observed'));
    const status = {
      state: 'running',
      observed_generation: 1,
      ready_replicas: 1,
      updated_at: new Date().toISOString(),
    };
    await documentClient(dynamo.client()).send(
      new UpdateCommand({
        TableName: table,
        Key: { endpoint_name: 'observed' },
        UpdateExpression: 'SET regions.#r = :s',
        ExpressionAttributeNames: { '#r': 'us-east-1' },
        ExpressionAttributeValues: { ':s': status },
      }),
    );
    const scaled = await call('POST', `${BASE}/observed/scale`, { replicas: 3 });
    expect(scaled.body).toMatchObject({ generation: 2, regions: { 'us-east-1': status } });
    expect((await item('observed'))?.regions).toEqual({ 'us-east-1': status });
  });

  test('delete: 202 with deleting=true and a new generation; repeated 202; other changes 409; unknown 404', async () => {
    await call('POST', BASE, body('doomed'));
    const deleted = await call('DELETE', `${BASE}/doomed`);
    expect(deleted.status).toBe(202);
    expect(deleted.body).toMatchObject({ name: 'doomed', deleting: true, generation: 2 });
    expect(await item('doomed')).toMatchObject({ deleting: true, generation: 2 });
    const repeated = await call('DELETE', `${BASE}/doomed`);
    expect(repeated.status).toBe(202);
    expect(repeated.body.generation).toBe(2);
    const scale = await call('POST', `${BASE}/doomed/scale`, { replicas: 2 });
    expect(scale.status).toBe(409);
    expect(scale.body.detail).toBe('Inference endpoint doomed is being deleted');
    expect((await call('DELETE', `${BASE}/ghost`)).status).toBe(404);
  });

  test('a record registered outside the API is listed with spec null and cannot be changed', async () => {
    await registerInferenceEndpoint(dynamo.client(), table, {
      name: 'sample-model',
      regions: ['us-east-1'],
      service: '127.0.0.1',
      port: 9443,
      servingPaths: ['/v1/completions'],
      healthPath: '/health',
    });
    const got = await call('GET', `${BASE}/sample-model`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      spec: null,
      generation: 0,
      regions: { 'us-east-1': { state: 'running' } },
    });
    const scaled = await call('POST', `${BASE}/sample-model/scale`, { replicas: 2 });
    expect(scaled.status).toBe(409);
    expect((await call('DELETE', `${BASE}/sample-model`)).status).toBe(409);
    expect((await item('sample-model'))?.spec).toBeUndefined();
  });

  test('Idempotency-Key: the same key and body replay the answer and create once; another body is 409', async () => {
    const headers = { 'idempotency-key': 'deploy-7f3a' };
    const first = await call('POST', BASE, body('idem', { replicas: 2 }), headers);
    const replay = await call('POST', BASE, body('idem', { replicas: 2 }), headers);
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBe('false');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect((await items()).filter((i) => i.endpoint_name === 'idem')).toHaveLength(1);

    const other = await call('POST', BASE, body('idem', { replicas: 3 }), headers);
    expect(other.status).toBe(409);
    expect(other.body.detail).toMatch(/Idempotency-Key was already used with a different request body/);
    // Without the key, or with another key, an existing name is simply taken.
    expect((await call('POST', BASE, body('idem', { replicas: 2 }))).status).toBe(409);
    expect(
      (await call('POST', BASE, body('idem', { replicas: 2 }), { 'idempotency-key': 'k2' })).status,
    ).toBe(409);
    expect((await call('POST', BASE, body('idem2'), { 'idempotency-key': 'has space' })).status).toBe(422);
  });

  test('concurrent creates with one key: both answer the one record', async () => {
    const headers = { 'idempotency-key': 'race-key' };
    const answers = await Promise.all([1, 2, 3].map(() => call('POST', BASE, body('raced'), headers)));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    expect(answers.map((a) => a.headers.get('idempotent-replayed')).sort()).toEqual([
      'false',
      'true',
      'true',
    ]);
    expect(new Set(answers.map((a) => a.body.created_at)).size).toBe(1);
  });

  test('two concurrent scales with the same expected_generation: one 200, one 409', async () => {
    await call('POST', BASE, body('contended'));
    const [a, b] = await Promise.all([
      call('POST', `${BASE}/contended/scale`, { replicas: 2, expected_generation: 1 }),
      call('POST', `${BASE}/contended/scale`, { replicas: 3, expected_generation: 1 }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? a : b;
    const stored = await item('contended');
    expect(stored).toMatchObject({ generation: 2, spec: { replicas: winner.body.spec.replicas } });
  });

  test('concurrent changes without expected_generation are retried, never lost', async () => {
    await call('POST', BASE, body('retried'));
    const answers = await Promise.all([
      call('POST', `${BASE}/retried/scale`, { replicas: 4 }),
      call('POST', `${BASE}/retried/image`, { image: IMAGE_2 }),
      call('POST', `${BASE}/retried/canary`, { image: IMAGE_3, weight: 5 }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.generation))).toEqual(new Set([2, 3, 4]));
    expect(await item('retried')).toMatchObject({
      generation: 4,
      spec: { replicas: 4, image: IMAGE_2, canary: { image: IMAGE_3, weight: 5 } },
    });
  });

  test('unsigned requests are refused by the envelope', async () => {
    const res = await fetch(`${base}${BASE}`);
    expect(res.status).toBe(403);
  });
});
