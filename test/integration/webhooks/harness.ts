/**
 * Webhook test bed: dynalite + the Kubernetes API simulator + N service instances (each with its own
 * DynamoDB client, JobEventWatcher and DeliveryWorker, as N replicas would be) + HTTPS receivers signed by
 * a throw-away CA that the delivery client trusts through its `ca` option.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BatchV1Api, type V1Job } from '@kubernetes/client-node';
import { loadPolicyConfig, ValidationPolicy } from '../../../cluster/manifest-processor/src/policy/index.js';
import {
  DeliveryStore,
  DeliveryWorker,
  JobEventWatcher,
  webhookRoutes,
  WEBHOOKS_PREFIX,
  WebhookStore,
  type Lookup,
  type WebhookConfig,
} from '../../../cluster/manifest-processor/src/webhooks/index.js';
import { silentServiceLogger } from '../../../cluster/shared/logger.js';
import type { Service } from '../../../cluster/shared/service.js';
import { startLocalDynamo, type LocalDynamo } from '../../../local/dynamodb.js';
import {
  kubeConfigFor,
  startKubeApiSimulator,
  type KubeApiSimulator,
} from '../../../local/kube-api-simulator/index.js';
import { createLocalCa, type LocalCa } from '../../../local/tls.js';
import { jobManifest, POLICY_ENV } from '../../support/cluster-fixtures.js';
import { startPluginService } from '../../support/plugin-service.js';
import { signedCaller, type SignedCall } from '../../support/signed-call.js';

interface Instance {
  service: Service;
  base: string;
  call: SignedCall;
  watcher: JobEventWatcher;
  worker: DeliveryWorker;
}

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test-only JSON bodies
}

interface Receiver {
  /** https://127.0.0.1:PORT */
  url: string;
  requests: Received[];
  close(): Promise<void>;
}

export interface WebhookHarness {
  dynamo: LocalDynamo;
  sim: KubeApiSimulator;
  ca: LocalCa;
  instances: Instance[];
  call: SignedCall;
  deliveries: DeliveryStore;
  config: WebhookConfig;
  /** Starts every instance's watcher and worker. */
  startLoops(): void;
  /** One watcher pass and one worker pass on every instance. */
  runAll(): Promise<void>;
  startReceiver(respond?: (req: Received, index: number) => number): Promise<Receiver>;
  createJob(name: string, opts?: { fail?: boolean; namespace?: string }): Promise<V1Job>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  instances?: number;
  allowPrivateTargets?: boolean;
  config?: Partial<WebhookConfig>;
  lookup?: Lookup;
}

export async function startWebhookHarness(opts: HarnessOptions = {}): Promise<WebhookHarness> {
  const dynamo = await startLocalDynamo();
  const sim = await startKubeApiSimulator({ kubelet: { pendingMs: 100, runningMs: 300 } });
  const ca = createLocalCa();
  const kubeConfig = kubeConfigFor(sim.url);
  const policy = new ValidationPolicy(loadPolicyConfig(POLICY_ENV));
  const config: WebhookConfig = {
    webhooksTable: dynamo.env.WEBHOOKS_TABLE ?? '',
    deliveriesTable: dynamo.env.WEBHOOK_DELIVERIES_TABLE ?? '',
    allowPrivateTargets: opts.allowPrivateTargets ?? true,
    deliveryEnabled: true,
    pollIntervalMs: 50,
    timeoutMs: 3_000,
    maxAttempts: 6,
    retryBaseMs: 50,
    retryMaxMs: 200,
    leaseMs: 10_000,
    batchSize: 10,
    eventMaxAgeMs: 3_600_000,
    retentionDays: 7,
    workerId: 'unused',
    ...opts.config,
  };
  const instances: Instance[] = [];
  for (let i = 0; i < (opts.instances ?? 1); i++) {
    // Each replica has its own client, watcher and worker; only the tables are shared.
    const client = dynamo.client();
    const webhooks = new WebhookStore(client, config.webhooksTable);
    const deliveries = new DeliveryStore(client, config.deliveriesTable);
    const watcher = new JobEventWatcher({
      kubeConfig,
      namespaces: policy.config.allowedNamespaces,
      webhooks,
      deliveries,
      config,
      source: { region: 'us-east-1', cluster: 'sim' },
      logger: silentServiceLogger(),
    });
    const worker = new DeliveryWorker({
      webhooks,
      deliveries,
      config: { ...config, workerId: `replica-${i}` },
      ca: ca.cert,
      ...(opts.lookup ? { lookup: opts.lookup } : {}),
      logger: silentServiceLogger(),
    });
    const { service, base } = await startPluginService({
      description: 'webhook test instance',
      routes: async (app) => {
        await app.register(webhookRoutes, {
          prefix: WEBHOOKS_PREFIX,
          webhooks,
          allowPrivateTargets: config.allowPrivateTargets,
          allowedNamespaces: policy.config.allowedNamespaces,
          ...(opts.lookup ? { lookup: opts.lookup } : {}),
        });
      },
      readiness: { watcher: () => watcher.running, worker: () => worker.running },
      onClose: async () => {
        await watcher.stop();
        await worker.stop();
      },
    });
    instances.push({ service, base, call: signedCaller(base), watcher, worker });
  }
  const receivers: Receiver[] = [];
  const batch = kubeConfig.makeApiClient(BatchV1Api);
  const first = instances[0]!;

  return {
    dynamo,
    sim,
    ca,
    instances,
    call: first.call,
    deliveries: new DeliveryStore(dynamo.client(), config.deliveriesTable),
    config,
    startLoops() {
      for (const i of instances) {
        i.watcher.start();
        i.worker.start();
      }
    },
    async runAll() {
      for (const i of instances) await i.watcher.runOnce();
      for (const i of instances) await i.worker.runOnce();
    },
    async startReceiver(respond = () => 200) {
      const { key, cert } = ca.issue(['127.0.0.1']);
      const requests: Received[] = [];
      const server: Server = createServer({ key, cert }, (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          const received: Received = {
            path: req.url ?? '',
            headers: req.headers,
            body,
            json: JSON.parse(body),
          };
          requests.push(received);
          res.writeHead(respond(received, requests.length - 1), { 'content-type': 'text/plain' });
          res.end('receiver says hi');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const receiver: Receiver = {
        url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
        requests,
        close: async () => {
          server.closeAllConnections();
          await new Promise((resolve) => server.close(resolve));
        },
      };
      receivers.push(receiver);
      return receiver;
    },
    async createJob(name, jobOpts = {}) {
      const namespace = jobOpts.namespace ?? 'svc-jobs';
      const manifest = jobManifest(name, jobOpts.fail ? { command: ['sh', '-c', 'exit 3'] } : {});
      return batch.createNamespacedJob({ namespace, body: manifest });
    },
    async close() {
      for (const i of instances) await i.service.app.close();
      for (const r of receivers) await r.close();
      await sim.close();
      await dynamo.close();
    },
  };
}
