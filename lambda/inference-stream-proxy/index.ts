/**
 * Inference proxy: API Gateway REST `/inference/{proxy+}` with response streaming (integration response
 * transfer mode STREAM, up to 900 s) to the in-cluster inference-proxy service behind the regional internal
 * load balancer, HMAC-envelope signed. The backend's status and headers go out in the http-integration
 * prelude as soon as they arrive, then every body chunk as the backend sends it.
 * Rules and variables: docs/edge-lambdas.md.
 */
import type { IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { TargetResolver } from '../shared/backend-target.js';
import {
  describeError,
  errorBody,
  internalError,
  JSON_CONTENT_TYPE,
  MESSAGES,
  ProxyError,
  toProxyError,
} from '../shared/errors.js';
import { openResponse, responseHeaders } from '../shared/http-forward.js';
import { createLogger, type EdgeLogger } from '../shared/logger.js';
import { EnvReader, readProxyConfig, type ProxyConfig } from '../shared/proxy-config.js';
import {
  eventHeaders,
  prepareRequest,
  rejectForbidden,
  signRequest,
  type ProxyEvent,
} from '../shared/proxy-request.js';
import {
  budgetMs,
  currentSigningKey,
  defaultAwsClients,
  lazyHandler,
  proxyDeps,
  type FromEnvOptions,
  type ProxyContext,
} from '../shared/proxy-runtime.js';
import type { KeySource } from '../shared/signing-keys.js';
import {
  HttpResponseStream,
  streamifyResponse,
  type HttpIntegrationPrelude,
  type LambdaResponseStream,
} from '../shared/streaming.js';

export const SERVICE_NAME = 'inference-stream-proxy';
/** Seed: inference request bodies are limited to 1 MiB. */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;
export const ALLOWED_METHODS: readonly string[] = ['GET', 'HEAD', 'POST'];
/**
 * Default wait for the backend's response headers. Edge-optimized APIs (the global API) drop a stream
 * that stays silent for 30 s, so the global default answers 504 at 28 s; regional endpoints allow
 * 5 minutes of idle time.
 */
export const DEFAULT_HEADER_TIMEOUT_MS = { global: 28_000, regional: 290_000 } as const;
/** Whole-stream cap, just under the 900 s function timeout so the proxy ends the stream itself. */
export const DEFAULT_STREAM_TIMEOUT_MS = 895_000;

export interface InferenceProxyConfig extends ProxyConfig {
  readonly headerTimeoutMs: number;
  readonly streamTimeoutMs: number;
}

/** Reads and validates the environment; throws ConfigError listing every problem. */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  readFile?: (path: string) => string,
): InferenceProxyConfig {
  const r = new EnvReader(env);
  const proxy = readProxyConfig(r, readFile);
  const headerTimeoutMs = r.integer('HEADER_TIMEOUT_MS', DEFAULT_HEADER_TIMEOUT_MS[proxy.mode], 1, 895_000);
  const streamTimeoutMs = r.integer('STREAM_TIMEOUT_MS', DEFAULT_STREAM_TIMEOUT_MS, 1, 900_000);
  r.finish();
  return Object.freeze({ ...proxy, headerTimeoutMs, streamTimeoutMs });
}

export interface InferenceProxyDeps {
  keys: KeySource;
  targets: TargetResolver;
  hostHeader: string;
  headerTimeoutMs?: number;
  streamTimeoutMs?: number;
  logger?: EdgeLogger;
  mode?: string;
}

export type InferenceStreamHandler = (
  event: ProxyEvent,
  responseStream: LambdaResponseStream,
  context: ProxyContext,
) => Promise<void>;

const EMPTY = Buffer.alloc(0);

class StreamDeadlineError extends Error {
  override readonly name = 'StreamDeadlineError';
}

/** Answers with the proxy's own JSON error through the prelude (only before anything was streamed). */
async function sendError(stream: LambdaResponseStream, error: ProxyError): Promise<void> {
  const out = HttpResponseStream.from(stream, {
    statusCode: error.statusCode,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...error.headers },
  });
  // write() (not end(chunk)): only write triggers the prelude.
  out.write(errorBody(error.message));
  await new Promise<void>((resolve) => out.end(resolve));
}

/** Backend status and headers as the REST streaming prelude; multi-value headers keep every value. */
export function preludeFor(res: IncomingMessage): HttpIntegrationPrelude {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(responseHeaders(res))) {
    if (values.length === 1) headers[name] = values[0] ?? '';
    else multiValueHeaders[name] = values;
  }
  return {
    statusCode: res.statusCode ?? 502,
    headers,
    ...(Object.keys(multiValueHeaders).length > 0 ? { multiValueHeaders } : {}),
  };
}

function requestBodyBytes(event: ProxyEvent): Buffer | undefined {
  return typeof event.body === 'string' && event.body.length > 0
    ? Buffer.from(event.body, 'utf8')
    : undefined;
}

