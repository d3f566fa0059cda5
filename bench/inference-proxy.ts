/**
 * inference-proxy benchmark: the same TLS model server read by the same kept-alive client three ways —
 * directly, through the inference-proxy (its own process) and through nginx (bench/_inference-proxy-setup.ts).
 * Figures: 50 MiB streaming throughput, time to first byte, CPU per request and per MiB (proxy process vs
 * nginx worker, from the scheduler statistics in /proc) and 20,000 small SSE events per second.
 * Repetitions are interleaved so machine noise hits every path alike. The whole measurement runs
 * BENCH_RUNS times (default 3) against the same processes; each figure is the median of the runs' medians,
 * each ratio the median of the runs' ratios (every run's ratio is in the note, with the load average).
 * Without nginx the nginx column is null ("nginx not installed").
 *
 * BENCH_REPETITIONS scales the repetitions; BENCH_PROXY_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p")
 * is passed to the proxy's node process; BENCH_PHASES (e.g. "stream" or "sse") runs only some loads, to
 * profile one at a time (the figures of the skipped loads are then 0).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { signEnvelope } from '../contracts/envelope/envelope.js';
import {
  BENCH_KEY,
  cpuMs,
  MiB,
  SSE_EVENTS,
  startBenchTopology,
  STREAM_BYTES,
  type BenchTopology,
} from './_inference-proxy-setup.js';
import type { BenchFigure, BenchRun } from './figures.js';

/** `floor` is measured in the time-to-first-byte phase only (bench/_inference-proxy-floor.ts). */
type PathName = 'direct' | 'proxy' | 'nginx' | 'floor';
type PerPath = Record<PathName, number>;

/** Small answers per path before the first run. */
const WARM_UP_REQUESTS = 500;

interface Sample {
  ttfbMs: number;
  totalMs: number;
  bytes: number;
}

/** One run's medians, per path (CPU figures: proxy process and nginx worker only). */
interface RunFigures {
  throughput: PerPath;
  ttfb: PerPath;
  cpuPerRequest: PerPath;
  cpuPerMiB: PerPath;
  sse: PerPath;
  load: number;
  /** CPU the proxy process spends per second while idle (subtracted from CPU per request). */
  proxyIdleMsPerS: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** Reads a whole response, noting when its first body byte arrived. */
function measure(start: number, res: IncomingMessage): Promise<Sample> {
  return new Promise((resolve, reject) => {
    let first = -1;
    let bytes = 0;
    res.on('data', (chunk: Buffer) => {
      if (first < 0) first = performance.now();
      bytes += chunk.length;
    });
    res.on('error', reject);
    res.on('end', () => {
      const end = performance.now();
      if (res.statusCode !== 200) reject(new Error(`unexpected status ${res.statusCode}`));
      else resolve({ ttfbMs: first - start, totalMs: end - start, bytes });
    });
  });
}

/** One kept-alive client per path (one connection each), and a GET through each. */
function clients(topology: BenchTopology) {
  const directAgent = new HttpsAgent({ keepAlive: true, ca: topology.ca, maxSockets: 1 });
  const proxyAgent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const nginxAgent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const floorAgent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const get = (which: PathName, path: string): Promise<Sample> => {
    if (which === 'direct') {
      const start = performance.now();
      return new Promise((resolve, reject) => {
        const req = httpsRequest({ host: '127.0.0.1', port: topology.modelPort, path, agent: directAgent });
        req.on('error', reject);
        req.on('response', (res) => void measure(start, res).then(resolve, reject));
        req.end();
      });
    }
    const target = which === 'nginx' ? path : `/inference/bench${path}`;
    // Signing is the edge's work, not the proxy's: done before the clock starts.
    const headers = which === 'proxy' ? signEnvelope({ key: BENCH_KEY, method: 'GET', target }) : {};
    const start = performance.now();
    return new Promise((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port:
          which === 'proxy'
            ? topology.proxyPort
            : which === 'floor'
              ? topology.floor.port
              : (topology.nginx?.port ?? 0),
        path: target,
        headers,
        agent: which === 'proxy' ? proxyAgent : which === 'floor' ? floorAgent : nginxAgent,
      });
      req.on('error', reject);
      req.on('response', (res) => void measure(start, res).then(resolve, reject));
      req.end();
    });
  };
  const close = (): void => {
    directAgent.destroy();
    proxyAgent.destroy();
    nginxAgent.destroy();
    floorAgent.destroy();
  };
  return { get, close };
}

interface Repetitions {
  ttfb: number;
  stream: number;
  sse: number;
}

/** Every path in a rotated order, so no path always runs right after the same neighbour. */
const rotated = (paths: readonly PathName[], i: number): PathName[] => [
  ...paths.slice(i % paths.length),
  ...paths.slice(0, i % paths.length),
];

/** CPU a process spends per second with no request in flight (its timers: metrics sampling, keep-alive). */
async function idleCpuMsPerSecond(cpuOf: () => number, ms: number): Promise<number> {
  const before = cpuOf();
  const start = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  return (cpuOf() - before) / ((performance.now() - start) / 1000);
}

