/**
 * inference-proxy benchmark: the same TLS model server read by the same kept-alive client three ways —
 * directly, through the inference-proxy (its own process, bench/_inference-proxy-child.ts) and through
 * nginx (`proxy_buffering off`, keep-alive upstream, one worker, generated config in a temp dir). Figures:
 * 50 MiB streaming throughput, time to first byte, CPU per MiB (proxy process vs nginx worker, from
 * the scheduler statistics in /proc) and 20,000 small SSE events per second. Repetitions are interleaved so machine noise
 * hits every path alike; medians are compared. Without nginx the nginx column is null ("nginx not installed").
 *
 * BENCH_REPETITIONS scales the repetitions; BENCH_PROXY_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/p")
 * is passed to the proxy's node process; BENCH_PHASES (e.g. "stream" or "sse") runs only some loads, to
 * profile one at a time (the figures of the skipped loads are then 0).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, createServer, request as httpsRequest } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { signEnvelope } from '../contracts/envelope/envelope.js';
import { createLocalCa } from '../local/tls.js';
import type { BenchRun } from './figures.js';

const KEY = 'bench-signing-key-0123456789abcdef';
const MiB = 1024 * 1024;
const STREAM_BYTES = 50 * MiB;
const CHUNK = Buffer.alloc(64 * 1024, 'x');
const FIRST_EVENT = 'data: {"token":0}\n\n';
const SSE_EVENTS = 20_000;
/** The model yields to its event loop after this many events, so events leave in many small TLS records. */
const SSE_BURST = 20;
const NGINX_CANDIDATES = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'];

type PathName = 'direct' | 'proxy' | 'nginx';

interface Sample {
  ttfbMs: number;
  totalMs: number;
  bytes: number;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/**
 * CPU time of a process, all threads, in milliseconds: the scheduler's on-CPU nanoseconds from
 * /proc/<pid>/task/<tid>/schedstat (utime + stime in /proc/<pid>/stat count 10 ms ticks, too coarse for
 * one 50 MiB run).
 */
function cpuMs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended while we looked.
    }
  }
  return ns / 1e6;
}

