/** What the app owner wires: createQueue() from the environment, routes, readiness, onClose. */
import { loadPolicyConfig, ValidationPolicy } from '../../../cluster/manifest-processor/src/policy/index.js';
import {
  createQueue,
  loadQueueConfig,
  QUEUE_PREFIX,
  queueRoutes,
  type Queue,
} from '../../../cluster/manifest-processor/src/queue/index.js';
import { silentServiceLogger } from '../../../cluster/shared/logger.js';
import type { Service } from '../../../cluster/shared/service.js';
import { startLocalDynamo, type LocalDynamo } from '../../../local/dynamodb.js';
import {
  kubeConfigFor,
  startKubeApiSimulator,
  type KubeApiSimulator,
} from '../../../local/kube-api-simulator/index.js';
import { POLICY_ENV } from '../../support/cluster-fixtures.js';
import { startPluginService } from '../../support/plugin-service.js';
import { signedCaller } from '../../support/signed-call.js';
import { sleep, waitFor } from '../../support/wait-for.js';
import { jobManifest, REGION } from './harness.js';

describe('central job queue: wiring into a service', () => {
  let dynamo: LocalDynamo;
  let sim: KubeApiSimulator;
  let service: Service | undefined;
  let base: string;

  beforeEach(async () => {
    dynamo = await startLocalDynamo();
    sim = await startKubeApiSimulator({ kubelet: { pendingMs: 20, runningMs: 40 } });
  });
  afterEach(async () => {
    await service?.app.close();
    service = undefined;
    await sim.close();
    await dynamo.close();
  });

  async function start(env: Record<string, string>): Promise<Queue> {
    const policy = new ValidationPolicy(loadPolicyConfig(POLICY_ENV));
    const queue = createQueue({
      config: loadQueueConfig({ QUEUE_REGION: REGION, QUEUE_POLL_INTERVAL_MS: '100', ...dynamo.env, ...env }),
      dynamodb: dynamo.client(),
      kubeConfig: kubeConfigFor(sim.url),
      policy,
      spotPrices: { currentPrice: async () => undefined },
      logger: silentServiceLogger(),
    });
    const started = await startPluginService({
      description: 'wiring test',
      readiness: queue.readiness,
      onClose: () => queue.close(),
      routes: async (app) => {
        await app.register(queueRoutes, { ...queue.routeDeps, prefix: QUEUE_PREFIX });
      },
    });
    service = started.service;
    base = started.base;
    queue.start();
    return queue;
  }

  const call = (method: string, path: string, body?: unknown) => signedCaller(base)(method, path, body);
  test('CENTRAL_QUEUE_WORKER_ENABLED runs the worker: jobs finish without polls; /readyz includes it', async () => {
    const queue = await start({ CENTRAL_QUEUE_WORKER_ENABLED: 'true' });
    expect(queue.worker.running).toBe(true);
    const submitted = await call('POST', '/api/v1/queue/jobs', {
      manifest: jobManifest('wired'),
      target_region: REGION,
    });
    expect(submitted.status).toBe(200);
    const id = submitted.body.job_id as string;
    await waitFor(async () =>
      (await call('GET', `/api/v1/queue/jobs/${id}`)).body.status === 'succeeded' ? true : undefined,
    );
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ queue_worker: 'ok' });

    await service?.app.close(); // onClose stops the worker
    service = undefined;
    expect(queue.worker.running).toBe(false);
  });

  test('a submission wakes the continuous worker: it does not wait for the poll interval', async () => {
    // An hour between passes: only the wake can get the job dispatched within the test.
    const queue = await start({ CENTRAL_QUEUE_WORKER_ENABLED: 'true', QUEUE_POLL_INTERVAL_MS: '3600000' });
    // Let the first pass find the queue empty; the loop then sleeps for the interval.
    await sleep(1000);
    const submitted = await call('POST', '/api/v1/queue/jobs', {
      manifest: jobManifest('woken'),
      target_region: REGION,
    });
    expect(submitted.status).toBe(200);
    const id = submitted.body.job_id as string;
    await waitFor(async () =>
      (await call('GET', `/api/v1/queue/jobs/${id}`)).body.status === 'queued' ? undefined : true,
    );
    expect(sim.list('batch/v1', 'Job', 'svc-jobs').length).toBeGreaterThanOrEqual(1);
    // A job for another region does not concern this worker and wakes nothing.
    queue.worker.queued('eu-west-1');
    expect(queue.worker.running).toBe(true);
  });

  test('readiness fails once the worker task died', async () => {
    const queue = await start({
      CENTRAL_QUEUE_WORKER_ENABLED: 'true',
      JOB_QUEUE_TABLE: 'missing-table',
      QUEUE_MAX_CONSECUTIVE_FAILURES: '2',
    });
    await waitFor(async () => (queue.worker.running ? undefined : true));
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ queue_worker: 'not_ready' });
  });

  test('without CENTRAL_QUEUE_WORKER_ENABLED nothing runs in the background; poll still works', async () => {
    const queue = await start({});
    expect(queue.worker.running).toBe(false);
    expect(queue.readiness).toEqual({});
    const submitted = await call('POST', '/api/v1/queue/jobs', {
      manifest: jobManifest('manual'),
      target_region: REGION,
    });
    const poll = await call('POST', '/api/v1/queue/poll?limit=1');
    expect(poll.body.dispatched).toEqual([expect.objectContaining({ job_id: submitted.body.job_id })]);
  });
});