/** One run of every selected load over every path. */
async function measureRun(
  topology: BenchTopology,
  get: (which: PathName, path: string) => Promise<Sample>,
  reps: Repetitions,
  phases: ReadonlySet<string>,
): Promise<RunFigures> {
  const paths: PathName[] = topology.nginx ? ['direct', 'proxy', 'nginx'] : ['direct', 'proxy'];
  const cpuOf = (which: PathName): number =>
    which === 'proxy'
      ? cpuMs(topology.proxyPid)
      : which === 'floor'
        ? cpuMs(topology.floor.pid)
        : which === 'nginx' && topology.nginx
          ? cpuMs(topology.nginx.workerPid)
          : 0;
  const samples = (): Record<PathName, number[]> => ({ direct: [], proxy: [], nginx: [], floor: [] });
  const ttfb = samples();
  const throughput = samples();
  const cpuPerMiB = samples();
  const sse = samples();
  const cpuPerRequest: PerPath = { direct: 0, proxy: 0, nginx: 0, floor: 0 };
  const load = loadavg()[0] ?? 0;
  let proxyIdleMsPerS = 0;

  if (phases.has('ttfb')) {
    // The whole phase's CPU over its requests: a process is idle while the other paths run, and work
    // left over after a response (pool bookkeeping, garbage collection) is counted too. What a process
    // spends per second while idle is not per request (the proxy's prom-client event-loop-delay monitor
    // wakes it 100 times a second; nginx's worker sleeps): measured just before, it is taken out pro rata.
    const cpuPaths: PathName[] = ['proxy', 'floor', 'nginx'];
    const idle: Partial<Record<PathName, number>> = {};
    for (const p of cpuPaths) idle[p] = await idleCpuMsPerSecond(() => cpuOf(p), 500);
    proxyIdleMsPerS = idle.proxy ?? 0;
    const before = Object.fromEntries(cpuPaths.map((p) => [p, cpuOf(p)])) as Record<PathName, number>;
    const started = performance.now();
    for (let i = 0; i < reps.ttfb; i++) {
      for (const p of rotated([...paths, 'floor'], i)) ttfb[p].push((await get(p, '/first')).ttfbMs);
    }
    const seconds = (performance.now() - started) / 1000;
    for (const p of cpuPaths) {
      const spent = cpuOf(p) - before[p] - (idle[p] ?? 0) * seconds;
      cpuPerRequest[p] = Math.max(0, spent) / reps.ttfb;
    }
  }
  for (let i = 0; phases.has('stream') && i < reps.stream; i++) {
    for (const p of rotated(paths, i)) {
      const before = cpuOf(p);
      const s = await get(p, '/stream');
      if (s.bytes !== STREAM_BYTES) throw new Error(`${p}: ${s.bytes} bytes streamed`);
      throughput[p].push(s.bytes / MiB / (s.totalMs / 1000));
      if (p !== 'direct') cpuPerMiB[p].push((cpuOf(p) - before) / (s.bytes / MiB));
    }
  }
  for (let i = 0; phases.has('sse') && i < reps.sse; i++) {
    for (const p of rotated(paths, i)) sse[p].push(SSE_EVENTS / ((await get(p, '/sse')).totalMs / 1000));
  }
  const medians = (v: Record<PathName, number[]>): PerPath => ({
    direct: median(v.direct),
    proxy: median(v.proxy),
    nginx: median(v.nginx),
    floor: median(v.floor),
  });
  return {
    throughput: medians(throughput),
    ttfb: medians(ttfb),
    cpuPerRequest,
    cpuPerMiB: medians(cpuPerMiB),
    sse: medians(sse),
    load,
    proxyIdleMsPerS,
  };
}

type FigureKey = Exclude<keyof RunFigures, 'load' | 'proxyIdleMsPerS'>;

interface FigureSpec {
  key: FigureKey;
  name: string;
  goal: string;
  met: (ratio: number) => boolean;
  /** The measured value with its unit. */
  format: (value: number) => string;
  /** What one run's figure is made of. */
  sampleNote: string;
  withDirect: boolean;
  /** Also show the floor (a bare node:http server relaying through undici) and its ratio to nginx. */
  withFloor?: boolean;
  /** Extra words for the note, from the runs. */
  extraNote?: (runs: readonly RunFigures[]) => string;
}

