/**
 * What bench/inference-proxy.ts measures against: one local TLS model server, the inference-proxy in its
 * own process (bench/_inference-proxy-child.ts, so its CPU time can be read apart) and nginx
 * (`proxy_buffering off`, keep-alive upstream with verified TLS, one worker, a generated config in a temp
 * dir, started as a non-daemon child on a free port) when it is installed.
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
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createLocalCa } from '../local/tls.js';

export const BENCH_KEY = 'bench-signing-key-0123456789abcdef';
export const MiB = 1024 * 1024;
export const STREAM_BYTES = 50 * MiB;
export const SSE_EVENTS = 20_000;
const CHUNK = Buffer.alloc(64 * 1024, 'x');
const FIRST_EVENT = 'data: {"token":0}\n\n';
/** The model yields to its event loop after this many events, so events leave in many small TLS records. */
const SSE_BURST = 20;
const NGINX_CANDIDATES = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx'];

export interface BenchTopology {
  /** PEM of the CA that issued the model server's certificate. */
  readonly ca: string;
  readonly modelPort: number;
  readonly proxyPort: number;
  readonly proxyPid: number;
  /** The floor (bench/_inference-proxy-floor.ts): a bare node:http server relaying through undici. */
  readonly floor: { port: number; pid: number };
  /** Absent when nginx is not installed. */
  readonly nginx: { port: number; workerPid: number } | undefined;
  close(): Promise<void>;
}

/**
 * CPU time of a process, all threads, in milliseconds: the scheduler's on-CPU nanoseconds from
 * /proc/<pid>/task/<tid>/schedstat (utime + stime in /proc/<pid>/stat count 10 ms ticks, too coarse for
 * one run).
 */
export function cpuMs(pid: number): number {
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

/**
 * Model server: /first answers one SSE event at once; /stream sends 50 MiB as fast as the reader takes
 * them (64 KiB writes); /sse sends 20,000 small events in bursts of SSE_BURST writes.
 */
function modelServer(key: string, cert: string): Server {
  const server = createServer({ key, cert }, (req, res) => {
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
  server.keepAliveTimeout = 60_000;
  return server;
}

/** The proxy in its own process; resolves with its port once it prints it. */
async function startProxyChild(
  modelPort: number,
  caFile: string,
  script = './_inference-proxy-child.ts',
): Promise<{ child: ChildProcess; port: number }> {
  const nodeArgs = (process.env.BENCH_PROXY_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const childScript = fileURLToPath(new URL(script, import.meta.url));
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', childScript], {
    env: { ...process.env, BENCH_KEY, BENCH_MODEL_PORT: String(modelPort), BENCH_CA_FILE: caFile },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const exited = once(child, 'exit').then(([code]) => {
      throw new Error(`inference-proxy process exited with ${String(code)} before listening`);
    });
    const firstLine = (await Promise.race([
      once(createInterface({ input: child.stdout }), 'line'),
      exited,
    ])) as [string];
    exited.catch(() => undefined);
    return { child, port: (JSON.parse(firstLine[0]) as { port: number }).port };
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
}

/** nginx with one worker in front of the model server, or undefined when nginx is not installed. */
async function startNginx(
  dir: string,
  modelPort: number,
  caFile: string,
): Promise<{ child: ChildProcess; port: number; workerPid: number } | undefined> {
  const bin = NGINX_CANDIDATES.find((p) => existsSync(p));
  if (bin === undefined) return undefined;
  const port = await freePort();
  const nginxDir = join(dir, 'nginx');
  mkdirSync(nginxDir);
  writeFileSync(join(nginxDir, 'nginx.conf'), nginxConfig(nginxDir, port, modelPort, caFile));
  const child = spawn(
    bin,
    ['-p', nginxDir, '-e', join(nginxDir, 'error.log'), '-c', join(nginxDir, 'nginx.conf')],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  try {
    await waitForPort(port, child, 'nginx');
    const workers = childPids(child.pid!);
    if (workers.length !== 1) throw new Error(`expected one nginx worker, found ${workers.length}`);
    return { child, port, workerPid: workers[0]! };
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
}

/** Starts the model server, the proxy process and nginx (when installed); close() stops them all. */
export async function startBenchTopology(): Promise<BenchTopology> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-inference-proxy-'));
  const ca = createLocalCa('bench CA');
  const cert = ca.issue(['127.0.0.1']);
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, ca.cert);
  const model = modelServer(cert.key, cert.cert);
  model.listen(0, '127.0.0.1');
  await once(model, 'listening');
  const modelPort = (model.address() as AddressInfo).port;
  const children: ChildProcess[] = [];
  const close = async (): Promise<void> => {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null ? once(c, 'exit') : Promise.resolve())));
    model.closeAllConnections();
    await new Promise<void>((resolve) => model.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const proxy = await startProxyChild(modelPort, caFile);
    children.push(proxy.child);
    const floor = await startProxyChild(modelPort, caFile, './_inference-proxy-floor.ts');
    children.push(floor.child);
    const nginx = await startNginx(dir, modelPort, caFile);
    if (nginx) children.push(nginx.child);
    return {
      ca: ca.cert,
      modelPort,
      proxyPort: proxy.port,
      proxyPid: proxy.child.pid!,
      floor: { port: floor.port, pid: floor.child.pid! },
      nginx: nginx && { port: nginx.port, workerPid: nginx.workerPid },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
