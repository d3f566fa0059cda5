/**
 * Analytics events handler throughput: B sequential 500-event batches (every event valid, v4/v7 ids,
 * mixed timestamp formats) through the real handler (authorizer context check, application check,
 * validation, idempotency records in dynalite, PutRecords to a 4-shard kinesalite stream), against the
 * same records written by bare PutRecords calls (the floor: what the stream itself costs here), and the
 * replay of a batch already sent (answered from the idempotency record) against a new batch. Three runs,
 * each interleaving handler, replay and bare calls; every figure is the median of the three runs' ratios
 * (issue 27's goal: the handler ≥ 0.9× bare PutRecords). `BENCH_BATCHES` sets B (default 20).
 *
 * A floor row makes the same bare call exactly once with Powertools idempotency (the two DynamoDB writes
 * every exactly-once handler needs) and nothing else: the best the goal row could reach.
 *
 * The goal row runs dynalite and kinesalite in a child process (_analytics-stores-child.ts), for the
 * handler and the bare calls alike: in production DynamoDB and Kinesis do their work off the Lambda's CPU,
 * and the handler may use the time it waits for them. A second row keeps them in this process, as before.
 * The CPU figure adds up both processes' CPU time per batch (/proc schedstat), which other load on a
 * shared machine moves far less than wall time, split into caller and stores.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KinesisClient, PutRecordsCommand, type PutRecordsCommandInput } from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { withoutSdkLogFilter } from '../contracts/runtime/sdk-log-filter.js';
import { ANALYTICS_TABLES, analyticsStreamName } from '../contracts/analytics-resources.js';
import { APPLICATION_ID_PARAM } from '../contracts/api-routes.js';
import { LOCAL_CREDENTIALS, startLocalDynamo } from '../local/dynamodb.js';
import { startLocalKinesis } from '../local/kinesis.js';
import { tableName } from '../contracts/tables.js';
import * as admin from '../lambda/analytics-admin/index.js';
import * as events from '../lambda/analytics-events/index.js';
import { validateEvent } from '../lambda/analytics-events/event-validation.js';
import { silentServiceLogger } from '../cluster/shared/logger.js';
import { lambdaContext } from '../test/support/lambda-context.js';
import { cpuMs } from './_inference-proxy-setup.js';
import type { BenchFigure, BenchRun } from './figures.js';

const BATCH = 500;
const RUNS = 3;
const HANDLER_GOAL = 0.9;
export const PROJECT = 'bench';
export const STREAM = analyticsStreamName(PROJECT);
const CONTEXT = lambdaContext({ awsRequestId: 'bench', getRemainingTimeInMillis: () => 28_000 });

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

/** A version 7 UUID for half the events (games often use time-ordered ids). */
function uuidv7(ms: number): string {
  const h = (ms.toString(16).padStart(12, '0') + randomUUID().replace(/-/g, '').slice(12)).split('');
  h[12] = '7';
  h[16] = '89ab'[parseInt(h[16] ?? '0', 16) % 4] ?? '8';
  const s = h.join('');
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20, 32)}`;
}

/** A new 500-event batch body (every event valid); also what bench/_analytics-events-profile.ts sends. */
export function batchBody(seed: number): string {
  const now = Date.now();
  return JSON.stringify({
    Events: Array.from({ length: BATCH }, (_, i) => ({
      event_id: i % 2 === 0 ? randomUUID() : uuidv7(now),
      event_type: 'gameplay',
      event_name: `level_${(seed + i) % 40}_complete`,
      event_timestamp: i % 3 === 0 ? new Date(now - i * 1000).toISOString() : Math.floor(now / 1000) - i,
      event_version: '1.0.0',
      app_version: '2.4.1',
      event_data: { score: seed * 1000 + i, level: i % 40, platform: i % 2 === 0 ? 'ios' : 'android' },
    })),
  });
}

interface Summary {
  /** Events per second over all batches. */
  readonly eps: number;
  /** "<events/s> events/s (median … ms, p95 … ms per batch)". */
  readonly text: string;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function summary(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = samples.reduce((a, b) => a + b, 0);
  const eps = (samples.length * BATCH) / (total / 1000);
  return {
    eps,
    text:
      `${Math.round(eps).toLocaleString('en-US')} events/s (median ${percentile(sorted, 50).toFixed(1)} ms, ` +
      `p95 ${percentile(sorted, 95).toFixed(1)} ms per batch)`,
  };
}

/** dynalite + kinesalite with the analytics tables and the stream, and clients for them. */
export interface Stores {
  /** The stores' own process, when they have one (its CPU time is read from /proc). */
  readonly pid?: number;
  dynamodb(): DynamoDBClient;
  kinesis(): KinesisClient;
  close(): Promise<void>;
}

/** Both stores in this process: their CPU runs on the same thread as the handler and the bare calls. */
async function inProcessStores(): Promise<Stores> {
  const dynamo = await startLocalDynamo({ project: PROJECT, tables: Object.values(ANALYTICS_TABLES) });
  const kinesis = await startLocalKinesis({ streams: [{ name: STREAM, shardCount: 4 }] });
  return {
    dynamodb: () => dynamo.client(),
    kinesis: () => kinesis.client(),
    close: async () => {
      await kinesis.close();
      await dynamo.close();
    },
  };
}

/**
 * Both stores in a child process (_analytics-stores-child.ts), as in production, where DynamoDB and Kinesis
 * do not run on the Lambda's CPU. The handler and the bare calls talk to the same child the same way.
 */
export async function childProcessStores(): Promise<Stores> {
  const script = fileURLToPath(new URL('./_analytics-stores-child.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, BENCH_PROJECT: PROJECT, BENCH_STREAM: STREAM },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`stores process exited with ${String(code)} before listening`);
  });
  exited.catch(() => undefined);
  let endpoints: { dynamodb: string; kinesis: string; region: string };
  try {
    const [line] = (await Promise.race([once(createInterface({ input: child.stdout }), 'line'), exited])) as [
      string,
    ];
    endpoints = JSON.parse(line) as typeof endpoints;
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
  const clients: { destroy(): void }[] = [];
  const track = <C extends { destroy(): void }>(c: C): C => (clients.push(c), c);
  return {
    ...(child.pid === undefined ? {} : { pid: child.pid }),
    dynamodb: () =>
      track(
        new DynamoDBClient({
          endpoint: endpoints.dynamodb,
          region: endpoints.region,
          credentials: LOCAL_CREDENTIALS,
        }),
      ),
    // HTTP/1.1, as local/kinesis.ts: kinesalite does not speak the Kinesis client's default HTTP/2.
    kinesis: () =>
      track(
        new KinesisClient({
          endpoint: endpoints.kinesis,
          region: endpoints.region,
          credentials: LOCAL_CREDENTIALS,
          requestHandler: new NodeHttpHandler(),
        }),
      ),
    close: async () => {
      for (const c of clients) c.destroy();
      const gone = once(child, 'exit');
      child.stdin?.end();
      await gone;
    },
  };
}

/** CPU time of a step in the calling process and in the stores' process (ms). */
interface CpuSplit {
  readonly caller: number;
  readonly stores: number;
}

const medianSplit = (splits: readonly CpuSplit[]): CpuSplit => ({
  caller: median(splits.map((c) => c.caller)),
  stores: median(splits.map((c) => c.stores)),
});

interface RunSummary {
  handler: Summary;
  bare: Summary;
  /** The exactly-once floor: the bare PutRecords inside Powertools' idempotency, and nothing else. */
  floor: Summary;
  replay: Summary;
  /** Median CPU time per batch, this process and the stores' process together (ms). */
  handlerCpuMs: number;
  bareCpuMs: number;
  /** The same, split: this process (handler or caller) and the stores' process (ms). */
  handlerCpuSplit: CpuSplit;
  bareCpuSplit: CpuSplit;
}

/** The events handler's answer to one batch. */
type EventsAnswer = Awaited<ReturnType<ReturnType<typeof events.createHandlerFromEnv>>>;

/**
 * An application created through the admin handler, and `send`: one batch body through the events
 * handler for it, wired as deployed (createHandlerFromEnv) on the given stores.
 */
export async function benchApplication(
  stores: Stores,
): Promise<{ app: string; send: (body: string) => Promise<EventsAnswer> }> {
  const env = {
    ...Object.fromEntries(Object.values(ANALYTICS_TABLES).map((t) => [t.envVar, tableName(PROJECT, t)])),
    EVENTS_STREAM_NAME: STREAM,
  };
  const adminHandler = admin.createHandlerFromEnv(env, {
    dynamodb: stores.dynamodb(),
    logger: silentServiceLogger(),
  });
  const created = await adminHandler(
    {
      httpMethod: 'POST',
      resource: '/applications',
      path: '/applications',
      pathParameters: null,
      body: JSON.stringify({ Name: 'bench' }),
      isBase64Encoded: false,
    },
    CONTEXT,
  );
  const app = (JSON.parse(created.body) as { ApplicationId: string }).ApplicationId;
  const handler = events.createHandlerFromEnv(env, {
    dynamodb: stores.dynamodb(),
    kinesis: stores.kinesis(),
    logger: silentServiceLogger(),
  });
  const send = (body: string) =>
    handler(
      {
        httpMethod: 'POST',
        pathParameters: { [APPLICATION_ID_PARAM]: app },
        body,
        isBase64Encoded: false,
        requestContext: { authorizer: { applicationId: app, apiKeyId: 'bench' } },
      },
      CONTEXT,
    );
  return { app, send };
}

/** RUNS runs of `batches` new batches, each replayed, interleaved with bare PutRecords of as many records. */
async function measureAgainst(stores: Stores, batches: number, warmup: number): Promise<RunSummary[]> {
  const { app, send } = await benchApplication(stores);
  const direct = stores.kinesis();
  const exactlyOnce = exactlyOncePutRecords(stores, direct);

  // CPU of both processes (all threads): unlike wall time, hardly moved by other load on the machine.
  const cpuNow = (): CpuSplit => ({
    caller: cpuMs(process.pid),
    stores: stores.pid === undefined ? 0 : cpuMs(stores.pid),
  });
  const since = (start: CpuSplit): CpuSplit => {
    const end = cpuNow();
    return { caller: end.caller - start.caller, stores: end.stores - start.stores };
  };
  const measure = async (run: number): Promise<RunSummary> => {
    const handlerCpu: CpuSplit[] = [];
    const bareCpu: CpuSplit[] = [];
    const handlerMs: number[] = [];
    const directMs: number[] = [];
    const replayMs: number[] = [];
    const floorMs: number[] = [];
    // Interleaved, so drift on a shared machine affects both sides alike.
    for (let i = 0; i < warmup + batches; i++) {
      const seed = run * 10_000 + i;
      const body = batchBody(seed);
      let cpu = cpuNow();
      let t = process.hrtime.bigint();
      const res = await send(body);
      const h = Number(process.hrtime.bigint() - t) / 1e6;
      const hCpu = since(cpu);
      const answer = JSON.parse(res.body) as { FailedRecordCount?: number };
      if (res.statusCode !== 200 || answer.FailedRecordCount !== 0) {
        throw new Error(`unexpected answer ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
      t = process.hrtime.bigint();
      await send(body);
      const r = Number(process.hrtime.bigint() - t) / 1e6;

      // The floor: the same records (as the handler builds them) in one bare PutRecords call.
      const receivedAt = Date.now();
      const records = (JSON.parse(batchBody(seed + 1_000)) as { Events: unknown[] }).Events.map((e) => {
        const c = validateEvent(e, app, receivedAt);
        if (!c.ok) throw new Error(c.message);
        return { PartitionKey: c.record.event_id, Data: Buffer.from(JSON.stringify(c.record)) };
      });
      cpu = cpuNow();
      t = process.hrtime.bigint();
      const put = await direct.send(new PutRecordsCommand({ StreamName: STREAM, Records: records }));
      const d = Number(process.hrtime.bigint() - t) / 1e6;
      const dCpu = since(cpu);
      if (put.FailedRecordCount !== 0) throw new Error('direct PutRecords failed');

      t = process.hrtime.bigint();
      await exactlyOnce({ batch: `${run}-${i}` }, records);
      const f = Number(process.hrtime.bigint() - t) / 1e6;
      if (i >= warmup) {
        handlerMs.push(h);
        replayMs.push(r);
        directMs.push(d);
        floorMs.push(f);
        handlerCpu.push(hCpu);
        bareCpu.push(dCpu);
      }
    }
    return {
      handler: summary(handlerMs),
      bare: summary(directMs),
      floor: summary(floorMs),
      replay: summary(replayMs),
      handlerCpuMs: median(handlerCpu.map((c) => c.caller + c.stores)),
      bareCpuMs: median(bareCpu.map((c) => c.caller + c.stores)),
      handlerCpuSplit: medianSplit(handlerCpu),
      bareCpuSplit: medianSplit(bareCpu),
    };
  };

  const runs: RunSummary[] = [];
  for (let run = 0; run < RUNS; run++) runs.push(await measure(run));
  return runs;
}

