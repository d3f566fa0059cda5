// Pooled keep-alive connections that the server closed while they sat idle in the pool. The Kubernetes
// API simulator runs behind a TCP front that closes connections idle for IDLE_MS, the way the API
// server's IdleTimeout does (90 s in k8s.io/apiserver secure serving:
// https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/server/secure_serving.go),
// except that the front decides the close when the next request arrives: its close always crosses that
// request, the race a pooled client loses when the server's FIN or RST is still on the wire as it
// writes. Node documents the case and its remedy (retry when `request.reusedSocket`):
// https://nodejs.org/api/http.html#requestreusedsocket

import net from 'node:net';

import { BatchV1Api, CoreV1Api, type V1Job } from '@kubernetes/client-node';

import { KubeJobDispatcher, QUEUE_JOB_LABEL } from '../../cluster/manifest-processor/src/queue/index.js';
import { enqueuedJob } from '../../cluster/manifest-processor/src/queue/submission.js';
import { destroyKubeAgents } from '../../cluster/shared/kube-pool.js';
import { StrictObjectApi } from '../../cluster/shared/strict-objects.js';
import type { KubeApiSimulator } from '../../local/kube-api-simulator/index.js';
import { kubeConfigFor, startKubeApiSimulator } from '../../local/kube-api-simulator/index.js';

const NS = 'svc-jobs';
const IDLE_MS = 40;
/** Longer than IDLE_MS: the pooled connection is then one the front closes as the request arrives. */
const PAUSE_MS = 120;

type CloseWith = 'fin' | 'rst';

interface FrontMode {
  closeIdle: boolean;
  closeEveryRequest?: boolean;
  /** FIN (the server closed) or RST (it closed with the request unread). */
  closeWith: CloseWith;
}

/**
 * A TCP front of the simulator. `closeIdle`: a connection that answered and then sat idle for IDLE_MS
 * is closed instead of forwarding the next request. `closeEveryRequest`: no request gets through.
 */
class ClosingFront {
  connections = 0;
  /** Requests the front closed the connection on instead of forwarding. */
  closed = 0;
  private readonly server: net.Server;
  private readonly open = new Set<net.Socket>();

  constructor(
    private readonly upstreamPort: number,
    /** What the front closes; a test may change it between calls. */
    public mode: FrontMode,
  ) {
    this.server = net.createServer((client) => this.accept(client));
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.open) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    this.connections++;
    const upstream = net.connect(this.upstreamPort, '127.0.0.1');
    this.open.add(client).add(upstream);
    let answeredAt: number | undefined;
    const end = () => {
      client.destroy();
      upstream.destroy();
      this.open.delete(client);
      this.open.delete(upstream);
    };
    client.on('data', (chunk: Buffer) => {
      const idle = answeredAt !== undefined && performance.now() - answeredAt >= IDLE_MS;
      if (this.mode.closeEveryRequest || (this.mode.closeIdle && idle)) {
        this.closed++;
        if (this.mode.closeWith === 'rst') client.resetAndDestroy();
        end();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      answeredAt = performance.now();
      client.write(chunk);
    });
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  }
}

function job(name: string): V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: NS },
    spec: {
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } },
    },
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let sim: KubeApiSimulator;
let front: ClosingFront | undefined;

beforeAll(async () => {
  sim = await startKubeApiSimulator();
});

afterAll(async () => {
  destroyKubeAgents();
  await sim.close();
});

afterEach(async () => {
  destroyKubeAgents();
  await front?.close();
  front = undefined;
});

async function startFront(mode: FrontMode): Promise<string> {
  front = new ClosingFront(Number(new URL(sim.url).port), mode);
  return front.listen();
}

