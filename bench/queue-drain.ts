/**
 * The central job queue against direct creation, on the local platform's stores (dynalite + the
 * Kubernetes API simulator).
 *
 * As a user sees it (the goal): N jobs submitted through manifest-processor's queue routes over HTTP,
 * signed with the envelope as the edge signs them, `QUEUE_SUBMIT_CONCURRENCY` at a time, with the
 * continuous worker running at the deployment defaults (docs/queue.md); then every job's status read
 * through GET /api/v1/queue/jobs/{id} until none is queued or claimed. Anchor: the same N Jobs created
 * directly on the simulator with client-node (BatchV1Api) at the same concurrency. For N = 200 and 500.
 * Beside each goal row, its floor: the user's own submissions and one status read each with the worker
 * off, which no queue worker, however fast, can take away.
 *
 * In-process (second row, kept from before): N jobs already in the table go to `dispatched` through
 * the worker, timed inside the process, against the faster of creating them directly 1 or
 * QUEUE_DISPATCH_CONCURRENCY at a time.
 *
 * Where the stores run: the goal rows run dynalite in a child process (_queue-stores-child.ts), as in
 * production, where DynamoDB is a remote service whose CPU is not manifest-processor's. Since the bench
 * client, the service and the Kubernetes API simulator share one Node process, the same-process figure
 * (dynalite on this thread too, as before) mostly measures CPU per job; it is kept as an extra row. The
 * direct anchor never touches DynamoDB.
 *
 * Each trial gets fresh servers; trials alternate which path runs first; medians of `BENCH_QUEUE_TRIALS`
 * (default 3) are reported. `BENCH_QUEUE_JOBS` sets the in-process N (default 500).
 */
import { withoutSdkLogFilter } from '../contracts/runtime/sdk-log-filter.js';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { BatchV1Api } from '@kubernetes/client-node';
import { pino } from 'pino';
import { loadPolicyConfig, ValidationPolicy } from '../cluster/manifest-processor/src/policy/index.js';
import {
  createQueue,
  kubernetesManifest,
  KubeJobDispatcher,
  loadQueueConfig,
  QUEUE_DEFAULTS,
  QUEUE_PREFIX,
  queueRoutes,
  QueueStore,
  QueueWorker,
  type QueuedJob,
  type SpotPriceSource,
} from '../cluster/manifest-processor/src/queue/index.js';
import { dispatchOrder } from '../cluster/manifest-processor/src/queue/record.js';
import { enqueuedJob } from '../cluster/manifest-processor/src/queue/submission.js';
import type { Transition } from '../cluster/manifest-processor/src/queue/store.js';
import { LOCAL_CREDENTIALS, startLocalDynamo } from '../local/dynamodb.js';
import { kubeConfigFor, startKubeApiSimulator } from '../local/kube-api-simulator/index.js';
import { jobManifest, POLICY_ENV } from '../test/support/cluster-fixtures.js';
import { startPluginService } from '../test/support/plugin-service.js';
import { signedCaller, type SignedCall } from '../test/support/signed-call.js';
import type { BenchFigure, BenchRun } from './figures.js';

const REGION = 'us-east-1';
const JOBS = Number(process.env.BENCH_QUEUE_JOBS ?? 500);
const TRIALS = Number(process.env.BENCH_QUEUE_TRIALS ?? 3);
/** Job counts of the user-facing figure. */
const USER_SIZES = [200, 500];
/** Requests a user has in flight at once, submitting and polling. */
const USER_CONCURRENCY = 16;
/** Pause between two rounds of status reads. */
const USER_POLL_MS = 100;
/** `worker`, `direct` or `user` runs one path only (for profiling with `node --cpu-prof`). */
const ONLY = process.env.BENCH_QUEUE_ONLY;
/** Where `BENCH_QUEUE_ONLY=user` runs dynalite: `BENCH_QUEUE_STORES=process`, or a child process. */
const STORES_AT_ONLY = process.env.BENCH_QUEUE_STORES === 'process' ? 'process' : 'child';
const GOAL_RATIO = 2;
const GOAL_RATE = 20;
/** A user-facing trial that sees no job leave queued/claimed for this long fails instead of hanging. */
const STALL_MS = 120_000;

