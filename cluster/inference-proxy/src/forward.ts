/**
 * One proxied request: resolve the endpoint by name (cached), require it running in this region and the
 * path on its allowlist, pick the target (canary split), send the request upstream, map every failure
 * before the response headers to 502/503/504, then hand the answer to the relay (docs/inference-proxy.md).
 */
import { Counter, Histogram } from 'prom-client';
import { HttpError, notFound } from '../../shared/errors.js';
import type { InferenceProxyConfig } from './config.js';
import {
  chooseTarget,
  isPathAllowed,
  resolveEndpoint,
  type EndpointResolution,
  type InferenceEndpoint,
  type TargetRole,
  type UpstreamTarget,
} from './endpoint.js';
import { TARGET_HEADER, upstreamRequestHeaders } from './headers.js';
import { isPlausibleEndpointName, upstreamTargetOf, type UpstreamTargetPath } from './paths.js';
import type { ProxiedRequest } from './proxied-request.js';
import { relayUpstreamResponse } from './relay.js';
import type { EndpointCache } from './store.js';
import { invalidJsonBody } from './json-body.js';
import {
  FAILURE_WORDING,
  type UpstreamClient,
  type UpstreamError,
  type UpstreamFailure,
  type UpstreamRequest,
} from './upstream.js';

/** The proxy's own metrics; the app registers them in the service's registry. */
export interface ProxyInstruments {
  upstream: Counter<'target' | 'outcome'>;
  headers: Histogram<'target'>;
}

export function createProxyInstruments(): ProxyInstruments {
  return {
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
}

/**
 * The instruments' children per label value, made once: prom-client hashes a label object on every
 * inc/observe, a child keeps its series and needs no object per request.
 */
class ProxyCounters {
  private readonly counts = new Map<string, Counter.Internal>();
  private readonly timings = new Map<string, Histogram.Internal<'target'>>();

  constructor(private readonly instruments: ProxyInstruments) {}

  count(target: TargetRole, outcome: string): void {
    const key = target + outcome;
    let child = this.counts.get(key);
    if (child === undefined) {
      child = this.instruments.upstream.labels(target, outcome);
      this.counts.set(key, child);
    }
    child.inc();
  }

  headersAfter(target: TargetRole, seconds: number): void {
    let child = this.timings.get(target);
    if (child === undefined) {
      child = this.instruments.headers.labels(target);
      this.timings.set(target, child);
    }
    child.observe(seconds);
  }
}

export interface ForwarderOptions {
  config: InferenceProxyConfig;
  cache: EndpointCache;
  upstream: UpstreamClient;
  instruments: ProxyInstruments;
  /** Canary draw in [0, 1). */
  random: () => number;
}

/** Answers one proxied request; throws the HttpError/RequestValidationError to answer when it is not forwarded. */
export type Forward = (request: ProxiedRequest, endpointName: string) => Promise<void>;

/** Outcome label per status class (`2xx`…), without building a string per request. */
const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];
const statusClass = (status: number): string =>
  STATUS_CLASSES[Math.floor(status / 100)] ?? `${Math.floor(status / 100)}xx`;

export function createForwarder({ config, cache, upstream, instruments, random }: ForwarderOptions): Forward {
  const counters = new ProxyCounters(instruments);
  const resolutions = new Resolutions(config.region);
  return async function forward(request, endpointName) {
    if (!isPlausibleEndpointName(endpointName)) throw endpointNotFound(endpointName);
    const path = upstreamTargetOf(request.url);
    if (!path) throw notFound('Path is not allowed');
    // A cached record is used without a trip through the microtask queue.
    let doc = cache.cached(endpointName)?.value;
    if (doc === undefined) {
      try {
        doc = await cache.get(endpointName);
      } catch (error) {
        request.log.error({ err: error, endpoint: endpointName }, 'endpoint store lookup failed');
        throw new HttpError(503, 'Inference endpoint store unavailable');
      }
    }
    const endpoint = servedEndpoint(request, doc, resolutions, endpointName, path.decodedPath);
    const invalidBody = invalidJsonBody(request.headers['content-type'], request.body);
    if (invalidBody !== undefined) throw invalidBody;

    return new Promise<void>((resolve, reject) => {
      const { res } = request;
      let call: { abort(): void } | undefined;
      const send = (served: InferenceEndpoint, mayRetry: boolean): void => {
        const target = chooseTarget(served, random);
        const started = performance.now();
        call = upstream.send(upstreamRequest(request, endpointName, target, path), {
          onResponse: (exchange) => {
            counters.count(target.role, statusClass(exchange.statusCode));
            counters.headersAfter(target.role, (performance.now() - started) / 1000);
            const sink = relayUpstreamResponse(request, exchange, {
              endpointName,
              target,
              streamIdleTimeoutMs: config.streamIdleTimeoutMs,
            });
            resolve();
            return sink;
          },
          onFailure: (error) => {
            counters.count(target.role, error.failure);
            const answer = () =>
              upstreamFailed(request, error, endpointName, target, config.upstreamTimeoutMs);
            if (!NO_SUCH_TARGET.has(error.failure)) {
              settle(answer, resolve, reject);
              return;
            }
            freshEndpoint(request, cache, resolutions, endpointName, path).then((fresh) => {
              // The record moved on (a promoted or removed canary, a new Service): nothing reached the
              // model, so the request goes once to a target the current record names.
              if (mayRetry && fresh !== undefined && !namesTarget(fresh, target) && !res.destroyed)
                send(fresh, false);
              else settle(answer, resolve, reject);
            }, reject);
          },
        });
      };
      send(endpoint, true);
      // A caller that hangs up (before or during the answer) takes the upstream request down with it.
      res.once('close', () => {
        if (!res.writableFinished) call?.abort();
      });
      if (res.socket === null || res.socket.destroyed) call?.abort();
    });
  };
}