describe.each<CloseWith>(['fin', 'rst'])(
  'a pooled connection the server closed while idle (%s)',
  (closeWith) => {
    test('a GET on it is retried once on a fresh connection and succeeds', async () => {
      const url = await startFront({ closeIdle: true, closeWith });
      const core = kubeConfigFor(url).makeApiClient(CoreV1Api);
      await expect(core.readNamespace({ name: NS })).resolves.toHaveProperty('metadata.name', NS);
      await pause(PAUSE_MS);
      await expect(core.readNamespace({ name: NS })).resolves.toHaveProperty('metadata.name', NS);
      // The second call met the closed connection, then went through a new one.
      expect(front?.closed).toBe(1);
      expect(front?.connections).toBe(2);
    });

    test('writes guarded by dryRun or a precondition are retried', async () => {
      const url = await startFront({ closeIdle: true, closeWith });
      const kc = kubeConfigFor(url);
      const batch = kc.makeApiClient(BatchV1Api);
      const objects = StrictObjectApi.forConfig(kc);
      const created = await batch.createNamespacedJob({ namespace: NS, body: job(`idle-${closeWith}`) });

      await pause(PAUSE_MS);
      // dryRun persists nothing, so sending it twice cannot do anything twice.
      await expect(
        objects.createStrict(job(`idle-dry-${closeWith}`), { fieldManager: 'test', dryRun: 'All' }),
      ).resolves.toHaveProperty('metadata.name', `idle-dry-${closeWith}`);
      await pause(PAUSE_MS);
      // A UID precondition: a second delivery could only answer Conflict or NotFound, never delete twice.
      await expect(
        batch.deleteNamespacedJob({
          namespace: NS,
          name: `idle-${closeWith}`,
          body: { preconditions: { uid: created.metadata?.uid ?? '' } },
        }),
      ).resolves.toBeDefined();
      expect(front?.closed).toBe(2);
      expect(sim.get('batch/v1', 'Job', NS, `idle-dry-${closeWith}`)).toBeUndefined();
    });

    test('an unguarded create is not resent by the client: the reset reaches the caller once', async () => {
      const url = await startFront({ closeIdle: true, closeWith });
      const batch = kubeConfigFor(url).makeApiClient(BatchV1Api);
      await batch.listNamespacedJob({ namespace: NS });
      await pause(PAUSE_MS);
      await expect(
        batch.createNamespacedJob({ namespace: NS, body: job(`idle-unguarded-${closeWith}`) }),
      ).rejects.toMatchObject({ code: expect.stringMatching(/^(ECONNRESET|EPIPE)$/) as unknown });
      expect(front?.closed).toBe(1);
      expect(front?.connections).toBe(1);
    });

    test("the queue dispatcher's create is resent once: its own name makes it safe", async () => {
      const url = await startFront({ closeIdle: true, closeWith });
      const dispatcher = new KubeJobDispatcher(kubeConfigFor(url));
      const queued = (id: string) =>
        enqueuedJob(
          {
            job_id: id,
            target_region: 'us-east-1',
            namespace: NS,
            priority: 0,
            labels: null,
            manifest: { ...job(`queued-${closeWith}`) },
            max_spot_price: null,
            spot_instance_type: null,
            idempotency_key: null,
            request_hash: 'test',
          },
          new Date().toISOString(),
        );
      const digit = closeWith === 'fin' ? 1 : 2;
      await dispatcher.apply(queued(`00000000-0000-4000-8000-00000000000${digit}`));
      await pause(PAUSE_MS);
      const id = `10000000-0000-4000-8000-00000000000${digit}`;
      const ref = await dispatcher.apply(queued(id));
      expect(front?.closed).toBe(1);
      const created = sim
        .list('batch/v1', 'Job', NS)
        .filter((j) => (j.metadata.labels as Record<string, string> | undefined)?.[QUEUE_JOB_LABEL] === id);
      expect(created.map((j) => j.metadata.uid)).toEqual([ref.uid]);
    });
  },
);

describe('what is not retried', () => {
  test('a reset on a fresh connection reaches the caller without a retry', async () => {
    const url = await startFront({ closeIdle: false, closeEveryRequest: true, closeWith: 'fin' });
    const core = kubeConfigFor(url).makeApiClient(CoreV1Api);
    await expect(core.readNamespace({ name: NS })).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(front?.connections).toBe(1);
    expect(front?.closed).toBe(1);
  });

  test('the retry happens once: a server that also closes the fresh connection fails the call', async () => {
    const url = await startFront({ closeIdle: true, closeWith: 'fin' });
    const core = kubeConfigFor(url).makeApiClient(CoreV1Api);
    await core.readNamespace({ name: NS });
    await pause(PAUSE_MS);
    // From now on every request is closed, on the pooled connection and on the fresh one.
    if (front) front.mode = { closeIdle: true, closeEveryRequest: true, closeWith: 'fin' };
    await expect(core.readNamespace({ name: NS })).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(front?.closed).toBe(2);
    expect(front?.connections).toBe(2);
  });
});