/**
 * Worker passes that failed during the user-facing trials of this run (the loop then backs off, which is
 * what a stalled trial looks like from outside): counted for the note, and each printed when it happens.
 */
const workerFailures: string[] = [];
function workerLogger() {
  return pino(
    { level: 'warn' },
    {
      write(line: string) {
        const entry = JSON.parse(line) as { msg?: string; err?: { message?: string } };
        if (!entry.msg?.startsWith('background')) return;
        const message = `${entry.msg}: ${entry.err?.message ?? '?'}`;
        workerFailures.push(message);
        process.stderr.write(`queue-drain: worker ${message}\n`);
      },
    },
  );
}

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

/** Where dynalite runs: on this thread, or in a child process as DynamoDB is off the service's CPU. */
type StoresAt = 'process' | 'child';

/** What the bench needs of a DynamoDB: a client factory, the table environment, and a way to stop it. */
interface Stores {
  readonly env: Record<string, string>;
  client(): DynamoDBClient;
  close(): Promise<void>;
}

/** dynalite in a child process (_queue-stores-child.ts); resolves once it listens. */
async function childProcessDynamo(): Promise<Stores> {
  const script = fileURLToPath(new URL('./_queue-stores-child.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`stores process exited with ${String(code)} before listening`);
  });
  exited.catch(() => undefined);
  let started: { endpoint: string; region: string; env: Record<string, string> };
  try {
    const [line] = (await Promise.race([once(createInterface({ input: child.stdout }), 'line'), exited])) as [
      string,
    ];
    started = JSON.parse(line) as typeof started;
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
  const clients: DynamoDBClient[] = [];
  return {
    env: started.env,
    client: () => {
      const c = new DynamoDBClient({
        endpoint: started.endpoint,
        region: started.region,
        credentials: LOCAL_CREDENTIALS,
      });
      clients.push(c);
      return c;
    },
    close: async () => {
      for (const c of clients) c.destroy();
      const gone = once(child, 'exit');
      child.stdin.end();
      await gone;
    },
  };
}

async function withServers<T>(
  body: (s: { kube: ReturnType<typeof kubeConfigFor>; dynamo: Stores }) => Promise<T>,
  storesAt: StoresAt = 'process',
): Promise<T> {
  const dynamo = storesAt === 'child' ? await childProcessDynamo() : await startLocalDynamo();
  const sim = await startKubeApiSimulator();
  try {
    return await body({ kube: kubeConfigFor(sim.url), dynamo });
  } finally {
    await sim.close();
    await dynamo.close();
  }
}

/**
 * Runs `work` on every item, `concurrency` at a time, and returns the results in item order. Waits for
 * every call in flight before rethrowing the first failure, so servers are never closed under them.
 */
async function inParallel<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lanes = await Promise.allSettled(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!, index);
      }
    }),
  );
  const failed = lanes.find((lane) => lane.status === 'rejected');
  if (failed) throw failed.reason;
  return results;
}

/**
 * Seconds to create `n` Jobs directly with client-node's BatchV1Api, `concurrency` requests at a time.
 * The simulator's scheduler and kubelet start these Jobs' pods inside the timed window, as they do on the
 * queue path. (Until the simulator kept per-node requests as kube-scheduler does and retried its
 * unschedulable pods once per burst of events, the pods beyond the node's 8 cpu made it block for seconds
 * as soon as the first pods finished, and this anchor swung between 0.6 s and 3 s for 500 Jobs.)
 */
async function direct(concurrency: number, n = JOBS): Promise<number> {
  return withServers(async ({ kube }) => {
    const batch = kube.makeApiClient(BatchV1Api);
    const bodies = Array.from({ length: n }, (_, i) => kubernetesManifest(queuedJob(i)));
    const started = performance.now();
    await inParallel(bodies, concurrency, (body) =>
      batch.createNamespacedJob({ namespace: 'svc-jobs', body, fieldManager: 'bench' }),
    );
    return (performance.now() - started) / 1000;
  });
}

/**
 * manifest-processor's queue routes and continuous worker (deployment defaults) on fresh stores; with
 * `worker: false`, the routes alone (CENTRAL_QUEUE_WORKER_ENABLED off: nothing is dispatched).
 */
