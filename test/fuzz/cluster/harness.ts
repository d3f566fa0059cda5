/**
 * One region of the local platform for the generated-input suite: the four cluster services started by
 * their own createXxxFromEnv() wiring (local/region.ts) over dynalite, s3rver, the Kubernetes API
 * simulator and OpenCost, plus the sample model registered as an inference endpoint. Requests go
 * straight to each service (HMAC envelope signed, cost-monitor over its internal-CA TLS) as exact bytes:
 * any method, target, headers and body, nothing normalised on the way.
 */
import { BatchV1Api } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { QUEUE_JOB_LABEL } from '../../../cluster/manifest-processor/src/queue/index.js';
import { documentClient } from '../../../cluster/shared/dynamo.js';
import { signEnvelope } from '../../../contracts/envelope/envelope.js';
import type { ClusterServiceName } from '../../../contracts/routing.js';
import { TABLES, tableName } from '../../../contracts/tables.js';
import { startLocalDynamo } from '../../../local/dynamodb.js';
import { registerInferenceEndpoint } from '../../../local/inference-endpoint.js';
import { kubeConfigFor } from '../../../local/kube-api-simulator/index.js';
import { MODEL_HEALTH_PATH, MODEL_SERVING_PATHS, startModelServer } from '../../../local/model-server.js';
import { startLocalRegion } from '../../../local/region.js';
import { createLocalCa } from '../../../local/tls.js';
import { readBody } from '../../support/read-body.js';

const PROJECT = 'fuzz';
const REGION = 'us-east-1';
/** A second deployment region, so target_region has more than one valid value. */
export const DEPLOYMENT_REGIONS = [REGION, 'eu-west-1'] as const;
/** The sample model, registered as running in this region. */
export const MODEL_ENDPOINT = 'fuzz-model';

export interface RawRequest {
  method: string;
  /** Path and query exactly as sent (already percent-encoded). */
  target: string;
  headers?: Record<string, string>;
  body?: Buffer;
}

export interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
}

export interface FuzzRegion {
  readonly urls: Readonly<Record<ClusterServiceName, string>>;
  /** Sends exactly this request to a service; the envelope is added unless the service has none. */
  send(service: ClusterServiceName, request: RawRequest): Promise<RawReply>;
  /** The service's OpenAPI document. */
  openapi(service: ClusterServiceName): Promise<OpenApiDocument>;
  /** How many queued jobs and idempotency records the central queue table holds. */
  queueCounts(): Promise<{ jobs: number; keys: number }>;
  hasIdempotencyRecord(key: string): Promise<boolean>;
  templateCount(): Promise<number>;
  webhookCount(): Promise<number>;
  /** Every inference endpoint record without `regions` (the reconcilers' part), sorted by name. */
  endpointRecords(): Promise<Record<string, unknown>[]>;
  /** Kubernetes Jobs in the simulated cluster that the queue worker did not create, every namespace. */
  clusterJobCount(): Promise<number>;
  close(): Promise<void>;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
}

interface OpenApiOperation {
  operationId: string;
  parameters?: { in: 'path' | 'query' | 'header'; name: string; required?: boolean; schema: JsonSchema }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
}

export type JsonSchema = Record<string, unknown>;

