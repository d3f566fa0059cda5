/**
 * Inference proxy: API Gateway REST `/inference/{proxy+}` with response streaming (integration response
 * transfer mode STREAM, up to 900 s) to the in-cluster inference-proxy service behind the regional internal
 * load balancer, HMAC-envelope signed. The backend's status and headers go out in the http-integration
 * prelude as soon as they arrive, then every body chunk as the backend sends it.
 * Rules and variables: docs/edge-lambdas.md.
 */
import { PlatformError } from '../../contracts/runtime/errors.js';
import type { IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { entryPoint } from '../shared/entry-point.js';
import {
  EdgeHttpError,
  describeError,
  errorBody,
  internalError,
  MESSAGES,
  requestFailure,
} from '../shared/errors.js';
import { openResponse, responseHeaders } from '../shared/http-forward.js';
import { JSON_CONTENT_TYPE } from '../shared/json-result.js';
import { createLogger } from '../shared/logger.js';
import {
  eventHeaders,
  prepareRequest,
  rejectForbidden,
  requestBody,
  type ProxyEvent,
} from '../shared/proxy-request.js';
import {
  budgetMs,
  proxyDeps,
  requestLogFields,
  signedForBackend,
  type FromEnvOptions,
  type ProxyContext,
  type ProxyDeps,
} from '../shared/proxy-wiring.js';
import {
  HttpResponseStream,
  streamifyResponse,
  type HttpIntegrationPrelude,
  type LambdaResponseStream,
} from '../shared/streaming.js';
import { DEFAULT_HEADER_TIMEOUT_MS, DEFAULT_STREAM_TIMEOUT_MS, readInferenceProxyConfig } from './config.js';

export const SERVICE_NAME = 'inference-stream-proxy';
/** Inference request bodies are limited to 1 MiB (docs/edge-lambdas.md, "Request rules"). */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;
export const ALLOWED_METHODS: readonly string[] = ['GET', 'HEAD', 'POST'];

export interface InferenceProxyDeps extends ProxyDeps {
  headerTimeoutMs?: number;
  streamTimeoutMs?: number;
}

export type InferenceStreamHandler = (
  event: ProxyEvent,
  responseStream: LambdaResponseStream,
  context: ProxyContext,
) => Promise<void>;

const EMPTY = Buffer.alloc(0);

class StreamDeadlineError extends PlatformError {
  override readonly name = 'StreamDeadlineError';
}

/** Answers with the proxy's own JSON error through the prelude (only before anything was streamed). */
async function sendError(stream: LambdaResponseStream, error: EdgeHttpError): Promise<void> {
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

/** The streaming handler with injected dependencies (not yet wrapped by streamifyResponse). */
export function createStreamingHandler(deps: InferenceProxyDeps): InferenceStreamHandler {
  const logger = deps.logger ?? createLogger(SERVICE_NAME);
  const headerTimeoutMs = deps.headerTimeoutMs ?? DEFAULT_HEADER_TIMEOUT_MS.global;
  const streamTimeoutMs = deps.streamTimeoutMs ?? DEFAULT_STREAM_TIMEOUT_MS;

  return async (event, responseStream, context) => {
    const started = Date.now();
    const log = requestLogFields(event, deps.mode);
    let res: IncomingMessage;
    let backend: string;
    try {
      const method = (event.httpMethod ?? '').toUpperCase();
      if (!ALLOWED_METHODS.includes(method)) {
        throw new EdgeHttpError(405, MESSAGES.methodNotAllowed, 'method_not_allowed', {
          allow: ALLOWED_METHODS.join(', '),
        });
      }
      rejectForbidden(event, eventHeaders(event));
      const body = requestBody(event);
      if (body !== undefined && body.length > MAX_REQUEST_BODY_BYTES) {
        throw new EdgeHttpError(413, MESSAGES.bodyTooLarge, 'body_too_large');
      }
      const prepared = prepareRequest(event, { hostHeader: deps.hostHeader, body });
      const { target, signed } = await signedForBackend(deps, prepared, context);
      backend = target.host;
      res = await openResponse(target, signed, {
        deadlineAt: Date.now() + budgetMs(headerTimeoutMs, context),
        timeoutReason: 'backend_header_timeout',
      });
    } catch (error) {
      await sendError(
        responseStream,
        requestFailure(error, { logger, label: 'request', started, fields: log }),
      );
      return;
    }

    const out = HttpResponseStream.from(responseStream, preludeFor(res));
    // An empty first write sends the prelude at once: the client gets status and headers before the
    // first body byte, however long the model takes to produce it.
    out.write(EMPTY);
    logger.info(
      {
        ...log,
        status: res.statusCode,
        backend,
        headers_ms: Date.now() - started,
      },
      'streaming',
    );
    const deadline = setTimeout(
      () => res.destroy(new StreamDeadlineError('stream time limit reached')),
      budgetMs(streamTimeoutMs, context),
    );
    try {
      await pipeline(res, out);
      logger.info({ ...log, status: res.statusCode, duration_ms: Date.now() - started }, 'stream complete');
    } catch (error) {
      // Status and headers are gone already: the only signal left is to abort the stream (pipeline has
      // destroyed it), which the client sees as an incomplete response.
      logger.warn(
        {
          ...log,
          status: res.statusCode,
          reason: error instanceof StreamDeadlineError ? 'stream_timeout' : 'stream_aborted',
          duration_ms: Date.now() - started,
          ...describeError(error),
        },
        'stream aborted',
      );
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
  const config = readInferenceProxyConfig(env, opts.readFile);
  return createStreamingHandler({
    ...proxyDeps(config, opts, SERVICE_NAME),
    headerTimeoutMs: config.headerTimeoutMs,
    streamTimeoutMs: config.streamTimeoutMs,
  });
}

const logger = createLogger(SERVICE_NAME);

/**
 * Lambda entry point (lambda/shared/entry-point.ts). `streamifyResponse` runs at import: the runtime
 * reads its mark when loading the module.
 */
export const handler = streamifyResponse(
  entryPoint(logger, createStreamingHandlerFromEnv, (_error, _event, responseStream: LambdaResponseStream) =>
    sendError(responseStream, internalError('invalid_configuration')),
  ),
);
