/**
 * Kubernetes connections: the Kubernetes API simulator over TLS (a throw-away CA, as a real API server
 * is) and manifest-processor in this one process, driven with `CONCURRENCY` calls in flight.
 *
 * - new TCP connections per 100 Kubernetes API calls under steady load (the simulator counts accepted
 *   connections and requests) — goal ≤ 1;
 * - signed `GET /api/v1/jobs` calls/s against `/healthz` calls/s of the same service (the cost of a
 *   call that goes through the Kubernetes client, relative to one that does not);
 * - Job list and Job creation through client-node with the pooled KubeConfig against client-node's
 *   own per-call agents (a plain KubeConfig), the same calls in the same run.
 *
 * `BENCH_N` sets the calls per figure (default 2000; Job creation uses N/4).
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';

import { BatchV1Api, KubeConfig } from '@kubernetes/client-node';

import { createManifestProcessor } from '../cluster/manifest-processor/src/app.js';
import { loadPolicyConfig, ValidationPolicy } from '../cluster/manifest-processor/src/policy/index.js';
import { destroyKubeAgents } from '../cluster/shared/kube-pool.js';
import { silentServiceLogger } from '../cluster/shared/logger.js';
import { EnvelopeVerifier, signEnvelope } from '../contracts/envelope/envelope.js';
import { staticKeySource } from '../contracts/envelope/signing-keys.js';
import type { KubeObject } from '../local/kube-api-simulator/index.js';
import { kubeConfigFor, startKubeApiSimulator } from '../local/kube-api-simulator/index.js';
import { createLocalCa } from '../local/tls.js';
import type { BenchFigure, BenchRun } from './figures.js';

const KEY = 'bench-signing-key-0123456789abcdef';
const NS = 'svc-jobs';
const CONCURRENCY = 8;
const SEEDED_JOBS = 50;

function jobManifest(name: string): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: NS, labels: { bench: 'kube-connections' } },
    spec: {
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [
            { name: 'main', image: 'busybox', resources: { requests: { cpu: '10m', memory: '16Mi' } } },
          ],
        },
      },
    },
  };
}

/** Runs `call(i)` for i < n with `CONCURRENCY` in flight; returns calls per second. */
async function rate(n: number, call: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < n; i = next++) await call(i);
    }),
  );
  return n / ((performance.now() - start) / 1000);
}

function get(agent: HttpAgent, port: number, path: string, signed: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        agent,
        method: 'GET',
        path,
        headers: signed ? signEnvelope({ key: KEY, method: 'GET', target: path }) : {},
      },
      (res) => {
        res.resume();
        res.once('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`GET ${path}: ${res.statusCode}`)),
        );
      },
    );
    req.once('error', reject);
    req.end();
  });
}

const perSecond = (value: number): string => `${value.toFixed(0)} calls/s`;

export const run: BenchRun = async () => {
  const n = Number(process.env['BENCH_N'] ?? 2000);
  const ca = createLocalCa('kube-connections bench CA');
  const sim = await startKubeApiSimulator({ tls: { ...ca.issue(['127.0.0.1']), ca: ca.cert } });
  for (let i = 0; i < SEEDED_JOBS; i++) sim.put(jobManifest(`seed-${i}`));
  const pooled = kubeConfigFor(sim.url, 'default', { ca: ca.cert });
  const service = await createManifestProcessor({
    config: { clusterName: 'bench', region: 'us-east-1', defaultJobNamespace: NS },
    policy: new ValidationPolicy(
      loadPolicyConfig({ ALLOWED_NAMESPACES: `${NS},default`, TRUSTED_DOCKERHUB_ORGS: 'library' }),
    ),
    kubeConfig: pooled,
    envelope: new EnvelopeVerifier({ keys: staticKeySource({ current: KEY }) }),
    logger: silentServiceLogger(),
  });
  await service.app.listen({ host: '127.0.0.1', port: 0 });
  const port = service.app.server.address();
  if (port === null || typeof port === 'string') throw new Error('manifest-processor has no TCP port');
  const client = new HttpAgent({ keepAlive: true, maxSockets: CONCURRENCY });
  const jobsPath = `/api/v1/jobs?namespace=${NS}&limit=50`;

  // The same server and CA as a plain client-node KubeConfig: a new agent (and connection) per call.
  const plain = new KubeConfig();
  plain.loadFromString(sim.kubeConfigYaml());
  const pooledBatch = pooled.makeApiClient(BatchV1Api);
  const plainBatch = plain.makeApiClient(BatchV1Api);

  try {
    // Warm-up: JIT, TLS session, pooled connections.
    await rate(200, () => get(client, port.port, '/healthz', false));
    await rate(200, () => get(client, port.port, jobsPath, true));

    const healthz = await rate(n, () => get(client, port.port, '/healthz', false));
    // From an empty pool: the connections the pool opens to fill up count too.
    destroyKubeAgents();
    const before = sim.connectionStats();
    const jobList = await rate(n, () => get(client, port.port, jobsPath, true));
    const after = sim.connectionStats();
    const kubeCalls = after.requests - before.requests;
    const newConnections = after.connections - before.connections;
    const per100 = (newConnections / kubeCalls) * 100;

    const listPooled = await rate(n, async () => {
      await pooledBatch.listNamespacedJob({ namespace: NS, limit: 50 });
    });
    const plainBefore = sim.connectionStats();
    const listPlain = await rate(Math.ceil(n / 4), async () => {
      await plainBatch.listNamespacedJob({ namespace: NS, limit: 50 });
    });
    const plainAfter = sim.connectionStats();
    const plainPer100 =
      ((plainAfter.connections - plainBefore.connections) / (plainAfter.requests - plainBefore.requests)) *
      100;

    const creates = Math.ceil(n / 4);
    const createPooled = await rate(creates, async (i) => {
      await pooledBatch.createNamespacedJob({ namespace: NS, body: jobManifest(`pooled-${i}`) });
    });
    const createPlain = await rate(creates, async (i) => {
      await plainBatch.createNamespacedJob({ namespace: NS, body: jobManifest(`plain-${i}`) });
    });

    const figures: BenchFigure[] = [
      {
        name: `new Kubernetes API connections per 100 calls (signed job list, ${CONCURRENCY} in flight)`,
        measured: `${per100.toFixed(2)} per 100 calls`,
        anchor: `${newConnections} connections (from an empty pool) for ${kubeCalls} calls; client-node's per-call agents: ${plainPer100.toFixed(0)} per 100`,
        ratio: per100,
        goal: '≤ 1 per 100 calls',
        met: per100 <= 1,
      },
      {
        name: 'signed job list through manifest-processor (Kubernetes over TLS)',
        measured: perSecond(jobList),
        anchor: `/healthz of the same service: ${perSecond(healthz)}`,
        ratio: jobList / healthz,
        note: `${SEEDED_JOBS} Jobs listed per call; simulator, service and client share this process`,
      },
      {
        name: 'client-node Job list, pooled KubeConfig',
        measured: perSecond(listPooled),
        anchor: `client-node's per-call agents: ${perSecond(listPlain)}`,
        ratio: listPooled / listPlain,
      },
      {
        name: 'client-node Job creation, pooled KubeConfig',
        measured: `${createPooled.toFixed(0)} Jobs/s`,
        anchor: `client-node's per-call agents: ${createPlain.toFixed(0)} Jobs/s; /healthz ${perSecond(healthz)}`,
        ratio: createPooled / createPlain,
        note: `${creates} Jobs each`,
      },
    ];
    return figures;
  } finally {
    client.destroy();
    await service.app.close();
    destroyKubeAgents();
    await sim.close();
  }
};