async function withQueueService<T>(
  storesAt: StoresAt,
  body: (call: SignedCall) => Promise<T>,
  { worker = true } = {},
): Promise<T> {
  return withServers(async ({ kube, dynamo }) => {
    const queue = createQueue({
      config: loadQueueConfig({
        ...dynamo.env,
        QUEUE_REGION: REGION,
        QUEUE_WORKER_ID: 'bench-worker',
        CENTRAL_QUEUE_WORKER_ENABLED: String(worker),
      }),
      // As manifest-processor's app.ts wires its client (contracts/runtime/sdk-log-filter.ts).
      dynamodb: withoutSdkLogFilter(dynamo.client()),
      kubeConfig: kube,
      policy: new ValidationPolicy(loadPolicyConfig(POLICY_ENV)),
      spotPrices: noSpot,
      logger: workerLogger(),
    });
    const { service, base } = await startPluginService({
      description: 'queue-drain bench',
      readiness: queue.readiness,
      onClose: () => queue.close(),
      routes: async (app) => {
        await app.register(queueRoutes, { ...queue.routeDeps, prefix: QUEUE_PREFIX });
      },
    });
    if (worker) queue.start();
    try {
      return await body(signedCaller(base));
    } finally {
      await service.app.close();
    }
  }, storesAt);
}

/** `n` jobs submitted through POST /api/v1/queue/jobs, USER_CONCURRENCY at a time; their ids. */
async function submitJobs(call: SignedCall, n: number): Promise<string[]> {
  const manifests = Array.from({ length: n }, (_, i) => jobManifest(`bench-${i}`, BENCH_JOB));
  return inParallel(manifests, USER_CONCURRENCY, async (manifest, i) => {
    const reply = await call('POST', `${QUEUE_PREFIX}/jobs`, {
      manifest,
      target_region: REGION,
      namespace: 'svc-jobs',
      priority: i % 3 === 0 ? 50 : 0,
    });
    if (reply.status !== 200) throw new Error(`submission answered ${reply.status}: ${reply.text}`);
    return String(reply.body.job_id);
  });
}

/**
 * The floor of the user-facing figure: seconds for the user's own requests alone — `n` submissions and
 * one status read each — with the worker off, so nothing is claimed or created. Whatever the worker does,
 * the user-facing path costs at least this (stores in a child process, as in the goal row).
 */
async function userRequestsOnly(n: number): Promise<number> {
  return withQueueService(
    'child',
    async (call) => {
      const started = performance.now();
      const ids = await submitJobs(call, n);
      await inParallel(ids, USER_CONCURRENCY, async (id) => {
        const reply = await call('GET', `${QUEUE_PREFIX}/jobs/${id}`);
        if (reply.status !== 200 || reply.body.status !== 'queued') {
          throw new Error(`status read answered ${reply.status}: ${reply.text}`);
        }
      });
      return (performance.now() - started) / 1000;
    },
    { worker: false },
  );
}

/**
 * Seconds from the first submission until no job is queued or claimed, as a user sees it: `n` jobs
 * submitted through POST /api/v1/queue/jobs, then each job's status read through GET
 * /api/v1/queue/jobs/{id} (USER_POLL_MS between rounds) until every one left queued and claimed.
 */