/**
 * The least any exactly-once handler can cost here: the same bare PutRecords call made idempotent with
 * Powertools as the handler is (its in-progress record put before, its answer after; docs/analytics-api.md,
 * "Per batch round, two DynamoDB writes, and why not one", says why both are needed), with no parsing,
 * validation, record building or application check. Its DynamoDB client has no SDK log filter, as the
 * handler's.
 */
function exactlyOncePutRecords(
  stores: Stores,
  kinesis: KinesisClient,
): (key: { batch: string }, records: PutRecordsCommandInput['Records']) => Promise<string> {
  const config = new IdempotencyConfig({ expiresAfterSeconds: 3600, hashFunction: 'sha256' });
  config.registerLambdaContext(CONTEXT);
  const persistenceStore = new DynamoDBPersistenceLayer({
    tableName: tableName(PROJECT, ANALYTICS_TABLES.idempotency),
    awsSdkV3Client: withoutSdkLogFilter(stores.dynamodb()),
  });
  return makeIdempotent(
    async (_key: { batch: string }, records: PutRecordsCommandInput['Records']): Promise<string> => {
      const put = await kinesis.send(new PutRecordsCommand({ StreamName: STREAM, Records: records }));
      if (put.FailedRecordCount !== 0) throw new Error('floor PutRecords failed');
      return 'ok';
    },
    { persistenceStore, config, keyPrefix: 'bench-floor' },
  );
}

