/**
 * Where the events handler's own CPU goes: N fresh 500-event batches through the handler in this process,
 * dynalite + kinesalite in a child process (_analytics-stores-child.ts, as the bench's goal row), sampled
 * with the V8 profiler (node:inspector) over the measured batches only, then the same records in bare
 * PutRecords calls, sampled alike. Prints, per batch, the sampled time by bucket (the innermost frame
 * outside Node's own modules: project file, or package), handler against bare, and the handler's top
 * self-time functions; docs/analytics-api.md ("Where the handler's CPU goes") shows one run.
 * Three rounds, each side's figures the median of the rounds.
 * Usage: `npx tsx bench/_analytics-events-profile.ts [batches per round]` (default 200).
 */
import { Session } from 'node:inspector/promises';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { validateEvent } from '../lambda/analytics-events/event-validation.js';
import { batchBody, benchApplication, childProcessStores, STREAM } from './analytics-events.bench.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const BATCH = 500;
const ROUNDS = 3;

/** Where a sample goes: by the innermost frame outside Node's own modules (who caused the work). */
const BUCKETS: [RegExp, string][] = [
  [/node_modules\/@(aws-sdk|smithy)\//, 'AWS SDK: middleware, serialisation, SigV4, answer parsing'],
  [
    /node_modules\/(@aws-lambda-powertools|@aws\/lambda-invoke-store)\//,
    'Powertools idempotency (record keys, hashes, states)',
  ],
  [/analytics-events\/event-validation\.ts|shared\/analytics\/ids\.ts/, 'event validation and record JSON'],
  [/analytics-events\/round-preparation\.ts/, 'record bytes (UTF-8) and the preparation loop'],
  [/shared\/analytics\/http\.ts/, 'body JSON.parse'],
  [/analytics-events\/request-body\.ts/, 'body size, lone-surrogate check, SHA-256'],
  [
    /analytics-events\/(index|ingest|batch|kinesis-writer|application-cache)\.ts|shared\/(json-result|errors|analytics\/admin-input)\.ts/,
    'handler glue: writer, idempotency rounds, answer',
  ],
  [/bench\//, 'bench driver (building requests, checking answers)'],
];

function bucketOfUrl(url: string): string {
  for (const [pattern, bucket] of BUCKETS) if (pattern.test(url)) return bucket;
  return url;
}

/** Microseconds per bucket, and per function (self time), over a profile's samples. */
function tally(profile: Profile): { buckets: Map<string, number>; functions: Map<string, number> } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const bucketOf = (id: number): string | undefined => {
    const self = byId.get(id)?.callFrame.functionName ?? '';
    if (self === '(idle)') return undefined;
    if (self === '(garbage collector)') return 'garbage collection';
    if (self === 'writev' || self === 'writeBuffer') return 'socket writes (syscalls)';
    if (self === '(program)') return 'V8 (program)';
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const url = byId.get(at)?.callFrame.url ?? '';
      if (url !== '' && !url.startsWith('node:')) return bucketOfUrl(url);
    }
    return 'Node internals (HTTP client, streams, timers)';
  };
  const buckets = new Map<string, number>();
  const functions = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const bucket = bucketOf(id);
    if (bucket === undefined) return;
    const delta = profile.timeDeltas[i] ?? 0;
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + delta);
    const frame = byId.get(id)?.callFrame;
    const where = (frame?.url ?? '')
      .replace(/^.*node_modules\//, '')
      .replace(/^.*?\/(lambda|bench)\//, '$1/');
    const name = `${frame?.functionName || '(anonymous)'} ${where}:${(frame?.lineNumber ?? 0) + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + delta);
  });
  return { buckets, functions };
}

const median = (values: number[]): number =>
  [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)] ?? 0;

/** Per bucket, the median over the rounds of its time per batch (ms), handler and bare side by side. */
function report(rounds: { handler: Profile; bare: Profile }[], batches: number): void {
  const tallies = rounds.map((r) => ({ handler: tally(r.handler), bare: tally(r.bare) }));
  const ms = (us: number | undefined) => (us ?? 0) / 1000 / batches;
  const totalOf = (m: Map<string, number>) => [...m.values()].reduce((x, y) => x + y, 0);
  const names = new Set(tallies.flatMap((t) => [...t.handler.buckets.keys(), ...t.bare.buckets.keys()]));
  const rows = [...names].map((name) => {
    const handler = median(tallies.map((t) => ms(t.handler.buckets.get(name))));
    const bare = median(tallies.map((t) => ms(t.bare.buckets.get(name))));
    return {
      name,
      handler,
      bare,
      diff: median(tallies.map((t) => ms(t.handler.buckets.get(name)) - ms(t.bare.buckets.get(name)))),
    };
  });
  rows.sort((x, y) => y.handler - x.handler);
  const fixed = (x: number) => x.toFixed(2);
  const signed = (x: number) => `${x >= 0 ? '+' : ''}${fixed(x)}`;
  process.stdout.write(
    `Sampled CPU per ${BATCH}-event batch: medians of ${rounds.length} rounds of ${batches} batches ` +
      '(profiler overhead included)\n\n| Where | Handler ms | Bare PutRecords ms | Difference |\n|---|---|---|---|\n',
  );
  for (const r of rows.filter((row) => row.handler >= 0.005 || row.bare >= 0.005)) {
    process.stdout.write(`| ${r.name} | ${fixed(r.handler)} | ${fixed(r.bare)} | ${signed(r.diff)} |\n`);
  }
  const handlerTotals = tallies.map((t) => ms(totalOf(t.handler.buckets)));
  const bareTotals = tallies.map((t) => ms(totalOf(t.bare.buckets)));
  const diffs = tallies.map((t) => ms(totalOf(t.handler.buckets)) - ms(totalOf(t.bare.buckets)));
  process.stdout.write(
    `| **total** | ${fixed(median(handlerTotals))} | ${fixed(median(bareTotals))} | ${signed(median(diffs))} |\n` +
      `\nRounds, handler − bare (ms): ${diffs.map(fixed).join(', ')}\n\nHandler, top self time (all rounds):\n`,
  );
  const functions = new Map<string, number>();
  for (const t of tallies)
    for (const [f, us] of t.handler.functions) functions.set(f, (functions.get(f) ?? 0) + us);
  for (const [f, us] of [...functions].sort((x, y) => y[1] - x[1]).slice(0, 30)) {
    process.stdout.write(`${(ms(us) / rounds.length).toFixed(2).padStart(7)}  ${f}\n`);
  }
}

const batches = Number(process.argv[2] ?? 200);
const stores = await childProcessStores();
const { app, send } = await benchApplication(stores);
const direct = stores.kinesis();
const bareRecords = (seed: number) => {
  const receivedAt = Date.now();
  return (JSON.parse(batchBody(seed)) as { Events: unknown[] }).Events.map((e) => {
    const c = validateEvent(e, app, receivedAt);
    if (!c.ok) throw new Error(c.message);
    return { PartitionKey: c.record.event_id, Data: Buffer.from(JSON.stringify(c.record)) };
  });
};

const session = new Session();
session.connect();
await session.post('Profiler.enable');
// 500 µs between samples: long enough that the profiler's own cost stays small.
await session.post('Profiler.setSamplingInterval', { interval: 500 });

// Warm-up (JIT, connections), then the measured batches: bodies made before the profiler starts.
for (let i = 0; i < 30; i++) {
  const res = await send(batchBody(i));
  if (res.statusCode !== 200) throw new Error(res.body);
  await direct.send(new PutRecordsCommand({ StreamName: STREAM, Records: bareRecords(i) }));
}
// Rounds alternate the two sides, so drift on a shared machine touches both alike.
const rounds: { handler: Profile; bare: Profile }[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const bodies = Array.from({ length: batches }, (_, i) => batchBody(1000 * (round + 1) + i));
  await session.post('Profiler.start');
  for (const body of bodies) {
    const res = await send(body);
    if (res.statusCode !== 200 || !res.body.includes('"FailedRecordCount":0')) throw new Error(res.body);
  }
  const handler = (await session.post('Profiler.stop')).profile as unknown as Profile;
  const records = Array.from({ length: batches }, (_, i) => bareRecords(100_000 * (round + 1) + i));
  await session.post('Profiler.start');
  for (const r of records) await direct.send(new PutRecordsCommand({ StreamName: STREAM, Records: r }));
  const bare = (await session.post('Profiler.stop')).profile as unknown as Profile;
  rounds.push({ handler, bare });
}
session.disconnect();
report(rounds, batches);
await stores.close();
