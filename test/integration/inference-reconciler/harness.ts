/**
 * The inference reconciler against real parts: dynalite holds the central table, one Kubernetes API
 * simulator per region, and a counting HTTP relay in front of each simulator that records every request
 * (how the tests count server-side applies per object and generation). Records are written the way the
 * lifecycle API writes them: spec changes increment `generation`.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  createInferenceReconciler,
  type InferenceReconcilerConfig,
  type InferenceReconcilerService,
} from '../../../cluster/manifest-processor/src/inference-reconciler/index.js';
import { INFERENCE_RECONCILER_DEFAULTS } from '../../../cluster/manifest-processor/src/inference-reconciler/config.js';
import { documentClient } from '../../../cluster/shared/dynamo.js';
import {
  endpointObjectName,
  endpointServiceHost,
  INFERENCE_NAMESPACE,
  MODEL_TLS_PORT,
  type EndpointRecord,
  type EndpointSpec,
} from '../../../contracts/inference-endpoints.js';
import { TABLES } from '../../../contracts/tables.js';
import { startLocalDynamo, type LocalDynamo } from '../../../local/dynamodb.js';
import {
  kubeConfigFor,
  startKubeApiSimulator,
  type KubeApiSimulator,
  type KubeObject,
} from '../../../local/kube-api-simulator/index.js';

export const REGION = 'us-east-1';
export const OTHER_REGION = 'eu-west-1';

interface RecordedRequest {
  method: string;
  path: string;
  contentType: string;
  body: string;
}

/** A simulator behind a relay that records every request made through it. */
export interface RegionCluster {
  region: string;
  sim: KubeApiSimulator;
  requests: RecordedRequest[];
  /** Server-side applies (PATCH application/apply-patch+yaml) as "Kind/name@generation-label". */
  applies(): string[];
  objects(kind: 'Deployment' | 'Service' | 'PodDisruptionBudget' | 'Pod'): KubeObject[];
  newReconciler(id: string, overrides?: Partial<InferenceReconcilerConfig>): InferenceReconcilerService;
  close(): Promise<void>;
}

const API_VERSION = { Deployment: 'apps/v1', Service: 'v1', PodDisruptionBudget: 'policy/v1', Pod: 'v1' };

async function relay(target: string, requests: RecordedRequest[]): Promise<Server> {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: String(req.headers['content-type'] ?? ''),
        body: body.toString('utf8'),
      });
      const out = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

export async function startCluster(
  region: string,
  dynamo: LocalDynamo,
  /** How long the simulated Deployment controller takes to report replicas ready. */
  pendingMs = 40,
): Promise<RegionCluster> {
  const sim = await startKubeApiSimulator({ kubelet: { pendingMs, runningMs: 80 } });
  sim.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: INFERENCE_NAMESPACE } });
  const requests: RecordedRequest[] = [];
  const server = await relay(sim.url, requests);
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const services: InferenceReconcilerService[] = [];
  return {
    region,
    sim,
    requests,
    applies: () =>
      requests
        .filter((r) => r.method === 'PATCH' && r.contentType.startsWith('application/apply-patch'))
        .map((r) => {
          const body = JSON.parse(r.body) as KubeObject;
          const labels = (body.metadata.labels ?? {}) as Record<string, string>;
          return `${body.kind}/${body.metadata.name}@${labels['gco.dev/inference-generation'] ?? '?'}`;
        }),
    objects: (kind) => sim.list(API_VERSION[kind], kind, INFERENCE_NAMESPACE),
    newReconciler(id, overrides = {}) {
      const service = createInferenceReconciler({
        config: {
          ...INFERENCE_RECONCILER_DEFAULTS,
          enabled: true,
          tableName: dynamo.env[TABLES.inferenceEndpoints.envVar] ?? '',
          region,
          intervalMs: 25,
          leaseDurationSeconds: 2,
          gracePeriodMs: 60_000,
          replicaId: id,
          ...overrides,
        },
        dynamodb: dynamo.client(),
        kubeConfig: kubeConfigFor(url),
      });
      services.push(service);
      return service;
    },
    async close() {
      for (const s of services) await s.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await sim.close();
    },
  };
}

/** The central table, written as the lifecycle API writes it. */
export class EndpointTable {
  private readonly doc;
  readonly tableName: string;

  constructor(dynamo: LocalDynamo) {
    this.doc = documentClient(dynamo.client());
    this.tableName = dynamo.env[TABLES.inferenceEndpoints.envVar] ?? '';
  }

  async create(name: string, spec: Partial<EndpointSpec> = {}): Promise<EndpointRecord> {
    const now = new Date().toISOString();
    const full: EndpointSpec = {
      image: 'registry.example/models/tiny:1',
      container_port: 8080,
      serving_paths: ['/v1/completions'],
      health_path: '/healthz',
      replicas: 1,
      resources: { cpu: '250m', memory: '256Mi' },
      env: { MODEL_NAME: name },
      regions: [REGION],
      stopped: false,
      canary: null,
      previous_image: null,
      ...spec,
    };
    const record: EndpointRecord = {
      endpoint_name: name,
      spec: full,
      generation: 1,
      created_at: now,
      updated_at: now,
      regions: {},
      service: endpointServiceHost(name, 'primary'),
      port: MODEL_TLS_PORT,
      canary: null,
      serving_paths: full.serving_paths,
      health_path: full.health_path,
    };
    await this.doc.send(new PutCommand({ TableName: this.tableName, Item: record }));
    return record;
  }

  async get(name: string): Promise<EndpointRecord | undefined> {
    const out = await this.doc.send(
      new GetCommand({ TableName: this.tableName, Key: { endpoint_name: name }, ConsistentRead: true }),
    );
    return out.Item as EndpointRecord | undefined;
  }

  /** A spec change: the next generation, conditional on the previous one (as the API does it). */
  async update(name: string, change: (spec: EndpointSpec) => Partial<EndpointSpec>): Promise<number> {
    const current = await this.get(name);
    if (!current) throw new Error(`no record ${name}`);
    const spec = { ...current.spec, ...change(current.spec) };
    const generation = current.generation + 1;
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { endpoint_name: name },
        UpdateExpression: 'SET spec = :s, generation = :n, updated_at = :t',
        ConditionExpression: 'generation = :g',
        ExpressionAttributeValues: {
          ':s': spec,
          ':n': generation,
          ':g': current.generation,
          ':t': new Date().toISOString(),
        },
      }),
    );
    return generation;
  }

  /** What DELETE does: deleting=true and a new generation. */
  async markDeleting(name: string): Promise<number> {
    const current = await this.get(name);
    if (!current) throw new Error(`no record ${name}`);
    await this.doc.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { endpoint_name: name },
        UpdateExpression: 'SET deleting = :t, generation = :n',
        ConditionExpression: 'generation = :g',
        ExpressionAttributeValues: { ':t': true, ':n': current.generation + 1, ':g': current.generation },
      }),
    );
    return current.generation + 1;
  }

  async remove(name: string): Promise<void> {
    await this.doc.send(new DeleteCommand({ TableName: this.tableName, Key: { endpoint_name: name } }));
  }
}

export { endpointObjectName, startLocalDynamo, type LocalDynamo };