/** The median run's figures (by the handler ratio), and the ratios of every run. */
function medianRun(runs: readonly RunSummary[]) {
  const handlerRatios = runs.map((r) => r.handler.eps / r.bare.eps);
  const replayRatios = runs.map((r) => r.replay.eps / r.handler.eps);
  const floorRatios = runs.map((r) => r.floor.eps / r.bare.eps);
  const handlerRatio = median(handlerRatios);
  // The run whose handler ratio is the median one supplies the absolute figures shown.
  const shown = runs[handlerRatios.indexOf(handlerRatio)] ?? runs[0];
  if (shown === undefined) throw new Error('no run');
  // CPU: bare ÷ handler, so that like the throughput ratio, higher is better and 1 is the floor.
  const cpuRatios = runs.map((r) => r.bareCpuMs / r.handlerCpuMs);
  const cpuRatio = median(cpuRatios);
  const cpuShown = runs[cpuRatios.indexOf(cpuRatio)] ?? shown;
  return {
    shown,
    handlerRatios,
    handlerRatio,
    replayRatios,
    replayRatio: median(replayRatios),
    floorRatios,
    floorRatio: median(floorRatios),
    cpuRatios,
    cpuRatio,
    cpuShown,
  };
}

async function withStores<T>(start: () => Promise<Stores>, body: (stores: Stores) => Promise<T>): Promise<T> {
  const stores = await start();
  try {
    return await body(stores);
  } finally {
    await stores.close();
  }
}

