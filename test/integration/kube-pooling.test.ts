// Pooled Kubernetes connections: the services' own API clients (JobsService, SnapshotCollector,
// ResourceService), the Kubernetes API simulator served over real TLS on 127.0.0.1 with a throw-away
// CA, and the simulator's count of accepted TCP connections.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { BatchV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';

import { SnapshotCollector } from '../../cluster/health-monitor/src/snapshot.js';
import { JobsService } from '../../cluster/manifest-processor/src/jobs/service.js';
import { ResourceService } from '../../cluster/manifest-processor/src/resources.js';
import { kubeConfigFromEnv } from '../../cluster/shared/kube.js';
import {
  destroyKubeAgents,
  kubeAgentCount,
  pooledKubeAgent,
  pooledKubeConfig,
  PooledKubeConfig,
} from '../../cluster/shared/kube-pool.js';
import type { KubeApiSimulator } from '../../local/kube-api-simulator/index.js';
import { kubeConfigFor, startKubeApiSimulator } from '../../local/kube-api-simulator/index.js';
import type { LocalCa } from '../../local/tls.js';
import { createLocalCa } from '../../local/tls.js';

const NS = 'svc-jobs';

let ca: LocalCa;
let sim: KubeApiSimulator;

function job(name: string): Record<string, unknown> {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: NS },
    spec: {
      template: {
        spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
      },
    },
  };
}

beforeAll(async () => {
  ca = createLocalCa('kube-pooling test CA');
  sim = await startKubeApiSimulator({ tls: { ...ca.issue(['127.0.0.1']), ca: ca.cert } });
});

afterAll(async () => {
  destroyKubeAgents();
  await sim.close();
});

beforeEach(() => {
  // Every test starts without pooled connections, so the counts below are its own.
  destroyKubeAgents();
});

/** Connections and requests the simulator saw while `work` ran. */
async function measure(work: () => Promise<void>): Promise<{ connections: number; requests: number }> {
  const before = sim.connectionStats();
  await work();
  const after = sim.connectionStats();
  return {
    connections: after.connections - before.connections,
    requests: after.requests - before.requests,
  };
}

