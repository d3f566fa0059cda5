/**
 * inference-proxy (seed 000, version 1.0.0): authenticated streaming reverse proxy to managed inference
 * endpoints. Resolves `/inference/<endpoint_name>/<path>` by name, requires the endpoint to be running in
 * this region and the path to be one of its serving paths (or its health path), then streams the model
 * server's answer back chunk by chunk. Rules and record format: docs/inference-proxy.md.
 */
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { Counter, Histogram } from 'prom-client';
import { Type } from 'typebox';
import type { EnvelopeVerifier } from '../../../lambda/shared/envelope.js';
import { HttpError, notFound } from '../../shared/errors.js';
import { createService, type Service } from '../../shared/service.js';
import type { InferenceProxyConfig } from './config.js';
import { chooseTarget, isPathAllowed, resolveEndpoint, type UpstreamTarget } from './endpoint.js';
import { downstreamResponseHeaders, TARGET_HEADER, upstreamRequestHeaders } from './headers.js';
import { proxyRouteTransform } from './openapi.js';
import { isPlausibleEndpointName, upstreamTargetOf } from './paths.js';
import { EndpointCache, type EndpointSource } from './store.js';
import { FAILURE_WORDING, UpstreamClient, UpstreamError, type UpstreamExchange } from './upstream.js';

export const SERVICE_NAME = 'inference-proxy';
export const SERVICE_VERSION = '1.0.0';

export interface InferenceProxyDeps {
  config: InferenceProxyConfig;
  envelope: EnvelopeVerifier;
  /** Endpoint records (DynamoEndpointSource in a deployment); cached for config.endpointCacheTtlMs. */
  endpoints: EndpointSource;
  /** PEM bundle of the internal CA the model servers' certificates must chain to. */
  ca: string | Buffer;
  /** Canary draw in [0, 1); Math.random unless a test injects a seeded source. */
  random?: () => number;
  /** Clock of the endpoint cache (tests). */
  now?: () => number;
  logger?: Logger;
  /** Serve HTTPS directly (a pod without a TLS sidecar). */
  https?: { key: string | Buffer; cert: string | Buffer };
}

export interface InferenceProxy extends Service {
  readonly cache: EndpointCache;
}

interface Instruments {
  upstream: Counter<'target' | 'outcome'>;
  headers: Histogram<'target'>;
}

/** Every forwarded query is opaque to the proxy: no parameter may ever produce a 422. */
const OpenQuery = Type.Object({}, { additionalProperties: true });
const RootParams = Type.Object({ endpoint_name: Type.String() });
const PathParams = Type.Object({ endpoint_name: Type.String(), '*': Type.String() });

const statusClass = (status: number) => `${Math.floor(status / 100)}xx`;

