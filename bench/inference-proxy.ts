/**
 * inference-proxy benchmark: time to first byte and streaming throughput through the proxy versus a
 * direct connection to the same local TLS model server, both over kept-alive connections, N repetitions
 * each (interleaved so machine noise hits both alike), medians compared. Prints the two ratios
 * proxy/direct; TTFB ratio > 1 is the proxy's added latency, throughput ratio < 1 its cost per byte.
 */
import { once } from 'node:events';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, createServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createInferenceProxy } from '../cluster/inference-proxy/src/app.js';
import { StaticEndpointSource } from '../cluster/inference-proxy/src/store.js';
import { silentServiceLogger } from '../cluster/shared/logger.js';
import { EnvelopeVerifier, signEnvelope } from '../lambda/shared/envelope.js';
import { staticKeySource } from '../lambda/shared/signing-keys.js';
import { createLocalCa } from '../local/tls.js';

const KEY = 'bench-signing-key-0123456789abcdef';
const STREAM_BYTES = 16 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');
const FIRST_EVENT = 'data: {"token":0}\n\n';

export interface BenchOptions {
  repetitions?: number;
}

interface Sample {
  ttfbMs: number;
  totalMs: number;
  bytes: number;
}

function median(values: number[]): number {
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

export async function run(opts: BenchOptions = {}): Promise<void> {
  const repetitions = opts.repetitions ?? Number(process.env.BENCH_REPETITIONS ?? 31);
  const ca = createLocalCa('bench CA');
  const cert = ca.issue(['127.0.0.1']);

  // Model server: /first answers one SSE event at once; /stream sends STREAM_BYTES as fast as the
  // reader takes them.
  const model = createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    if (req.url?.startsWith('/first')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(FIRST_EVENT);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    let sent = 0;
    const pump = () => {
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
  model.listen(0, '127.0.0.1');
  await once(model, 'listening');
  const modelPort = (model.address() as AddressInfo).port;

  const proxy = await createInferenceProxy({
    config: {
      region: 'bench-1',
      upstreamTimeoutMs: 30_000,
      streamIdleTimeoutMs: 30_000,
      endpointCacheTtlMs: 5_000,
    },
    envelope: new EnvelopeVerifier({ keys: staticKeySource({ current: KEY }) }),
    endpoints: new StaticEndpointSource([
      {
        endpoint_name: 'bench',
        regions: { 'bench-1': { state: 'running' } },
        service: '127.0.0.1',
        port: modelPort,
        serving_paths: ['/first', '/stream'],
      },
    ]),
    ca: ca.cert,
    logger: silentServiceLogger(),
  });
  const proxyUrl = new URL(await proxy.app.listen({ host: '127.0.0.1', port: 0 }));

  const directAgent = new HttpsAgent({ keepAlive: true, ca: ca.cert, maxSockets: 1 });
  const proxyAgent = new HttpAgent({ keepAlive: true, maxSockets: 1 });

  const direct = (path: string): Promise<Sample> => {
    const start = performance.now();
    return new Promise((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port: modelPort, path, agent: directAgent });
      req.on('error', reject);
      req.on('response', (res) => void measure(start, res).then(resolve, reject));
      req.end();
    });
  };
  const viaProxy = (path: string): Promise<Sample> => {
    const target = `/inference/bench${path}`;
    // Signing is the edge's work, not the proxy's: done before the clock starts.
    const headers = signEnvelope({ key: KEY, method: 'GET', target });
    const start = performance.now();
    return new Promise((resolve, reject) => {
      const req = httpRequest({
        host: proxyUrl.hostname,
        port: proxyUrl.port,
        path: target,
        headers,
        agent: proxyAgent,
      });
      req.on('error', reject);
      req.on('response', (res) => void measure(start, res).then(resolve, reject));
      req.end();
    });
  };

  try {
    for (let i = 0; i < 5; i++) {
      await direct('/first');
      await viaProxy('/first');
      await direct('/stream');
      await viaProxy('/stream');
    }
    const ttfb = { direct: [] as number[], proxy: [] as number[] };
    const throughput = { direct: [] as number[], proxy: [] as number[] };
    for (let i = 0; i < repetitions; i++) {
      ttfb.direct.push((await direct('/first')).ttfbMs);
      ttfb.proxy.push((await viaProxy('/first')).ttfbMs);
      const d = await direct('/stream');
      const p = await viaProxy('/stream');
      // MiB/s over the whole response.
      throughput.direct.push(d.bytes / 1048576 / (d.totalMs / 1000));
      throughput.proxy.push(p.bytes / 1048576 / (p.totalMs / 1000));
    }
    const ttfbDirect = median(ttfb.direct);
    const ttfbProxy = median(ttfb.proxy);
    const tpDirect = median(throughput.direct);
    const tpProxy = median(throughput.proxy);
    const lines = [
      `inference-proxy (median of ${repetitions}, ${STREAM_BYTES / 1048576} MiB streams, local TLS model server)`,
      `  time to first byte:   direct ${ttfbDirect.toFixed(3)} ms, via proxy ${ttfbProxy.toFixed(3)} ms`,
      `  streaming throughput: direct ${tpDirect.toFixed(0)} MiB/s, via proxy ${tpProxy.toFixed(0)} MiB/s`,
      `  ttfb ratio proxy/direct:       ${(ttfbProxy / ttfbDirect).toFixed(2)}`,
      `  throughput ratio proxy/direct: ${(tpProxy / tpDirect).toFixed(2)}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    directAgent.destroy();
    proxyAgent.destroy();
    await proxy.app.close();
    model.closeAllConnections();
    await new Promise<void>((resolve) => model.close(() => resolve()));
  }
}
