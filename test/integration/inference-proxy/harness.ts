/**
 * Test harness for inference-proxy: a local TLS model server (certificate from a throw-away CA), the
 * proxy in-process against dynalite, and an HTTP client that records when each chunk arrived.
 */
import { once } from 'node:events';
import {
  request as httpRequest,
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createInferenceProxy, type InferenceProxy } from '../../../cluster/inference-proxy/src/app.js';
import type { InferenceProxyConfig } from '../../../cluster/inference-proxy/src/config.js';
import {
  DynamoEndpointSource,
  StaticEndpointSource,
  type EndpointSource,
} from '../../../cluster/inference-proxy/src/store.js';
import { silentServiceLogger } from '../../../cluster/shared/logger.js';
import { signEnvelope } from '../../../contracts/envelope/envelope.js';
import { createLocalCa, type IssuedCertificate, type LocalCa } from '../../../local/tls.js';
import { TABLES } from '../../../contracts/tables.js';
import { KEY, testEnvelopeVerifier } from '../../support/cluster-fixtures.js';

export const REGION = 'us-east-1';

let ca: LocalCa | undefined;
let serverCert: IssuedCertificate | undefined;

/** One CA and one model-server certificate per test file (RSA key generation is the slow part). */
export function testCa(): { ca: LocalCa; cert: IssuedCertificate } {
  ca ??= createLocalCa('inference-proxy test CA');
  serverCert ??= ca.issue(['127.0.0.1', 'model.svc']);
  return { ca, cert: serverCert };
}

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** Writes an endpoint record as the endpoint store holds it (plain attributes, marshalled by lib-dynamodb). */
export async function putEndpoint(
  client: DynamoDBClient,
  table: string,
  record: Record<string, Json>,
): Promise<void> {
  await DynamoDBDocumentClient.from(client).send(new PutCommand({ TableName: table, Item: record }));
}

export function tableOf(env: Record<string, string>): string {
  const name = env[TABLES.inferenceEndpoints.envVar];
  if (!name) throw new Error('inference endpoints table missing from the local DynamoDB environment');
  return name;
}

/** A running endpoint record served by 127.0.0.1:<port>. */
export function endpointRecord(
  name: string,
  port: number,
  extra: Record<string, Json> = {},
): Record<string, Json> {
  return {
    endpoint_name: name,
    regions: { [REGION]: { state: 'running' } },
    service: '127.0.0.1',
    port,
    serving_paths: ['/v1/chat/completions', '/v1/completions', '/generate', '/v1/models/*'],
    health_path: '/health',
    updated_at: '2025-01-01T00:00:00Z',
    ...extra,
  };
}

interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type ModelHandler = (
  req: IncomingMessage & { body: Buffer },
  res: ServerResponse,
) => void | Promise<void>;

export interface ModelServer {
  readonly port: number;
  readonly seen: SeenRequest[];
  /** Requests whose connection closed before the response finished (the proxy gave up on them). */
  readonly aborted: SeenRequest[];
  close(): Promise<void>;
}

/** An HTTPS model server; each request's body is read before `handler` runs. */
export async function startModelServer(
  handler: ModelHandler,
  tls: IssuedCertificate = testCa().cert,
): Promise<ModelServer> {
  const seen: SeenRequest[] = [];
  const aborted: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: SeenRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      seen.push(entry);
      res.on('close', () => {
        if (!res.writableFinished) aborted.push(entry);
      });
      void Promise.resolve(handler(Object.assign(req, { body: entry.body }), res)).catch(() => res.destroy());
    });
  });
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => undefined);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    aborted,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers every request with what it received, as JSON, plus a few headers to check the relay. */
export const echoHandler: ModelHandler = (req, res) => {
  const body = JSON.stringify({
    method: req.method,
    url: req.url,
    headers: req.headers,
    body_length: req.body.length,
  });
  res.setHeader('content-type', 'application/json');
  res.setHeader('x-model', 'echo');
  res.setHeader('x-request-id', 'model-chosen-id');
  res.setHeader('x-gco-inference-target', 'spoofed');
  res.setHeader('set-cookie', ['a=1', 'b=2']);
  res.setHeader('connection', 'x-hop-secret');
  res.setHeader('x-hop-secret', 'must-not-pass');
  res.end(req.method === 'HEAD' ? undefined : body);
};

