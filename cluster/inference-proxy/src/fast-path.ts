/**
 * The hot route in front of the framework (the service's `front`, cluster/shared/service.ts). A proxied request needs what the service framework gives
 * every route — a request id, the envelope check, the body read under the 1 MiB limit, the `{"detail"}`
 * error shape, the request metrics — and nothing else its generic hook chain does (routing tables,
 * schema validation of an open query, JSON decoding the proxy must not do, a child logger per request).
 * Measured on the bench, the framework's chain costs more CPU per request than all of nginx's proxying
 * (docs/inference-proxy.md, "Two entries, one set of rules"), so the plain cases are answered here, asked by the
 * server's one `request` listener before Fastify, with the same rules and the same forward.ts; anything unusual (percent escapes
 * in the path, a chunked or oversized body, a body on GET, a body without a type) goes on to Fastify
 * unchanged, as does every request once the service has begun to close (Fastify answers 503), whose routes (routes.ts) stay the reference and the OpenAPI document.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { FastifyBaseLogger } from 'fastify';
import type { Counter, Histogram } from 'prom-client';
import type { EnvelopeVerifier } from '../../../contracts/envelope/envelope.js';
import { boundDetail, boundItems } from '../../shared/bounded-errors.js';
import { HttpError, RequestValidationError } from '../../shared/errors.js';
import type { RequestFront, Service } from '../../shared/service.js';
import type { Forward } from './forward.js';
import type { ProxiedRequest, ProxyLog } from './proxied-request.js';
import { PROXY_PREFIX } from './routes.js';

/** The framework's rule for a caller-supplied request id (cluster/shared/service.ts genReqId). */
const REQUEST_ID = /^[\w.:-]{1,128}$/;
/** The framework's body limit (cluster/shared/service.ts); larger bodies go to Fastify for its 413. */
const BODY_LIMIT = 1024 * 1024;
/** Longer targets go to Fastify (its router bounds parameters at 16 KiB and answers the rest). */
const MAX_TARGET = 8 * 1024;
const PREFIX = `${PROXY_PREFIX}/`;
/** The route patterns the framework's request metrics use for the two proxy routes. */
const ROOT_ROUTE = `${PROXY_PREFIX}/:endpoint_name`;
const PATH_ROUTE = `${PROXY_PREFIX}/:endpoint_name/*`;
const JSON_TYPE = 'application/json; charset=utf-8';

export interface FastPathOptions {
  service: Service;
  forward: Forward;
  envelope: EnvelopeVerifier;
}

/** The hot route: takes the plain proxied requests (true), leaves the rest to Fastify (false). */
export function fastPathFront({ service, forward, envelope }: FastPathOptions): RequestFront {
  const logger = service.app.log;
  const metrics = new RequestMetrics(service);
  const logCompletions = ['trace', 'debug', 'info'].includes(logger.level);
  const handle = (req: IncomingMessage, res: ServerResponse): boolean => {
    const name = plainEndpointName(req);
    if (name === undefined) return false;
    const started = performance.now();
    const header = req.headers['x-request-id'];
    const id = typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
    const { route } = name;
    res.once('finish', () => {
      const seconds = metrics.observe(req.method ?? '', route, res.statusCode, started);
      // The path only: a query value may be a credential (docs/inference-proxy.md, "Two entries, one set of rules").
      if (logCompletions) {
        logger.info(
          {
            request_id: id,
            method: req.method,
            path: pathOf(req.url ?? ''),
            status: res.statusCode,
            seconds,
          },
          'request completed',
        );
      }
    });
    void serve(req, res, id, name.endpoint).catch((error: unknown) =>
      answerError(req, res, id, logger, error),
    );
    return true;
  };
  const serve = async (
    req: IncomingMessage,
    res: ServerResponse,
    id: string,
    endpoint: string,
  ): Promise<void> => {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const request = proxiedRequest(req, res, id, body, logger);
    let verdict: Awaited<ReturnType<EnvelopeVerifier['verify']>>;
    try {
      verdict = await envelope.verify({
        method: request.method,
        target: request.url,
        headers: request.headers,
        body,
      });
    } catch (error) {
      // Key material could not be loaded: fail closed, but tell operators why (as envelope-hook.ts).
      request.log.error({ err: error }, 'envelope verification could not run');
      verdict = { ok: false, reason: 'no_keys' };
    }
    if (!verdict.ok) {
      service.metrics.envelopeRejections.inc({ reason: verdict.reason });
      request.log.warn(
        { reason: verdict.reason, method: request.method, path: pathOf(request.url) },
        'envelope rejected',
      );
      throw new HttpError(403, 'Forbidden');
    }
    await forward(request, endpoint);
  };
  return handle;
}

const pathOf = (target: string): string => {
  const q = target.indexOf('?');
  return q === -1 ? target : target.slice(0, q);
};

