/**
 * Queue drain on the local platform's stores (dynalite + the Kubernetes API simulator): N jobs already
 * queued for one region go to `dispatched` through a continuous QueueWorker with the deployment defaults
 * (docs/queue.md), against the anchor of the same N Jobs created directly with the same client
 * (client-node's BatchV1Api on the same kubeconfig) at the same concurrency. Each trial gets fresh
 * servers; trials alternate which path runs first; medians are reported. `BENCH_QUEUE_JOBS` sets N
 * (default 500), `BENCH_QUEUE_TRIALS` the trials (default 3).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { BatchV1Api } from '@kubernetes/client-node';
import { loadPolicyConfig, ValidationPolicy } from '../cluster/manifest-processor/src/policy/index.js';
import {
  kubernetesManifest,
  KubeJobDispatcher,
  QUEUE_DEFAULTS,
  QueueStore,
  QueueWorker,
  type QueuedJob,
  type SpotPriceSource,
} from '../cluster/manifest-processor/src/queue/index.js';
import { dispatchOrder } from '../cluster/manifest-processor/src/queue/record.js';
import { enqueuedJob } from '../cluster/manifest-processor/src/queue/submission.js';
import type { Transition } from '../cluster/manifest-processor/src/queue/store.js';
import { startLocalDynamo } from '../local/dynamodb.js';
import { kubeConfigFor, startKubeApiSimulator } from '../local/kube-api-simulator/index.js';
import { jobManifest, POLICY_ENV } from '../test/support/cluster-fixtures.js';
import type { BenchFigure, BenchRun } from './figures.js';

const REGION = 'us-east-1';
const JOBS = Number(process.env.BENCH_QUEUE_JOBS ?? 500);
const TRIALS = Number(process.env.BENCH_QUEUE_TRIALS ?? 3);
/** `worker` or `direct` runs one path only (for profiling with `node --cpu-prof`). */
const ONLY = process.env.BENCH_QUEUE_ONLY;
const GOAL_RATIO = 2;
const GOAL_RATE = 20;

const noSpot: SpotPriceSource = { currentPrice: () => Promise.resolve(undefined) };

/** A small Job that succeeds at once in the simulator. */
const BENCH_JOB = {
  labels: { app: 'bench' },
  cpu: '100m',
  memory: '64Mi',
  command: ['sh', '-c', 'echo queued'],
};

function queuedJob(i: number): QueuedJob {
  const createdAt = new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)).toISOString();
  return enqueuedJob(
    {
      job_id: randomUUID(),
      target_region: REGION,
      namespace: 'svc-jobs',
      priority: i % 3 === 0 ? 50 : 0,
      labels: null,
      manifest: jobManifest(`bench-${i}`, BENCH_JOB),
      max_spot_price: null,
      spot_instance_type: null,
      idempotency_key: null,
      request_hash: 'bench',
    },
    createdAt,
  );
}

/** Counts the writes that mark jobs dispatched, and resolves once `n` happened. */
class CountingStore extends QueueStore {
  dispatched = 0;
  private target = Infinity;
  private reached: (() => void) | undefined;

  all(n: number): Promise<void> {
    this.target = n;
    return new Promise((resolve) => (this.reached = resolve));
  }

  override async tryTransitionWithoutRead(jobId: string, t: Transition): Promise<boolean> {
    const done = await super.tryTransitionWithoutRead(jobId, t);
    if (done && t.set.status === 'dispatched' && ++this.dispatched >= this.target) this.reached?.();
    return done;
  }
}

async function withServers<T>(
  body: (s: {
    kube: ReturnType<typeof kubeConfigFor>;
    dynamo: Awaited<ReturnType<typeof startLocalDynamo>>;
  }) => Promise<T>,
): Promise<T> {
  const dynamo = await startLocalDynamo();
  const sim = await startKubeApiSimulator();
  try {
    return await body({ kube: kubeConfigFor(sim.url), dynamo });
  } finally {
    await sim.close();
    await dynamo.close();
  }
}

/** Seconds to create the N Jobs of `jobs` directly, `concurrency` requests at a time. */
async function direct(concurrency: number): Promise<number> {
  return withServers(async ({ kube }) => {
    const batch = kube.makeApiClient(BatchV1Api);
    const bodies = Array.from({ length: JOBS }, (_, i) => kubernetesManifest(queuedJob(i)));
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++]!;
          await batch.createNamespacedJob({ namespace: 'svc-jobs', body, fieldManager: 'bench' });
        }
      }),
    );
    return (performance.now() - started) / 1000;
  });
}

