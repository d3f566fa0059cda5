/**
 * The central job queue against dynalite and the Kubernetes API simulator: the queue routes on a real
 * service (signed HTTP on 127.0.0.1), its worker on a clock the test can move, EC2 spot prices through
 * aws-sdk-client-mock, and extra workers for crash scenarios.
 */
import { randomUUID } from 'node:crypto';
import { DescribeSpotPriceHistoryCommand, EC2Client, type SpotPrice } from '@aws-sdk/client-ec2';
import { mockClient, type AwsClientStub } from 'aws-sdk-client-mock';
import { loadPolicyConfig, ValidationPolicy } from '../../../cluster/manifest-processor/src/policy/index.js';
import {
  Ec2SpotPriceSource,
  KubeJobDispatcher,
  QUEUE_JOB_LABEL,
  QueueStore,
  QueueWorker,
  QUEUE_PREFIX,
  queueRoutes,
  type JobDispatcher,
  type QueuedJob,
  type QueueWorkerOptions,
} from '../../../cluster/manifest-processor/src/queue/index.js';
import { enqueuedJob } from '../../../cluster/manifest-processor/src/queue/submission.js';
import type { Service } from '../../../cluster/shared/service.js';
import { LOCAL_CREDENTIALS, startLocalDynamo, type LocalDynamo } from '../../../local/dynamodb.js';
import {
  kubeConfigFor,
  startKubeApiSimulator,
  type KubeApiSimulator,
  type KubeObject,
} from '../../../local/kube-api-simulator/index.js';
import {
  jobManifest as clusterJobManifest,
  POLICY_ENV,
  type JobManifestOptions,
} from '../../support/cluster-fixtures.js';
import { startPluginService } from '../../support/plugin-service.js';
import { signedCaller, type SignedCall, type SignedReply } from '../../support/signed-call.js';
import { waitFor } from '../../support/wait-for.js';

export const REGION = 'us-east-1';
/** The regions a queued job may target in these tests (DEPLOYMENT_REGIONS). */
const DEPLOYMENT_REGIONS = [REGION, 'eu-west-1'];

export interface HarnessOptions {
  leaseMs?: number;
  maxAttempts?: number;
  pageSize?: number;
  spotRecheckMs?: number;
  maxConsecutiveFailures?: number;
}

export interface QueueHarness {
  dynamo: LocalDynamo;
  sim: KubeApiSimulator;
  store: QueueStore;
  policy: ValidationPolicy;
  /** The worker POST /queue/poll runs ("worker-main"). */
  worker: QueueWorker;
  service: Service;
  base: string;
  ec2: AwsClientStub<EC2Client>;
  /** Milliseconds added to the wall clock for every worker built here. */
  clock: { offsetMs: number; now(): number };
  call: SignedCall;
  submit(body: Record<string, unknown>, headers?: Record<string, string>): Promise<SignedReply>;
  /** Another worker of the same region on the same table, cluster and clock. */
  makeWorker(id: string, overrides?: Partial<QueueWorkerOptions>): QueueWorker;
  realDispatcher(): KubeJobDispatcher;
  /** Current spot price per AZ of an instance type (undefined: EC2 reports none). */
  setSpotPrices(instanceType: string, byZone: Record<string, number> | undefined): void;
  /** Kubernetes Jobs the queue created (labelled with the queue job id). */
  queueJobs(jobId?: string): KubeObject[];
  waitFor: typeof waitFor;
  close(): Promise<void>;
}

/** The shared Job manifest with the queue tests' small requests, so many fit the simulated nodes at once. */
export function jobManifest(name: string, overrides: JobManifestOptions = {}) {
  return clusterJobManifest(name, {
    cpu: '100m',
    memory: '64Mi',
    command: ['sh', '-c', 'echo hello from the queue'],
    ...overrides,
  });
}

/** A job for REGION with the shared manifest, as a submission without an idempotency key stores it. */
export function queuedTestJob(
  name: string,
  opts: { priority?: number; createdAt?: string; requestHash?: string } = {},
): QueuedJob {
  return enqueuedJob(
    {
      job_id: randomUUID(),
      target_region: REGION,
      namespace: 'svc-jobs',
      priority: opts.priority ?? 0,
      labels: null,
      manifest: jobManifest(name),
      max_spot_price: null,
      spot_instance_type: null,
      idempotency_key: null,
      request_hash: opts.requestHash ?? 'queue-test',
    },
    opts.createdAt ?? new Date().toISOString(),
  );
}