/**
 * The endpoint name and route of a request the hot path takes as is, or undefined for Fastify: GET, HEAD
 * or POST to `/inference/<name>[/…]` with no percent escape in the path (Fastify decodes and checks them),
 * no body on GET/HEAD, and on POST a typed body of a declared length within the limit.
 */
function plainEndpointName(req: IncomingMessage): { endpoint: string; route: string } | undefined {
  const url = req.url ?? '';
  const method = req.method;
  if (method !== 'GET' && method !== 'POST' && method !== 'HEAD') return undefined;
  if (!url.startsWith(PREFIX) || url.length > MAX_TARGET) return undefined;
  const path = pathOf(url);
  if (path.includes('%')) return undefined;
  const slash = path.indexOf('/', PREFIX.length);
  const endpoint = path.slice(PREFIX.length, slash === -1 ? undefined : slash);
  if (endpoint === '') return undefined;
  const { headers } = req;
  if (headers['transfer-encoding'] !== undefined) return undefined;
  const length = headers['content-length'];
  if (method === 'POST') {
    if (length === undefined || headers['content-type'] === undefined) return undefined;
    if (!/^\d{1,7}$/.test(length) || Number(length) > BODY_LIMIT) return undefined;
  } else if (length !== undefined && length !== '0') {
    return undefined;
  }
  return { endpoint, route: slash === -1 ? ROOT_ROUTE : PATH_ROUTE };
}

/** The body, whose declared length plainEndpointName bounded (Node's parser holds the peer to it). */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      resolve(body === undefined || body.length === 0 ? undefined : body);
    });
    req.once('error', reject);
  });
}

function proxiedRequest(
  req: IncomingMessage,
  res: ServerResponse,
  id: string,
  body: Buffer | undefined,
  logger: FastifyBaseLogger,
): ProxiedRequest {
  return {
    id,
    method: req.method ?? 'GET',
    url: req.url ?? '/',
    headers: req.headers,
    body,
    protocol: (req.socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http',
    remoteAddress: req.socket.remoteAddress,
    log: new RequestLog(logger, id),
    res,
    hijack: () => undefined,
  };
}

/**
 * Log lines of one request carry its id under the framework's label, without a child logger (or three
 * closures) per request.
 */
class RequestLog implements ProxyLog {
  constructor(
    private readonly logger: FastifyBaseLogger,
    private readonly id: string,
  ) {}

  info(fields: object, message: string): void {
    this.logger.info({ request_id: this.id, ...fields }, message);
  }

  warn(fields: object, message: string): void {
    this.logger.warn({ request_id: this.id, ...fields }, message);
  }

  error(fields: object, message: string): void {
    this.logger.error({ request_id: this.id, ...fields }, message);
  }
}

/** The framework's error answer (cluster/shared/service.ts answerError) for what forward.ts throws. */
function answerError(
  req: IncomingMessage,
  res: ServerResponse,
  id: string,
  logger: FastifyBaseLogger,
  error: unknown,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  let status = 500;
  let body: unknown = { detail: 'Internal Server Error' };
  let headers: Record<string, string> = {};
  if (error instanceof RequestValidationError) {
    status = 422;
    body = { detail: boundItems(error.items) };
  } else if (error instanceof HttpError) {
    status = error.statusCode;
    body = { detail: boundDetail(error.detail) };
    headers = error.headers;
  } else {
    logger.error({ request_id: id, err: error, path: pathOf(req.url ?? '') }, 'unhandled error');
  }
  res.writeHead(status, { ...headers, 'content-type': JSON_TYPE, 'x-request-id': id });
  res.end(JSON.stringify(body));
}

/**
 * The framework's request metrics (http_requests_total, http_request_duration_seconds, labelled by
 * method, route pattern and status), through label children made once per combination.
 */
class RequestMetrics {
  private readonly requests: Counter<'method' | 'route' | 'status_code'> | undefined;
  private readonly duration: Histogram<'method' | 'route' | 'status_code'> | undefined;
  private readonly children = new Map<string, [Counter.Internal, Histogram.Internal<string>]>();

  constructor(service: Service) {
    const registry = service.metrics.registry;
    this.requests = registry.getSingleMetric('http_requests_total') as typeof this.requests;
    this.duration = registry.getSingleMetric('http_request_duration_seconds') as typeof this.duration;
  }

  /** Counts one answered request; returns its duration in seconds. */
  observe(method: string, route: string, status: number, started: number): number {
    const seconds = (performance.now() - started) / 1000;
    if (this.requests === undefined || this.duration === undefined) return seconds;
    const key = `${method} ${route} ${status}`;
    let child = this.children.get(key);
    if (child === undefined) {
      const labels = [method, route, String(status)] as const;
      child = [this.requests.labels(...labels), this.duration.labels(...labels)];
      this.children.set(key, child);
    }
    child[0].inc();
    child[1].observe(seconds);
    return seconds;
  }
}