/** Seconds from start() until the continuous worker (deployment defaults) marked all N dispatched. */
async function viaWorker(): Promise<number> {
  return withServers(async ({ kube, dynamo }) => {
    const store = new CountingStore(dynamo.client(), dynamo.env.JOB_QUEUE_TABLE ?? '');
    const jobs = Array.from({ length: JOBS }, (_, i) => queuedJob(i));
    jobs.sort((a, b) => dispatchOrder(a).localeCompare(dispatchOrder(b)));
    for (let i = 0; i < jobs.length; i += 25) {
      await Promise.all(jobs.slice(i, i + 25).map((job) => store.createJob(job)));
    }
    const worker = new QueueWorker({
      store,
      dispatcher: new KubeJobDispatcher(kube),
      spotPrices: noSpot,
      policy: new ValidationPolicy(loadPolicyConfig(POLICY_ENV)),
      region: REGION,
      workerId: 'bench-worker',
      ...QUEUE_DEFAULTS,
    });
    const done = store.all(JOBS);
    const started = performance.now();
    worker.start();
    await done;
    const seconds = (performance.now() - started) / 1000;
    await worker.stop();
    return seconds;
  });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const fmt = (xs: number[]): string => xs.map((x) => x.toFixed(2)).join(', ');

export const run: BenchRun = async () => {
  const concurrency = QUEUE_DEFAULTS.dispatchConcurrency;
  if (ONLY === 'worker' || ONLY === 'direct') {
    const seconds = ONLY === 'worker' ? await viaWorker() : await direct(concurrency);
    return [{ name: `queue: ${ONLY} only`, measured: `${seconds.toFixed(2)} s`, anchor: '—', ratio: null }];
  }
  const worker: number[] = [];
  const anchor: number[] = [];
  const oneAtATime: number[] = [];
  const concurrent: number[] = [];
  const paths: (() => Promise<void>)[] = [
    async () => void worker.push(await viaWorker()),
    async () => void oneAtATime.push(await direct(1)),
    async () => void concurrent.push(await direct(concurrency)),
  ];
  for (let trial = 0; trial < TRIALS; trial++) {
    // Rotate the order so a slow phase of the shared machine does not favour one path.
    for (let i = 0; i < paths.length; i++) await paths[(trial + i) % paths.length]!();
    // The direct path's limit in this trial: whichever way of creating was faster.
    anchor.push(Math.min(oneAtATime[trial]!, concurrent[trial]!));
  }
  const w = median(worker);
  const a = median(anchor);
  const rate = JOBS / w;
  const figures: BenchFigure[] = [
    {
      name: `queue: ${JOBS} queued jobs to dispatched (worker, deployment defaults)`,
      measured: `${w.toFixed(2)} s`,
      anchor: `the same ${JOBS} Jobs created directly with the same client (faster of 1 or ${concurrency} at a time): ${a.toFixed(2)} s`,
      ratio: w / a,
      goal: `≤ ${GOAL_RATIO}× direct`,
      met: w / a <= GOAL_RATIO,
      note: `median of ${TRIALS}; worker s: ${fmt(worker)}; direct 1 at a time s: ${fmt(oneAtATime)}; direct ${concurrency} at a time s: ${fmt(concurrent)}`,
    },
    {
      name: 'queue: drain rate per region (deployment defaults, dynalite + simulator)',
      measured: `${rate.toFixed(1)} jobs/s`,
      anchor: `goal ${GOAL_RATE} jobs/s (direct creation in this run: ${(JOBS / a).toFixed(1)} jobs/s; previous defaults ≈ 1 job/s)`,
      ratio: rate / GOAL_RATE,
      goal: `≥ ${GOAL_RATE} jobs/s per region`,
      met: rate >= GOAL_RATE,
      note: `QUEUE_DISPATCH_CONCURRENCY=${concurrency}, QUEUE_BATCH_SIZE=${QUEUE_DEFAULTS.batchSize}, QUEUE_POLL_INTERVAL_MS=${QUEUE_DEFAULTS.pollIntervalMs}`,
    },
  ];
  return figures;
};