export async function startFuzzRegion(): Promise<FuzzRegion> {
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  try {
    const ca = createLocalCa('fuzz internal CA');
    const signingKey = randomBytes(32).toString('hex');
    const central = await startLocalDynamo({
      project: PROJECT,
      region: 'us-east-2',
      tables: Object.values(TABLES).filter((t) => t.scope === 'central'),
    });
    closers.push(() => central.close());
    const region = await startLocalRegion({
      project: PROJECT,
      region: REGION,
      deploymentRegions: DEPLOYMENT_REGIONS,
      accountId: '000000000000',
      backendHostname: `backend.${PROJECT}.internal`,
      ca,
      signingKey,
      central,
      logs: 'silent',
      kubelet: { pendingMs: 20, runningMs: 40 },
      progress: () => undefined,
    });
    closers.push(() => region.close());
    const model = await startModelServer({ certificate: ca.issue(['127.0.0.1']), tokenDelayMs: 0 });
    closers.push(() => model.close());
    const centralClient = central.client();
    await registerInferenceEndpoint(centralClient, tableName(PROJECT, TABLES.inferenceEndpoints), {
      name: MODEL_ENDPOINT,
      regions: [REGION],
      service: '127.0.0.1',
      port: model.port,
      servingPaths: MODEL_SERVING_PATHS,
      healthPath: MODEL_HEALTH_PATH,
    });

    const urls = region.services as Record<ClusterServiceName, string>;
    const httpAgent = new HttpAgent({ keepAlive: true });
    const httpsAgent = new HttpsAgent({ keepAlive: true, ca: ca.cert });
    closers.push(async () => {
      httpAgent.destroy();
      httpsAgent.destroy();
    });

    const send = (service: ClusterServiceName, r: RawRequest): Promise<RawReply> => {
      const base = new URL(urls[service]);
      const secure = base.protocol === 'https:';
      const envelope =
        service === 'cost-monitor'
          ? {}
          : signEnvelope({
              key: signingKey,
              method: r.method,
              target: r.target,
              ...(r.body ? { body: r.body } : {}),
            });
      const headers: Record<string, string> = {
        ...envelope,
        ...(r.body ? { 'content-length': String(r.body.length) } : {}),
        ...r.headers,
      };
      return new Promise((resolve, reject) => {
        const req = (secure ? httpsRequest : httpRequest)(
          {
            host: base.hostname,
            port: base.port,
            method: r.method,
            path: r.target,
            headers,
            agent: secure ? httpsAgent : httpAgent,
            ...(secure ? { servername: 'cost-monitor' } : {}),
          },
          (res) => {
            readBody(res).then(
              (body) =>
                resolve({
                  status: res.statusCode ?? 0,
                  headers: res.headers,
                  body,
                  text: body.toString('utf8'),
                }),
              reject,
            );
          },
        );
        req.on('error', reject);
        req.end(r.body);
      });
    };

    const doc = documentClient(centralClient);
    const queueTable = tableName(PROJECT, TABLES.jobQueue);
    const scanAll = async (table: string) => {
      const items: Record<string, unknown>[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const out = await doc.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
        items.push(...(out.Items ?? []));
        start = out.LastEvaluatedKey;
      } while (start);
      return items;
    };
    const batch = kubeConfigFor(region.kubernetes).makeApiClient(BatchV1Api);

    return {
      urls,
      send,
      async openapi(service) {
        const reply = await send(service, { method: 'GET', target: '/openapi.json' });
        if (reply.status !== 200) throw new Error(`${service} /openapi.json answered ${reply.status}`);
        return JSON.parse(reply.text) as OpenApiDocument;
      },
      async queueCounts() {
        const items = await scanAll(queueTable);
        const keys = items.filter((i) => String(i.pk).startsWith('idempotency#')).length;
        return { jobs: items.length - keys, keys };
      },
      async hasIdempotencyRecord(key) {
        const out = await doc.send(
          new GetCommand({ TableName: queueTable, Key: { pk: `idempotency#${key}` }, ConsistentRead: true }),
        );
        return out.Item !== undefined;
      },
      async templateCount() {
        return (await scanAll(tableName(PROJECT, TABLES.jobTemplates))).length;
      },
      async webhookCount() {
        return (await scanAll(tableName(PROJECT, TABLES.webhooks))).length;
      },
      async endpointRecords() {
        const items = await scanAll(tableName(PROJECT, TABLES.inferenceEndpoints));
        return items
          .map(({ regions: _regions, ...rest }) => rest)
          .sort((a, b) => String(a.endpoint_name).localeCompare(String(b.endpoint_name)));
      },
      async clusterJobCount() {
        // The queue worker dispatches in the background; only requests under test create the others.
        const jobs = (await batch.listJobForAllNamespaces()).items;
        return jobs.filter((j) => j.metadata?.labels?.[QUEUE_JOB_LABEL] === undefined).length;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