/** Runs `answer` (which throws the HttpError 502/504 the service's error handler renders) and settles. */
function settle(answer: () => void, resolve: () => void, reject: (error: Error) => void): void {
  try {
    answer();
    resolve();
  } catch (failure) {
    reject(failure instanceof Error ? failure : new Error(String(failure)));
  }
}

/**
 * Failures that mean the target is gone (its Service name no longer resolves, nothing listens): typical
 * right after an endpoint was deleted, stopped or promoted while its record is still cached. No byte
 * reached the model (no connection was made), so the proxy may look again and send again.
 */
const NO_SUCH_TARGET: ReadonlySet<UpstreamFailure> = new Set(['dns', 'refused']);

/** Whether the record still sends requests to `target`'s address. */
function namesTarget(endpoint: InferenceEndpoint, target: UpstreamTarget): boolean {
  const same = (host: string | undefined, port: number | undefined) =>
    host === target.host && port === target.port;
  if (endpoint.proxyService !== undefined) return same(endpoint.proxyService, endpoint.port);
  const canary = endpoint.canary;
  return (
    same(endpoint.service, endpoint.port) ||
    (canary !== undefined && canary.weight > 0 && same(canary.service, canary.port))
  );
}

/**
 * Re-reads the endpoint's record past the cache: if it is gone or no longer running here, the caller gets
 * the 404 the store now says (the promise rejects with it); otherwise it resolves to the current record, or
 * to undefined when the store cannot be read (the upstream failure then stays the answer).
 */
async function freshEndpoint(
  request: ProxiedRequest,
  cache: EndpointCache,
  resolutions: Resolutions,
  endpointName: string,
  path: UpstreamTargetPath,
): Promise<InferenceEndpoint | undefined> {
  cache.invalidate(endpointName);
  let fresh: unknown;
  try {
    fresh = await cache.get(endpointName);
  } catch {
    return undefined;
  }
  return servedEndpoint(request, fresh, resolutions, endpointName, path.decodedPath);
}

const endpointNotFound = (endpointName: string) => notFound(`Inference endpoint '${endpointName}' not found`);

/**
 * Each record's resolution for this proxy's region, worked out once per record object: the cache hands
 * out the same object until it expires, and a record is never changed in place (a new read is a new
 * object), so its resolution cannot change either.
 */
class Resolutions {
  private readonly byRecord = new WeakMap<object, EndpointResolution>();

  constructor(readonly region: string) {}

  of(doc: unknown): EndpointResolution {
    if (typeof doc !== 'object' || doc === null) return resolveEndpoint(doc, this.region);
    let resolution = this.byRecord.get(doc);
    if (resolution === undefined) {
      resolution = resolveEndpoint(doc, this.region);
      this.byRecord.set(doc, resolution);
    }
    return resolution;
  }
}

/** The endpoint's record when it runs in the region and serves `decodedPath`; otherwise the 404/502 to answer. */
function servedEndpoint(
  request: ProxiedRequest,
  doc: unknown,
  resolutions: Resolutions,
  endpointName: string,
  decodedPath: string,
): InferenceEndpoint {
  if (doc === undefined) throw endpointNotFound(endpointName);
  const resolution = resolutions.of(doc);
  const region = resolutions.region;
  if (resolution.kind === 'invalid') {
    request.log.error({ endpoint: endpointName, reason: resolution.reason }, 'malformed endpoint record');
    throw new HttpError(502, `Inference endpoint '${endpointName}' is misconfigured`);
  }
  if (resolution.kind === 'not_running') {
    throw notFound(`Inference endpoint '${endpointName}' is not running in region ${region}`);
  }
  if (!isPathAllowed(resolution.endpoint, decodedPath)) {
    throw notFound(`Path '${decodedPath}' is not served by inference endpoint '${endpointName}'`);
  }
  return resolution.endpoint;
}

/** The caller's request as it goes to the model server: its method, path and body, the forwarding headers. */
function upstreamRequest(
  request: ProxiedRequest,
  endpointName: string,
  target: UpstreamTarget,
  path: UpstreamTargetPath,
): UpstreamRequest {
  const body = request.body;
  return {
    target,
    method: request.method,
    path: path.rawPath + path.rawQuery,
    headers: upstreamRequestHeaders(request.headers, {
      requestId: request.id,
      remoteAddress: request.remoteAddress,
      protocol: request.protocol,
      prefix: `/inference/${endpointName}`,
      bodyLength: body?.length,
      method: request.method,
    }),
    body,
  };
}

/**
 * A request that got no answer from the model server: logged, then a 504 (timeout) or 502 to throw, or
 * nothing to answer when the caller itself has gone.
 */
function upstreamFailed(
  request: ProxiedRequest,
  error: UpstreamError,
  endpointName: string,
  target: UpstreamTarget,
  upstreamTimeoutMs: number,
): void {
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
    request.hijack();
    request.res.destroy();
    return;
  }
  request.log.warn(fields, 'model server request failed');
  const targetHeader = { [TARGET_HEADER]: target.role };
  if (error.failure === 'timeout') {
    throw new HttpError(
      504,
      `Inference endpoint '${endpointName}' did not answer within ${upstreamTimeoutMs} ms`,
      targetHeader,
    );
  }
  throw new HttpError(
    502,
    `Inference endpoint '${endpointName}' is unreachable (${FAILURE_WORDING[error.failure]})`,
    targetHeader,
  );
}