const splitText = (split: CpuSplit): string =>
  `caller ${split.caller.toFixed(1)} ms, stores ${split.stores.toFixed(1)} ms, medians`;

export const run: BenchRun = async () => {
  const batches = Number(process.env['BENCH_BATCHES'] ?? 20);
  const warmup = 3;
  const apart = medianRun(await withStores(childProcessStores, (s) => measureAgainst(s, batches, warmup)));
  const together = medianRun(await withStores(inProcessStores, (s) => measureAgainst(s, batches, warmup)));
  const spread = (ratios: number[]) => ratios.map((x) => `${x.toFixed(2)}×`).join(', ');
  const noteFor = (ratios: number[], where: string) =>
    `median of ${RUNS} runs (${spread(ratios)}); each run ${batches} sequential batches after ${warmup} ` +
    `warm-up, interleaved; dynalite + 4-shard kinesalite on loopback, ${where}`;
  const CHILD = 'in a child process (as DynamoDB and Kinesis are not on the Lambda’s CPU)';
  const SAME = 'in this process (their CPU on the same thread as both sides)';
  // What the handler adds per batch: parsing, hashing and validating the body, and two DynamoDB calls
  // (idempotency record put before PutRecords, the answer after); the application check is remembered.
  const calls =
    '; the handler also makes 2 DynamoDB calls per batch (idempotency record in progress, then its answer)';
  const figures: BenchFigure[] = [
    {
      name: `analytics events handler, ${BATCH}-event batches`,
      measured: apart.shown.handler.text,
      anchor: `bare PutRecords of the same records to the same kinesalite: ${apart.shown.bare.text}`,
      ratio: apart.handlerRatio,
      goal: `≥ ${HANDLER_GOAL}× bare PutRecords`,
      met: apart.handlerRatio >= HANDLER_GOAL,
      note: `${noteFor(apart.handlerRatios, CHILD)}${calls}`,
    },
    {
      name: `exactly-once floor: bare PutRecords of ${BATCH} records inside Powertools idempotency, no handler work`,
      measured: apart.shown.floor.text,
      anchor: `bare PutRecords of the same records: ${apart.shown.bare.text}`,
      ratio: apart.floorRatio,
      note:
        `${noteFor(apart.floorRatios, CHILD)}; the same call plus the two idempotency writes every exactly-once ` +
        `handler needs (in progress before, answer after), nothing else: the best the goal row could reach`,
    },
    {
      name: `analytics events handler, replayed ${BATCH}-event batch (idempotency record)`,
      measured: apart.shown.replay.text,
      anchor: `a new batch through the handler: ${apart.shown.handler.text}`,
      ratio: apart.replayRatio,
      note: noteFor(apart.replayRatios, CHILD),
    },
    {
      name: `analytics events handler, CPU per ${BATCH}-event batch (bare ÷ handler)`,
      measured: `${apart.cpuShown.handlerCpuMs.toFixed(1)} ms (${splitText(apart.cpuShown.handlerCpuSplit)})`,
      anchor:
        `bare PutRecords of the same records: ${apart.cpuShown.bareCpuMs.toFixed(1)} ms ` +
        `(${splitText(apart.cpuShown.bareCpuSplit)})`,
      ratio: apart.cpuRatio,
      note:
        `median per batch, this process + the stores process, all threads (/proc schedstat); ` +
        `median of ${RUNS} runs (${spread(apart.cpuRatios)}); less moved by other load than the throughput`,
    },
    {
      name: `analytics events handler, ${BATCH}-event batches, stores in the same process`,
      measured: together.shown.handler.text,
      anchor: `bare PutRecords of the same records to the same kinesalite: ${together.shown.bare.text}`,
      ratio: together.handlerRatio,
      note: `${noteFor(together.handlerRatios, SAME)}${calls}`,
    },
  ];
  return figures;
};