export async function startQueueHarness(opts: HarnessOptions = {}): Promise<QueueHarness> {
  const dynamo = await startLocalDynamo();
  const sim = await startKubeApiSimulator({ kubelet: { pendingMs: 20, runningMs: 40 } });
  const kubeConfig = kubeConfigFor(sim.url);
  const store = new QueueStore(dynamo.client(), dynamo.env.JOB_QUEUE_TABLE ?? '');
  const policy = new ValidationPolicy(loadPolicyConfig(POLICY_ENV));

  const ec2Client = new EC2Client({ region: REGION, credentials: LOCAL_CREDENTIALS });
  const ec2 = mockClient(ec2Client);
  const prices = new Map<string, Record<string, number> | undefined>();
  ec2.on(DescribeSpotPriceHistoryCommand).callsFake((input: { InstanceTypes?: string[] }) => {
    const type = input.InstanceTypes?.[0] ?? '';
    const history: SpotPrice[] = Object.entries(prices.get(type) ?? {}).map(([zone, price]) => ({
      AvailabilityZone: zone,
      InstanceType: type as SpotPrice['InstanceType'],
      ProductDescription: 'Linux/UNIX',
      SpotPrice: price.toFixed(6),
      Timestamp: new Date(),
    }));
    return { SpotPriceHistory: history };
  });
  const spotPrices = new Ec2SpotPriceSource({ cacheMs: 0, clientFor: () => ec2Client });

  const clock = {
    offsetMs: 0,
    now() {
      return Date.now() + clock.offsetMs;
    },
  };
  const workers: QueueWorker[] = [];
  const makeWorker = (id: string, overrides: Partial<QueueWorkerOptions> = {}) => {
    const worker = new QueueWorker({
      store,
      dispatcher: new KubeJobDispatcher(kubeConfig),
      spotPrices,
      policy,
      region: REGION,
      workerId: id,
      leaseMs: opts.leaseMs ?? 30_000,
      maxAttempts: opts.maxAttempts ?? 3,
      pollIntervalMs: 20,
      batchSize: 5,
      spotRecheckMs: opts.spotRecheckMs ?? 0,
      retentionDays: 30,
      maxConsecutiveFailures: opts.maxConsecutiveFailures ?? 3,
      ...(opts.pageSize ? { pageSize: opts.pageSize } : {}),
      now: () => clock.now(),
      ...overrides,
    });
    workers.push(worker);
    return worker;
  };
  const worker = makeWorker('worker-main');

  const { service, base } = await startPluginService({
    description: 'queue routes under test',
    routes: async (app) => {
      await app.register(queueRoutes, {
        prefix: QUEUE_PREFIX,
        store,
        policy,
        worker,
        deploymentRegions: DEPLOYMENT_REGIONS,
        now: () => clock.now(),
      });
    },
  });
  const call = signedCaller(base);

  return {
    dynamo,
    sim,
    store,
    policy,
    worker,
    service,
    base,
    ec2,
    clock,
    call,
    submit: (body, headers) => call('POST', '/api/v1/queue/jobs', body, headers),
    makeWorker,
    realDispatcher: () => new KubeJobDispatcher(kubeConfig),
    setSpotPrices(instanceType, byZone) {
      prices.set(instanceType, byZone);
    },
    queueJobs(jobId) {
      return sim.list('batch/v1', 'Job').filter((j) => {
        const label = (j.metadata.labels as Record<string, string> | undefined)?.[QUEUE_JOB_LABEL];
        return label !== undefined && (jobId === undefined || label === jobId);
      });
    },
    waitFor,
    async close() {
      for (const w of workers) await w.stop();
      await service.app.close();
      ec2.restore();
      ec2Client.destroy();
      await sim.close();
      await dynamo.close();
    },
  };
}

/** A dispatcher that runs `before`/`after` hooks around the real one: a worker that hangs or dies there. */
export function hookedDispatcher(
  real: JobDispatcher,
  hooks: { before?: () => Promise<void>; after?: () => Promise<void> },
): JobDispatcher {
  return {
    async apply(job) {
      await hooks.before?.();
      const ref = await real.apply(job);
      await hooks.after?.();
      return ref;
    },
    observe: (jobs) => real.observe(jobs),
    ...(real.withdraw ? { withdraw: real.withdraw.bind(real) } : {}),
  };
}

/** A promise plus its resolver: a gate the test opens when it wants the stuck worker to continue. */
export function gate(): { wait: () => Promise<void>; open: () => void; reached: Promise<void> } {
  let open!: () => void;
  let markReached!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (markReached = resolve));
  return {
    wait: () => {
      markReached();
      return opened;
    },
    open,
    reached,
  };
}