export interface ProxyHarness {
  readonly base: string;
  readonly proxy: InferenceProxy;
  close(): Promise<void>;
}

export async function startProxy(opts: {
  client?: DynamoDBClient;
  table?: string;
  endpoints?: EndpointSource;
  config?: Partial<InferenceProxyConfig>;
  random?: () => number;
  now?: () => number;
  ca?: string;
}): Promise<ProxyHarness> {
  const endpoints =
    opts.endpoints ??
    (opts.client && opts.table ? new DynamoEndpointSource(opts.client, opts.table) : undefined);
  if (!endpoints) throw new Error('startProxy needs endpoints or a DynamoDB client and table');
  const proxy = await createInferenceProxy({
    config: {
      region: REGION,
      upstreamTimeoutMs: 10_000,
      streamIdleTimeoutMs: 30_000,
      endpointCacheTtlMs: 5_000,
      ...opts.config,
    },
    envelope: testEnvelopeVerifier(),
    endpoints,
    ca: opts.ca ?? testCa().ca.cert,
    ...(opts.random ? { random: opts.random } : {}),
    ...(opts.now ? { now: opts.now } : {}),
    logger: silentServiceLogger(),
  });
  const base = await proxy.app.listen({ host: '127.0.0.1', port: 0 });
  return { base, proxy, close: () => proxy.app.close() };
}

interface Chunk {
  at: number;
  data: Buffer;
}

export interface ClientResponse {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  chunks: Chunk[];
  body: Buffer;
  text: string;
  /** When the response headers arrived (performance.now()). */
  headersAt: number;
}

export interface SendOptions {
  method?: string;
  body?: Buffer | string;
  headers?: Record<string, string>;
  /** Sign the envelope (default true). */
  signed?: boolean;
  /** Called with each chunk as it arrives (before the response ends). */
  onChunk?: (chunk: Chunk, request: ClientRequest) => void;
  /** Receives the request as soon as it exists (to abort it from the outside). */
  onRequest?: (request: ClientRequest) => void;
}

/** Sends one request over a fresh connection (node:http, so the target is sent byte for byte). */
export function send(base: string, target: string, opts: SendOptions = {}): Promise<ClientResponse> {
  const method = opts.method ?? 'GET';
  const body = typeof opts.body === 'string' ? Buffer.from(opts.body) : opts.body;
  const headers: Record<string, string> = {
    ...(opts.signed === false ? {} : signEnvelope({ key: KEY, method, target, ...(body ? { body } : {}) })),
    ...(body ? { 'content-length': String(body.length) } : {}),
    ...opts.headers,
  };
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      method,
      path: target,
      headers,
      agent: false,
    });
    req.on('error', reject);
    opts.onRequest?.(req);
    req.on('response', (res) => {
      const headersAt = performance.now();
      const chunks: Chunk[] = [];
      res.on('data', (data: Buffer) => {
        const chunk = { at: performance.now(), data };
        chunks.push(chunk);
        opts.onChunk?.(chunk, req);
      });
      res.on('error', reject);
      res.on('end', () => {
        const all = Buffer.concat(chunks.map((c) => c.data));
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          chunks,
          body: all,
          text: all.toString('utf8'),
          headersAt,
        });
      });
    });
    req.end(body);
  });
}

/** mulberry32: a tiny seeded PRNG so canary splits are reproducible. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A loopback port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const { createServer: createTcp } = await import('node:net');
  const server = createTcp();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * An echo model server and a proxy routing `llama` to it (static record), started before the calling suite's
 * tests and closed after them. The object is filled in by the `beforeAll` registered here.
 */
export function useEchoProxy(): { model: ModelServer; proxy: ProxyHarness } {
  const parts = {} as { model: ModelServer; proxy: ProxyHarness };
  beforeAll(async () => {
    testCa();
    parts.model = await startModelServer(echoHandler);
    parts.proxy = await startProxy({
      endpoints: new StaticEndpointSource([endpointRecord('llama', parts.model.port)]),
    });
  });
  afterAll(async () => {
    await parts.proxy.close();
    await parts.model.close();
  });
  return parts;
}