async function viaApi(n: number, storesAt: StoresAt): Promise<number> {
  return withQueueService(storesAt, async (call) => {
    const started = performance.now();
    const ids = await submitJobs(call, n);
    let waiting = ids;
    let progressAt = performance.now();
    while (waiting.length > 0) {
      if (performance.now() - progressAt > STALL_MS) {
        throw new Error(
          `${waiting.length} jobs still queued or claimed after ${STALL_MS / 1000} s without progress; worker: ${workerFailures.at(-1) ?? 'no failed pass logged'}`,
        );
      }
      const states = await inParallel(waiting, USER_CONCURRENCY, async (id) => {
        const reply = await call('GET', `${QUEUE_PREFIX}/jobs/${id}`);
        if (reply.status !== 200) throw new Error(`status read answered ${reply.status}: ${reply.text}`);
        const status = String(reply.body.status);
        if (status === 'failed') throw new Error(`job ${id} failed: ${String(reply.body.error)}`);
        return status;
      });
      const left = waiting.filter((_, i) => states[i] === 'queued' || states[i] === 'claimed');
      if (left.length < waiting.length) progressAt = performance.now();
      waiting = left;
      if (waiting.length > 0) await sleep(USER_POLL_MS);
    }
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

const STORES_NOTE: Record<StoresAt, string> = {
  child: 'dynalite in a child process (as DynamoDB is not on manifest-processor’s CPU)',
  process: 'dynalite in this process (its CPU shares the thread with service, simulator and client)',
};

/**
 * The user-facing figures for `n` jobs: through the API against direct creation, medians of TRIALS, once
 * for each place in `storesAt` the stores may run (the first is the goal row).
 */
async function userFigures(n: number, storesAt: readonly StoresAt[]): Promise<BenchFigure[]> {
  const queued = new Map<StoresAt, number[]>(storesAt.map((at) => [at, []]));
  const directly: number[] = [];
  const requestsOnly: number[] = [];
  const paths = [
    ...storesAt.map((at) => async () => void queued.get(at)!.push(await viaApi(n, at))),
    async () => void directly.push(await direct(USER_CONCURRENCY, n)),
    async () => void requestsOnly.push(await userRequestsOnly(n)),
  ];
  for (let trial = 0; trial < TRIALS; trial++) {
    for (let i = 0; i < paths.length; i++) await paths[(trial + i) % paths.length]!();
  }
  const d = median(directly);
  const floor = median(requestsOnly);
  const floorFigure: BenchFigure = {
    name: `queue floor: the user's own ${n} submissions and one status read each, worker off`,
    measured: `${floor.toFixed(2)} s`,
    anchor: `the same ${n} Jobs created directly on the simulator (BatchV1Api, ${USER_CONCURRENCY} at a time): ${d.toFixed(2)} s`,
    ratio: floor / d,
    note: `${STORES_NOTE.child}; median of ${TRIALS}; s: ${fmt(requestsOnly)}; signed HTTP, ${USER_CONCURRENCY} requests in flight; nothing claimed or created: the least the row above could take`,
  };
  const rows = storesAt.map((at, i): BenchFigure => {
    const times = queued.get(at)!;
    const q = median(times);
    return {
      name: `queue as a user sees it: ${n} jobs submitted through the API until none is queued or claimed${i === 0 ? '' : ` (dynalite in this process)`}`,
      measured: `${q.toFixed(2)} s`,
      anchor: `the same ${n} Jobs created directly on the simulator (BatchV1Api, ${USER_CONCURRENCY} at a time): ${d.toFixed(2)} s`,
      ratio: q / d,
      ...(i === 0 ? { goal: `≤ ${GOAL_RATIO}× direct`, met: q / d <= GOAL_RATIO } : {}),
      note: `${STORES_NOTE[at]}; median of ${TRIALS}; via API s: ${fmt(times)}; direct s: ${fmt(directly)}; signed HTTP, ${USER_CONCURRENCY} requests in flight, status read every ${USER_POLL_MS} ms; worker at the deployment defaults; failed worker passes so far: ${workerFailures.length}`,
    };
  });
  return [rows[0]!, floorFigure, ...rows.slice(1)];
}

export const run: BenchRun = async () => {
  const concurrency = QUEUE_DEFAULTS.dispatchConcurrency;
  if (ONLY === 'worker' || ONLY === 'direct' || ONLY === 'user') {
    const seconds =
      ONLY === 'worker'
        ? await viaWorker()
        : ONLY === 'user'
          ? await viaApi(JOBS, STORES_AT_ONLY)
          : await direct(concurrency);
    return [{ name: `queue: ${ONLY} only`, measured: `${seconds.toFixed(2)} s`, anchor: '—', ratio: null }];
  }
  const figures: BenchFigure[] = [];
  // Goal rows with the stores in a child process; the largest size also keeps the same-process row.
  for (const n of USER_SIZES) {
    figures.push(...(await userFigures(n, n === Math.max(...USER_SIZES) ? ['child', 'process'] : ['child'])));
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
  figures.push(
    {
      name: `queue in-process: ${JOBS} queued jobs to dispatched (worker, deployment defaults)`,
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
  );
  return figures;
};
