/**
 * Control-plane proxy overhead: N sequential GETs to the same local HTTPS backend (a cluster service
 * with the envelope verifier), once directly (signed by the client itself) and once through the proxy
 * handler (event → rules → sign → forward → API Gateway result). Both use a keep-alive agent trusting
 * the throw-away CA, so the difference is what the proxy adds. Reports median and p95 of the proxy
 * against the direct call (bench/figures.ts). `BENCH_N` sets N (default 300).
 */
import { request, type Agent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { silentServiceLogger as silentPino } from '../cluster/shared/logger.js';
import { createService } from '../cluster/shared/service.js';
import { createHandler } from '../lambda/control-plane-proxy/index.js';
import { staticTargetResolver, targetFactory } from '../lambda/shared/backend-target.js';
import { EnvelopeVerifier, signEnvelope } from '../contracts/envelope/envelope.js';
import type { ProxyEvent } from '../lambda/shared/proxy-request.js';
import { staticKeySource } from '../contracts/envelope/signing-keys.js';
import { createLocalCa } from '../local/tls.js';
import type { BenchFigure, BenchRun } from './figures.js';

const KEY = 'bench-signing-key-0123456789abcdef';
const BACKEND_NAME = 'backend.gco.gco.internal';
const PATH = '/api/v1/bench';
const QUERY = 'namespace=svc-jobs&limit=50';

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? Number.NaN;
}

function directGet(port: number, agent: Agent): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = `${PATH}?${QUERY}`;
    const req = request(
      {
        host: '127.0.0.1',
        port,
        servername: BACKEND_NAME,
        agent,
        method: 'GET',
        path: target,
        headers: { host: BACKEND_NAME, ...signEnvelope({ key: KEY, method: 'GET', target }) },
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.once('error', reject);
    req.end();
  });
}

function event(i: number): ProxyEvent {
  return {
    httpMethod: 'GET',
    path: PATH,
    resource: '/api/v1/{proxy+}',
    pathParameters: { proxy: 'bench' },
    headers: { Accept: 'application/json' },
    multiValueHeaders: { Accept: ['application/json'] },
    queryStringParameters: { namespace: 'svc-jobs', limit: '50' },
    multiValueQueryStringParameters: { namespace: ['svc-jobs'], limit: ['50'] },
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: `bench-${i}`, stage: 'prod', identity: { sourceIp: '203.0.113.1' } },
  };
}

function summary(samples: number[]): { median: number; p95: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: percentile(sorted, 50), p95: percentile(sorted, 95) };
}

const ms = (value: number): string => `${value.toFixed(3)} ms`;

export const run: BenchRun = async () => {
  const n = Number(process.env['BENCH_N'] ?? 300);
  const warmup = Math.min(50, Math.ceil(n / 5));
  const ca = createLocalCa();
  const service = await createService({
    name: 'bench-backend',
    version: '1.0.0',
    description: 'control-plane proxy benchmark backend',
    envelope: new EnvelopeVerifier({ keys: staticKeySource({ current: KEY }) }),
    logger: silentPino(),
    https: ca.issue(['127.0.0.1', BACKEND_NAME]),
    routes: (app) => {
      app.get(
        PATH,
        { schema: { querystring: { type: 'object', additionalProperties: true } } },
        async () => ({
          jobs: [],
          total: 0,
        }),
      );
    },
  });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = service.app.server.address() as AddressInfo;

  const makeTarget = targetFactory({ caPem: ca.cert, servername: BACKEND_NAME, port });
  const direct = makeTarget('127.0.0.1');
  const proxied = targetFactory({ caPem: ca.cert, servername: BACKEND_NAME, port })('127.0.0.1');
  const handler = createHandler({
    keys: staticKeySource({ current: KEY }),
    targets: staticTargetResolver(proxied),
    hostHeader: BACKEND_NAME,
    logger: silentPino(),
  });
  const context = {
    awsRequestId: 'bench',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:111122223333:function:bench',
  };

  const directMs: number[] = [];
  const proxyMs: number[] = [];
  try {
    // Interleaved, so drift on a shared machine affects both sides alike.
    for (let i = 0; i < warmup + n; i++) {
      let t = process.hrtime.bigint();
      const status = await directGet(port, direct.agent);
      const d = Number(process.hrtime.bigint() - t) / 1e6;
      t = process.hrtime.bigint();
      const res = await handler(event(i), context);
      const p = Number(process.hrtime.bigint() - t) / 1e6;
      if (status !== 200 || res.statusCode !== 200) {
        throw new Error(`unexpected status: direct ${status}, proxy ${res.statusCode} ${res.body}`);
      }
      if (i >= warmup) {
        directMs.push(d);
        proxyMs.push(p);
      }
    }
  } finally {
    direct.agent.destroy();
    proxied.agent.destroy();
    await service.app.close();
  }

  const d = summary(directMs);
  const p = summary(proxyMs);
  const note = `${n} sequential GETs after ${warmup} warm-up, HTTPS keep-alive, interleaved`;
  const figures: BenchFigure[] = [
    {
      name: 'control-plane proxy latency, median',
      measured: ms(p.median),
      anchor: `direct signed GET to the same backend: ${ms(d.median)}`,
      ratio: p.median / d.median,
      note: `${note}; added ${ms(p.median - d.median)}`,
    },
    {
      name: 'control-plane proxy latency, p95',
      measured: ms(p.p95),
      anchor: `direct signed GET to the same backend: ${ms(d.p95)}`,
      ratio: p.p95 / d.p95,
      note,
    },
  ];
  return figures;
};