/** The streaming handler with injected dependencies (not yet wrapped by streamifyResponse). */
export function createStreamingHandler(deps: InferenceProxyDeps): InferenceStreamHandler {
  const logger = deps.logger ?? createLogger(SERVICE_NAME);
  const headerTimeoutMs = deps.headerTimeoutMs ?? DEFAULT_HEADER_TIMEOUT_MS.global;
  const streamTimeoutMs = deps.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS;

  return async (event, responseStream, context) => {
    const started = Date.now();
    const log = {
      request_id: event.requestContext?.requestId,
      lambda_request_id: context.awsRequestId,
      method: event.httpMethod,
      path: event.path,
      mode: deps.mode,
    };
    let res: IncomingMessage;
    let backend: string;
    try {
      const method = (event.httpMethod ?? '').toUpperCase();
      if (!ALLOWED_METHODS.includes(method)) {
        throw new ProxyError(405, MESSAGES.methodNotAllowed, 'method_not_allowed', {
          allow: ALLOWED_METHODS.join(', '),
        });
      }
      rejectForbidden(event, eventHeaders(event));
      const body = requestBodyBytes(event);
      if (body !== undefined && body.length > MAX_REQUEST_BODY_BYTES) {
        throw new ProxyError(413, MESSAGES.bodyTooLarge, 'body_too_large');
      }
      const prepared = prepareRequest(event, { hostHeader: deps.hostHeader, body });
      const target = await deps.targets.resolve({ invokedFunctionArn: context.invokedFunctionArn });
      backend = target.host;
      const signed = signRequest(prepared, await currentSigningKey(deps.keys));
      res = await openResponse(target, signed, {
        deadlineAt: Date.now() + budgetMs(headerTimeoutMs, context),
        timeoutReason: 'backend_header_timeout',
      });
    } catch (error) {
      const proxyError = toProxyError(error);
      const fields = {
        ...log,
        status: proxyError.statusCode,
        reason: proxyError.reason,
        duration_ms: Date.now() - started,
        ...describeError(proxyError.cause),
      };
      if (proxyError.statusCode >= 500) logger.error('request failed', fields);
      else logger.warn('request refused', fields);
      await sendError(responseStream, proxyError);
      return;
    }

    const out = HttpResponseStream.from(responseStream, preludeFor(res));
    // An empty first write sends the prelude at once: the client gets status and headers before the
    // first body byte, however long the model takes to produce it.
    out.write(EMPTY);
    logger.info('streaming', {
      ...log,
      status: res.statusCode,
      backend,
      headers_ms: Date.now() - started,
    });
    const deadline = setTimeout(
      () => res.destroy(new StreamDeadlineError('stream time limit reached')),
      budgetMs(streamTimeoutMs, context),
    );
    try {
      await pipeline(res, out);
      logger.info('stream complete', { ...log, status: res.statusCode, duration_ms: Date.now() - started });
    } catch (error) {
      // Status and headers are gone already: the only signal left is to abort the stream (pipeline has
      // destroyed it), which the client sees as an incomplete response.
      logger.warn('stream aborted', {
        ...log,
        status: res.statusCode,
        reason: error instanceof StreamDeadlineError ? 'stream_timeout' : 'stream_aborted',
        duration_ms: Date.now() - started,
        ...describeError(error),
      });
    } finally {
      clearTimeout(deadline);
    }
  };
}

/** The streaming Lambda handler with injected dependencies. */
export function createHandler(deps: InferenceProxyDeps): InferenceStreamHandler {
  return streamifyResponse(createStreamingHandler(deps));
}

/** Builds the (unwrapped) handler from the environment and (unless overridden) real AWS clients. */
export function createStreamingHandlerFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  opts: FromEnvOptions = {},
): InferenceStreamHandler {
  const logger = opts.logger ?? createLogger(SERVICE_NAME);
  const config = loadConfig(env, opts.readFile);
  const { keys, targets } = proxyDeps(config, opts.clients ?? defaultAwsClients(), logger, opts.lookup);
  return createStreamingHandler({
    keys,
    targets,
    hostHeader: config.backendHostname,
    headerTimeoutMs: config.headerTimeoutMs,
    streamTimeoutMs: config.streamTimeoutMs,
    logger,
    mode: config.mode,
  });
}

let moduleLogger: EdgeLogger | undefined;
const getLogger = (): EdgeLogger => (moduleLogger ??= createLogger(SERVICE_NAME));

/**
 * Lambda entry point. `streamifyResponse` runs at import (the runtime reads its mark when loading the
 * module); configuration is read on the first invocation.
 */
export const handler: InferenceStreamHandler = streamifyResponse(
  lazyHandler(
    () => createStreamingHandlerFromEnv(process.env, { logger: getLogger() }),
    (_event, responseStream) => sendError(responseStream, internalError('invalid_configuration')),
    getLogger,
  ),
);