/** The figure across runs: median value per path, median ratio, and every run's ratio in the note. */
function figure(spec: FigureSpec, runs: readonly RunFigures[], hasNginx: boolean): BenchFigure {
  const value = (p: PathName): number => median(runs.map((r) => r[spec.key][p]));
  const ratios = runs.map((r) => (r[spec.key].nginx > 0 ? r[spec.key].proxy / r[spec.key].nginx : NaN));
  const ratio = hasNginx && ratios.every((x) => Number.isFinite(x)) ? median(ratios) : null;
  const perRun = runs.map(
    (r, i) => `${Number.isFinite(ratios[i]) ? ratios[i]!.toFixed(2) : '—'}× (load ${r.load.toFixed(1)})`,
  );
  const floorRatio = median(
    runs.map((r) => (r[spec.key].nginx > 0 ? r[spec.key].floor / r[spec.key].nginx : NaN)),
  );
  const note = [
    hasNginx ? '' : 'nginx not installed',
    spec.withDirect ? `direct ${spec.format(value('direct'))}` : '',
    spec.withFloor
      ? `floor (bare node:http + undici relay) ${spec.format(value('floor'))}` +
        (hasNginx && Number.isFinite(floorRatio) ? `, ${floorRatio.toFixed(2)}× nginx` : '')
      : '',
    spec.extraNote?.(runs) ?? '',
    `median of ${runs.length} runs, each ${spec.sampleNote}`,
    hasNginx ? `runs: ${perRun.join(', ')}` : '',
  ];
  return {
    name: spec.name,
    measured: spec.format(value('proxy')),
    anchor: hasNginx ? `nginx: ${spec.format(value('nginx'))}` : 'nginx not installed',
    ratio,
    goal: spec.goal,
    ...(ratio === null ? {} : { met: spec.met(ratio) }),
    note: note.filter((part) => part !== '').join('; '),
  };
}

export const run: BenchRun = async () => {
  const scale = Number(process.env.BENCH_REPETITIONS ?? 11);
  const runCount = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
  const reps: Repetitions = {
    stream: Math.max(3, scale),
    ttfb: Math.max(20, scale * 20),
    sse: Math.max(3, Math.ceil(scale / 2)),
  };
  const phases = new Set((process.env.BENCH_PHASES ?? 'ttfb,stream,sse').split(','));
  const topology = await startBenchTopology();
  if (!topology.nginx) process.stdout.write('nginx not installed\n');
  const { get, close } = clients(topology);
  const paths: PathName[] = topology.nginx ? ['direct', 'proxy', 'nginx'] : ['direct', 'proxy'];
  const runs: RunFigures[] = [];
  try {
    // Warm-up: TLS sessions and kept-alive connections on every hop, and the JIT. The small-answer path
    // gets enough requests for V8 to have compiled it (three left the first run's CPU figure with the
    // compiler threads and an interpreted proxy in it; nginx has nothing to warm up).
    for (let i = 0; phases.has('ttfb') && i < WARM_UP_REQUESTS; i++) {
      for (const p of [...paths, 'floor'] as const) await get(p, '/first');
    }
    for (let i = 0; i < 3; i++) {
      for (const p of paths) {
        if (phases.has('stream')) await get(p, '/stream');
        if (phases.has('sse')) await get(p, '/sse');
      }
    }
    for (let i = 0; i < runCount; i++) runs.push(await measureRun(topology, get, reps, phases));
  } finally {
    close();
    await topology.close();
  }
  const hasNginx = topology.nginx !== undefined;
  const specs: FigureSpec[] = [
    {
      key: 'throughput',
      name: 'inference-proxy throughput, 50 MiB stream',
      goal: '≥ 0.9× nginx',
      met: (x) => x >= 0.9,
      format: (v) => `${v.toFixed(0)} MiB/s`,
      sampleNote: `the median of ${reps.stream} streams`,
      withDirect: true,
    },
    {
      key: 'ttfb',
      name: 'inference-proxy time to first byte',
      goal: '≤ 1.5× nginx',
      met: (x) => x <= 1.5,
      format: (v) => `${v.toFixed(3)} ms`,
      sampleNote: `the median of ${reps.ttfb} small SSE answers`,
      withDirect: true,
      withFloor: true,
    },
    {
      key: 'cpuPerRequest',
      name: 'inference-proxy CPU per request',
      goal: '≤ 2× nginx',
      met: (x) => x <= 2,
      format: (v) => `${v.toFixed(3)} ms`,
      sampleNote: `the CPU time of the ${reps.ttfb}-answer phase, less each process's idle CPU rate over the phase's duration, ÷ ${reps.ttfb} (proxy process vs nginx worker, /proc schedstat)`,
      withDirect: false,
      withFloor: true,
      extraNote: (runs) =>
        `proxy idle ${median(runs.map((r) => r.proxyIdleMsPerS)).toFixed(1)} ms CPU/s taken out (prom-client event-loop-delay monitor)`,
    },
    {
      key: 'cpuPerMiB',
      name: 'inference-proxy CPU per MiB streamed',
      goal: '≤ 1.3× nginx',
      met: (x) => x <= 1.3,
      format: (v) => `${v.toFixed(2)} ms/MiB`,
      sampleNote: `the median of ${reps.stream} × 50 MiB (proxy process vs nginx worker, /proc schedstat)`,
      withDirect: false,
    },
    {
      key: 'sse',
      name: 'inference-proxy SSE, 20,000 small events',
      goal: '≥ 0.9× nginx',
      met: (x) => x >= 0.9,
      format: (v) => `${v.toFixed(0)} events/s`,
      sampleNote: `the median of ${reps.sse} streams`,
      withDirect: true,
    },
  ];
  return specs.map((spec) => figure(spec, runs, hasNginx));
};