/** Children of a process, found through the parent pid in /proc/<pid>/stat. */
function childPids(parent: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
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

async function waitForPort(port: number, child: ChildProcess, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/nginx-ready', agent: false });
      req.on('response', (res) => {
        res.resume();
        resolve(true);
      });
      req.on('error', () => resolve(false));
      req.end();
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${what} did not start listening`);
}

function nginxConfig(dir: string, port: number, modelPort: number, caFile: string): string {
  return `daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  keepalive_requests 100000;
  upstream model {
    server 127.0.0.1:${modelPort};
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass https://model;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_ssl_verify on;
      proxy_ssl_trusted_certificate ${caFile};
      proxy_ssl_name 127.0.0.1;
      proxy_ssl_session_reuse on;
    }
  }
}
`;
}

export const run: BenchRun = async () => {
  const scale = Number(process.env.BENCH_REPETITIONS ?? 11);
  const streamReps = Math.max(3, scale);
  const ttfbReps = Math.max(20, scale * 20);
  const sseReps = Math.max(3, Math.ceil(scale / 2));
  const phases = new Set((process.env.BENCH_PHASES ?? 'ttfb,stream,sse').split(','));
  const dir = mkdtempSync(join(tmpdir(), 'bench-inference-proxy-'));
  const ca = createLocalCa('bench CA');
  const cert = ca.issue(['127.0.0.1']);
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, ca.cert);

  // Model server: /first answers one SSE event at once; /stream sends 50 MiB as fast as the reader takes
  // them (64 KiB writes); /sse sends 20,000 small events, each its own write.
  const model = createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    if (req.url?.startsWith('/first')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(FIRST_EVENT);
      return;
    }
    if (req.url?.startsWith('/sse')) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      let n = 0;
      const burst = (): void => {
        const stop = Math.min(SSE_EVENTS, n + SSE_BURST);
        let open = true;
        while (n < stop) open = res.write(`data: {"token":${n++}}\n\n`);
        if (n >= SSE_EVENTS) res.end();
        else if (open) setImmediate(burst);
        else res.once('drain', burst);
      };
      burst();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    let sent = 0;
    const pump = (): void => {
      while (sent < STREAM_BYTES) {
        sent += CHUNK.length;
        if (!res.write(CHUNK)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    pump();
  });
  model.keepAliveTimeout = 60_000;
  model.listen(0, '127.0.0.1');
  await once(model, 'listening');
  const modelPort = (model.address() as AddressInfo).port;

  // The proxy in its own process.
  const nodeArgs = (process.env.BENCH_PROXY_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const childScript = fileURLToPath(new URL('./_inference-proxy-child.ts', import.meta.url));
  const proxyChild = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', childScript], {
    env: {
      ...process.env,
      BENCH_KEY: KEY,
      BENCH_MODEL_PORT: String(modelPort),
      BENCH_CA_FILE: caFile,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stopModel = async (): Promise<void> => {
    model.closeAllConnections();
    await new Promise<void>((resolve) => model.close(() => resolve()));
  };
  let proxyPort = 0;
  try {
    const exited = once(proxyChild, 'exit').then(([code]) => {
      throw new Error(`inference-proxy process exited with ${String(code)} before listening`);
    });
    const firstLine = (await Promise.race([
      once(createInterface({ input: proxyChild.stdout }), 'line'),
      exited,
    ])) as [string];
    exited.catch(() => undefined);
    proxyPort = (JSON.parse(firstLine[0]) as { port: number }).port;
  } catch (error) {
    proxyChild.kill('SIGTERM');
    await stopModel();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const proxyPid = proxyChild.pid!;

  // nginx, when installed.
  const nginxBin = NGINX_CANDIDATES.find((p) => existsSync(p));
  let nginx: ChildProcess | undefined;
  let nginxPort = 0;
  let nginxWorker = 0;
  try {
    if (nginxBin === undefined) {
      process.stdout.write('nginx not installed\n');
    } else {
      nginxPort = await freePort();
      const nginxDir = join(dir, 'nginx');
      mkdirSync(nginxDir);
      writeFileSync(join(nginxDir, 'nginx.conf'), nginxConfig(nginxDir, nginxPort, modelPort, caFile));
      nginx = spawn(
        nginxBin,
        ['-p', nginxDir, '-e', join(nginxDir, 'error.log'), '-c', join(nginxDir, 'nginx.conf')],
        {
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      );
      await waitForPort(nginxPort, nginx, 'nginx');
      const workers = childPids(nginx.pid!);
      if (workers.length !== 1) throw new Error(`expected one nginx worker, found ${workers.length}`);
      nginxWorker = workers[0]!;
    }
  } catch (error) {
    nginx?.kill('SIGTERM');
    proxyChild.kill('SIGTERM');
    await stopModel();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const paths: PathName[] = nginx ? ['direct', 'proxy', 'nginx'] : ['direct', 'proxy'];

  const directAgent = new HttpsAgent({ keepAlive: true, ca: ca.cert, maxSockets: 1 });
  const proxyAgent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const nginxAgent = new HttpAgent({ keepAlive: true, maxSockets: 1 });

  const get = (which: PathName, path: string): Promise<Sample> => {
    if (which === 'direct') {
      const start = performance.now();
      return new Promise((resolve, reject) => {
        const req = httpsRequest({ host: '127.0.0.1', port: modelPort, path, agent: directAgent });
        req.on('error', reject);
        req.on('response', (res) => void measure(start, res).then(resolve, reject));
        req.end();
      });
    }
    const target = which === 'proxy' ? `/inference/bench${path}` : path;
    // Signing is the edge's work, not the proxy's: done before the clock starts.
    const headers = which === 'proxy' ? signEnvelope({ key: KEY, method: 'GET', target }) : {};
    const start = performance.now();
    return new Promise((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port: which === 'proxy' ? proxyPort : nginxPort,
        path: target,
        headers,
        agent: which === 'proxy' ? proxyAgent : nginxAgent,
      });
      req.on('error', reject);
      req.on('response', (res) => void measure(start, res).then(resolve, reject));
      req.end();
    });
  };
  const cpuOf = (which: PathName): number =>
    which === 'proxy' ? cpuMs(proxyPid) : which === 'nginx' ? cpuMs(nginxWorker) : 0;

  const empty = (): Record<PathName, number[]> => ({ direct: [], proxy: [], nginx: [] });
  const ttfb = empty();
  const throughput = empty();
  /** CPU milliseconds per MiB of each 50 MiB run. */
  const cpuPerMiBRuns = empty();
  const sse = empty();
  try {
    // Warm-up: JIT, TLS sessions, kept-alive connections on every hop.
    for (let i = 0; i < 3; i++) {
      for (const p of paths) {
        if (phases.has('ttfb')) await get(p, '/first');
        if (phases.has('stream')) await get(p, '/stream');
        if (phases.has('sse')) await get(p, '/sse');
      }
    }
    for (let i = 0; phases.has('ttfb') && i < ttfbReps; i++) {
      for (const p of paths) ttfb[p].push((await get(p, '/first')).ttfbMs);
    }
    for (let i = 0; phases.has('stream') && i < streamReps; i++) {
      // Rotate the order too, so no path always runs right after the same neighbour.
      for (const p of [...paths.slice(i % paths.length), ...paths.slice(0, i % paths.length)]) {
        const before = cpuOf(p);
        const s = await get(p, '/stream');
        if (s.bytes !== STREAM_BYTES) throw new Error(`${p}: ${s.bytes} bytes streamed`);
        throughput[p].push(s.bytes / MiB / (s.totalMs / 1000));
        if (p !== 'direct') cpuPerMiBRuns[p].push((cpuOf(p) - before) / (s.bytes / MiB));
      }
    }
    for (let i = 0; phases.has('sse') && i < sseReps; i++) {
      for (const p of [...paths.slice(i % paths.length), ...paths.slice(0, i % paths.length)]) {
        const s = await get(p, '/sse');
        sse[p].push(SSE_EVENTS / (s.totalMs / 1000));
      }
    }
  } finally {
    directAgent.destroy();
    proxyAgent.destroy();
    nginxAgent.destroy();
    proxyChild.kill('SIGTERM');
    nginx?.kill('SIGTERM');
    await Promise.all([
      proxyChild.exitCode === null ? once(proxyChild, 'exit') : undefined,
      nginx && nginx.exitCode === null ? once(nginx, 'exit') : undefined,
    ]);
    await stopModel();
    rmSync(dir, { recursive: true, force: true });
  }

  const m = (p: PathName, values: Record<PathName, number[]>): number => median(values[p]);
  const hasNginx = nginx !== undefined;
  const ratio = (a: number, b: number): number | null => (hasNginx && b > 0 ? a / b : null);
  const nginxText = (text: string): string => (hasNginx ? text : 'nginx not installed');
  const tp = {
    direct: m('direct', throughput),
    proxy: m('proxy', throughput),
    nginx: m('nginx', throughput),
  };
  const tt = { direct: m('direct', ttfb), proxy: m('proxy', ttfb), nginx: m('nginx', ttfb) };
  const ev = { direct: m('direct', sse), proxy: m('proxy', sse), nginx: m('nginx', sse) };
  const cpuPerMiB = { proxy: m('proxy', cpuPerMiBRuns), nginx: m('nginx', cpuPerMiBRuns) };
  const goal = (r: number | null, ok: (x: number) => boolean): { met?: boolean } =>
    r === null ? {} : { met: ok(r) };

  const tpRatio = ratio(tp.proxy, tp.nginx);
  const ttRatio = ratio(tt.proxy, tt.nginx);
  const cpuRatio = ratio(cpuPerMiB.proxy, cpuPerMiB.nginx);
  const evRatio = ratio(ev.proxy, ev.nginx);
  return [
    {
      name: 'inference-proxy throughput, 50 MiB stream',
      measured: `${tp.proxy.toFixed(0)} MiB/s`,
      anchor: nginxText(`nginx proxy_buffering off: ${tp.nginx.toFixed(0)} MiB/s`),
      ratio: tpRatio,
      goal: '≥ 0.9× nginx',
      ...goal(tpRatio, (x) => x >= 0.9),
      note: `${hasNginx ? '' : 'nginx not installed; '}direct ${tp.direct.toFixed(0)} MiB/s; median of ${streamReps}`,
    },
    {
      name: 'inference-proxy time to first byte',
      measured: `${tt.proxy.toFixed(3)} ms`,
      anchor: nginxText(`nginx: ${tt.nginx.toFixed(3)} ms`),
      ratio: ttRatio,
      goal: '≤ 1.5× nginx',
      ...goal(ttRatio, (x) => x <= 1.5),
      note: `${hasNginx ? '' : 'nginx not installed; '}direct ${tt.direct.toFixed(3)} ms; median of ${ttfbReps}`,
    },
    {
      name: 'inference-proxy CPU per MiB streamed',
      measured: `${cpuPerMiB.proxy.toFixed(2)} ms/MiB (proxy process)`,
      anchor: nginxText(`nginx worker: ${cpuPerMiB.nginx.toFixed(2)} ms/MiB`),
      ratio: cpuRatio,
      goal: '≤ 1.3× nginx',
      ...goal(cpuRatio, (x) => x <= 1.3),
      note: `${hasNginx ? '' : 'nginx not installed; '}on-CPU time from /proc schedstat, median of ${streamReps} × 50 MiB`,
    },
    {
      name: 'inference-proxy SSE, 20,000 small events',
      measured: `${ev.proxy.toFixed(0)} events/s`,
      anchor: nginxText(`nginx: ${ev.nginx.toFixed(0)} events/s`),
      ratio: evRatio,
      note: `${hasNginx ? '' : 'nginx not installed; '}direct ${ev.direct.toFixed(0)} events/s; median of ${sseReps}`,
    },
  ];
};