export async function createInferenceProxy(deps: InferenceProxyDeps): Promise<InferenceProxy> {
  const { config } = deps;
  const random = deps.random ?? Math.random;
  const cache = new EndpointCache(deps.endpoints, {
    ttlMs: config.endpointCacheTtlMs,
    ...(deps.now ? { now: deps.now } : {}),
  });
  const upstream = new UpstreamClient({ ca: deps.ca, headersTimeoutMs: config.upstreamTimeoutMs });
  // Joined to the service's own registry once it exists (createService builds it).
  const instruments: Instruments = {
    upstream: new Counter({
      name: 'inference_upstream_requests_total',
      help: 'Requests forwarded to model servers, by target and outcome (status class or failure)',
      labelNames: ['target', 'outcome'] as const,
      registers: [],
    }),
    headers: new Histogram({
      name: 'inference_upstream_headers_seconds',
      help: 'Time from forwarding a request to the model server’s response headers',
      labelNames: ['target'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [],
    }),
  };

  /** Streams an upstream answer to the caller; from here on only the connection can signal failure. */
  function relay(
    request: FastifyRequest,
    reply: FastifyReply,
    exchange: UpstreamExchange,
    target: UpstreamTarget,
    endpointName: string,
  ): void {
    const { request: upstreamRequest, response: upstreamResponse } = exchange;
    const res: ServerResponse = reply.raw;
    const status = upstreamResponse.statusCode ?? 502;
    // Raw writes: the caller gets the status and headers as soon as the model sends them, not with the
    // first body byte (an SSE client learns at once that its stream is open).
    reply.hijack();
    try {
      const headers = downstreamResponseHeaders(upstreamResponse.rawHeaders, upstreamResponse.headers, {
        'x-request-id': request.id,
        [TARGET_HEADER]: target.role,
      });
      if (upstreamResponse.headers.date !== undefined) res.sendDate = false;
      res.writeHead(status, headers);
    } catch (error) {
      request.log.warn({ err: error, endpoint: endpointName }, 'model server sent unrelayable headers');
      upstreamRequest.destroy();
      res.writeHead(502, { 'content-type': 'application/json', 'x-request-id': request.id });
      res.end(JSON.stringify({ detail: `Inference endpoint '${endpointName}' sent an invalid response` }));
      return;
    }
    if (request.method === 'HEAD' || status === 204 || status === 304 || status < 200) {
      upstreamResponse.resume();
      res.end();
      return;
    }
    let bytes = 0;
    // Whichever side failed first names the log line (the other side is then torn down by pipeline).
    let cause: 'client' | 'upstream' | 'idle' | undefined;
    const idle = setTimeout(() => {
      cause ??= 'idle';
      upstreamRequest.destroy(new Error(`stream idle for ${config.streamIdleTimeoutMs} ms`));
    }, config.streamIdleTimeoutMs);
    upstreamResponse.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      idle.refresh();
    });
    upstreamResponse.once('error', () => (cause ??= 'upstream'));
    res.once('close', () => {
      if (!res.writableFinished) cause ??= 'client';
    });
    pipeline(upstreamResponse, res, (error) => {
      clearTimeout(idle);
      if (!error) return;
      upstreamRequest.destroy();
      const fields = { endpoint: endpointName, target: target.role, bytes };
      if (cause === 'client') request.log.info(fields, 'client closed the stream; upstream request aborted');
      else if (cause === 'idle') request.log.warn(fields, 'model server stream went idle; both sides closed');
      else request.log.warn({ ...fields, err: error }, 'model server stream interrupted');
    });
  }

  async function proxy(request: FastifyRequest, reply: FastifyReply, endpointName: string): Promise<void> {
    const rawTarget = request.raw.url ?? request.url;
    const notFoundEndpoint = () => notFound(`Inference endpoint '${endpointName}' not found`);
    if (!isPlausibleEndpointName(endpointName)) throw notFoundEndpoint();
    const path = upstreamTargetOf(rawTarget);
    if (!path) throw notFound('Path is not allowed');

    let doc: unknown;
    try {
      doc = await cache.get(endpointName);
    } catch (error) {
      request.log.error({ err: error, endpoint: endpointName }, 'endpoint store lookup failed');
      throw new HttpError(503, 'Inference endpoint store unavailable');
    }
    if (doc === undefined) throw notFoundEndpoint();
    const resolution = resolveEndpoint(doc, config.region);
    if (resolution.kind === 'invalid') {
      request.log.error({ endpoint: endpointName, reason: resolution.reason }, 'malformed endpoint record');
      throw new HttpError(502, `Inference endpoint '${endpointName}' is misconfigured`);
    }
    if (resolution.kind === 'not_running') {
      throw notFound(`Inference endpoint '${endpointName}' is not running in region ${config.region}`);
    }
    const endpoint = resolution.endpoint;
    if (!isPathAllowed(endpoint, path.decodedPath)) {
      throw notFound(`Path '${path.decodedPath}' is not served by inference endpoint '${endpointName}'`);
    }

    const target = chooseTarget(endpoint, random);
    const targetHeader = { [TARGET_HEADER]: target.role };
    const res = reply.raw;
    const controller = new AbortController();
    let exchange: UpstreamExchange | undefined;
    // A caller that hangs up (before or during the answer) takes the upstream request down with it.
    res.once('close', () => {
      if (res.writableFinished) return;
      controller.abort();
      exchange?.request.destroy();
    });
    if (request.raw.socket.destroyed) controller.abort();

    const body = request.rawBody;
    const started = performance.now();
    try {
      exchange = await upstream.send({
        target,
        method: request.method,
        path: path.rawPath + path.rawQuery,
        headers: upstreamRequestHeaders(request.headers, {
          requestId: request.id,
          remoteAddress: request.raw.socket.remoteAddress,
          protocol: request.protocol,
          prefix: `/inference/${endpointName}`,
          bodyLength: body?.length,
          method: request.method,
        }),
        body,
        signal: controller.signal,
      });
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      instruments.upstream.inc({ target: target.role, outcome: error.failure });
      const fields = {
        endpoint: endpointName,
        target: target.role,
        host: target.host,
        port: target.port,
        failure: error.failure,
        code: error.code,
        reason: error.message,
      };
      if (error.failure === 'client_closed') {
        request.log.info(fields, 'client closed the request before the model answered');
        reply.hijack();
        res.destroy();
        return;
      }
      request.log.warn(fields, 'model server request failed');
      if (error.failure === 'timeout') {
        throw new HttpError(
          504,
          `Inference endpoint '${endpointName}' did not answer within ${config.upstreamTimeoutMs} ms`,
          targetHeader,
        );
      }
      throw new HttpError(
        502,
        `Inference endpoint '${endpointName}' is unreachable (${FAILURE_WORDING[error.failure]})`,
        targetHeader,
      );
    }
    const status = exchange.response.statusCode ?? 0;
    instruments.upstream.inc({ target: target.role, outcome: statusClass(status) });
    instruments.headers.observe({ target: target.role }, (performance.now() - started) / 1000);
    relay(request, reply, exchange, target, endpointName);
  }

  const proxyRoute = (kind: 'root' | 'path', method: 'get' | 'post' | 'head') => {
    const operationId =
      kind === 'root'
        ? `proxy_inference_root_inference__endpoint_name__${method}`
        : `proxy_inference_path_inference__endpoint_name___upstream_path__${method}`;
    return {
      schema: {
        operationId,
        summary:
          kind === 'root'
            ? 'Proxies an endpoint-root request'
            : 'Proxies a request for a sub-path of the endpoint (upstream_path may contain slashes)',
        params: kind === 'root' ? RootParams : PathParams,
        querystring: OpenQuery,
      },
      // GET routes do not get Fastify's implicit HEAD: HEAD is its own operation with its own id.
      exposeHeadRoute: false,
      config: {
        swaggerTransform: proxyRouteTransform(kind),
        swagger: { exposeHeadRoute: true },
        rawBody: true,
      },
    };
  };

  const service = await createService({
    name: SERVICE_NAME,
    version: SERVICE_VERSION,
    description: 'Authenticated streaming reverse proxy to managed inference endpoints',
    envelope: deps.envelope,
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.https ? { https: deps.https } : {}),
    // Endpoints and model servers are resolved per request; nothing can make this pod unready but draining.
    readiness: {},
    onClose: () => upstream.close(),
    routes: (app) => {
      app.get(
        '/',
        { schema: { operationId: 'root__get', summary: 'Small service descriptor' } },
        async () => ({
          service: SERVICE_NAME,
          version: SERVICE_VERSION,
          region: config.region,
          description: 'Authenticated streaming reverse proxy to managed inference endpoints',
          endpoints: {
            inference: '/inference/{endpoint_name}/{upstream_path}',
            liveness: '/healthz',
            readiness: '/readyz',
          },
        }),
      );
      for (const method of ['get', 'post', 'head'] as const) {
        app.route({
          method: method.toUpperCase(),
          url: '/inference/:endpoint_name',
          ...proxyRoute('root', method),
          handler: async (request, reply) => proxy(request, reply, request.params.endpoint_name),
        });
        app.route({
          method: method.toUpperCase(),
          url: '/inference/:endpoint_name/*',
          ...proxyRoute('path', method),
          handler: async (request, reply) => proxy(request, reply, request.params.endpoint_name),
        });
      }
    },
  });
  service.metrics.registry.registerMetric(instruments.upstream);
  service.metrics.registry.registerMetric(instruments.headers);
  return { ...service, cache };
}