describe('pooled Kubernetes connections', () => {
  test("the services' clients reuse at most one connection per 100 calls", async () => {
    const kc = kubeConfigFor(sim.url, 'default', { ca: ca.cert });
    const jobs = new JobsService(kc);
    const collector = new SnapshotCollector(kc);
    const resources = new ResourceService(kc);

    const seen = await measure(async () => {
      for (let i = 0; i < 100; i++) await jobs.create(NS, job(`pool-${i}`));
      // Steady load with a few calls in flight at once: lists, reads, snapshots (Metrics goes through
      // applyToFetchOptions, the generated APIs through applySecurityAuthentication).
      for (let round = 0; round < 100; round++) {
        await Promise.all([
          jobs.find({ namespaces: [NS] }),
          jobs.read(NS, `pool-${round}`),
          collector.collect(),
          resources.status({ apiVersion: 'batch/v1', kind: 'Job', namespace: NS, name: `pool-${round}` }),
        ]);
      }
    });

    expect(seen.requests).toBeGreaterThanOrEqual(600);
    expect(seen.connections).toBeGreaterThanOrEqual(1);
    expect(seen.connections * 100).toBeLessThanOrEqual(seen.requests);
  });

  test('TLS verification still rejects a server certificate from another CA', async () => {
    const other = createLocalCa('another CA');
    const impostor = await startKubeApiSimulator({
      tls: { ...other.issue(['127.0.0.1']), ca: other.cert },
    });
    try {
      // The client trusts `ca`; the server's certificate chains to `other`.
      const kc = kubeConfigFor(impostor.url, 'default', { ca: ca.cert });
      const batch = kc.makeApiClient(BatchV1Api);
      await expect(batch.listNamespacedJob({ namespace: NS })).rejects.toThrow(/certificate/);
      // Again, with a pooled agent for that identity already in place.
      await expect(batch.listNamespacedJob({ namespace: NS })).rejects.toThrow(/certificate/);
      // The same client with the right CA goes through.
      const trusted = kubeConfigFor(impostor.url, 'default', { ca: other.cert }).makeApiClient(BatchV1Api);
      await expect(trusted.listNamespacedJob({ namespace: NS })).resolves.toHaveProperty('items');
    } finally {
      await impostor.close();
    }
  });

  test('the pooled agent keeps verification on and the CA of the kubeconfig', () => {
    const kc = kubeConfigFor(sim.url, 'default', { ca: ca.cert });
    const made = new https.Agent({ ca: Buffer.from(ca.cert) });
    const agent = pooledKubeAgent(kc.getCurrentCluster(), made);
    expect(agent).toBeInstanceOf(https.Agent);
    expect(agent).not.toBe(made);
    const options = (agent as https.Agent).options;
    expect(options.rejectUnauthorized).not.toBe(false);
    expect(String(options.ca)).toBe(ca.cert);
    expect(options.keepAlive).toBe(true);
  });

  test('two KubeConfigs for the same server and identity share one pool', async () => {
    const a = kubeConfigFor(sim.url, 'default', { ca: ca.cert }).makeApiClient(CoreV1Api);
    // The same server and CA loaded another way: a kubeconfig file as KUBECONFIG would give it.
    const fromYaml = new KubeConfig();
    fromYaml.loadFromString(sim.kubeConfigYaml());
    const b = pooledKubeConfig(fromYaml).makeApiClient(BatchV1Api);

    const seen = await measure(async () => {
      for (let i = 0; i < 50; i++) {
        await a.listNamespace();
        await b.listNamespacedJob({ namespace: NS });
      }
    });
    expect(kubeAgentCount()).toBe(1);
    expect(seen.requests).toBe(100);
    expect(seen.connections).toBe(1);
  });

  test('different TLS identities for the same server get different pools', async () => {
    const plain = kubeConfigFor(sim.url, 'default', { ca: ca.cert }).makeApiClient(CoreV1Api);
    // A client certificate (the simulator does not ask for one; it still makes another identity).
    const client = ca.issue(['pooling-test-user']);
    const withCert = new PooledKubeConfig();
    withCert.loadFromOptions({
      clusters: [{ name: 'c', server: sim.url, caData: Buffer.from(ca.cert).toString('base64') }],
      users: [
        {
          name: 'u',
          certData: Buffer.from(client.cert).toString('base64'),
          keyData: Buffer.from(client.key).toString('base64'),
        },
      ],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const certified = withCert.makeApiClient(CoreV1Api);
    // Another CA bundle (both CAs) that still verifies this server.
    const bundle = kubeConfigFor(sim.url, 'default', { ca: `${ca.cert}\n${createLocalCa('extra').cert}` });
    const bundled = bundle.makeApiClient(CoreV1Api);

    const seen = await measure(async () => {
      for (let i = 0; i < 10; i++) {
        await plain.listNamespace();
        await certified.listNamespace();
        await bundled.listNamespace();
      }
    });
    expect(kubeAgentCount()).toBe(3);
    expect(seen.requests).toBe(30);
    expect(seen.connections).toBe(3);
  });

  test('kubeConfigFromEnv builds a pooled KubeConfig', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kube-pooling-'));
    const file = join(dir, 'kubeconfig');
    writeFileSync(file, sim.kubeConfigYaml());
    const kc = kubeConfigFromEnv({ KUBECONFIG: file });
    rmSync(dir, { recursive: true, force: true });
    expect(kc).toBeInstanceOf(PooledKubeConfig);
    expect(pooledKubeConfig(kc)).toBe(kc);
    const plain = new KubeConfig();
    expect(pooledKubeConfig(plain)).toBe(pooledKubeConfig(plain));
  });
});
