/**
 * Control-plane proxy: API Gateway REST `/api/v1/{proxy+}` (Lambda proxy integration, buffered) to the
 * regional internal load balancer, HMAC-envelope signed. MODE=global goes through the accelerator,
 * MODE=regional to the region's ALB inside the VPC. Rules and variables: docs/edge-lambdas.md.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { answerInternalError, entryPoint } from '../shared/entry-point.js';
import { errorResult, requestFailure } from '../shared/errors.js';
import { forwardBuffered, isBinaryBody, type BufferedResponse } from '../shared/http-forward.js';
import { createLogger } from '../shared/logger.js';
import { eventHeaders, prepareRequest, rejectForbidden, type ProxyEvent } from '../shared/proxy-request.js';
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
  DEFAULT_FORWARD_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  readControlPlaneProxyConfig,
} from './config.js';

export const SERVICE_NAME = 'control-plane-proxy';

export interface ControlPlaneProxyDeps extends ProxyDeps {
  forwardTimeoutMs?: number;
  maxResponseBytes?: number;
}

export type ControlPlaneHandler = (
  event: ProxyEvent,
  context: ProxyContext,
) => Promise<APIGatewayProxyResult>;

function toResult(res: BufferedResponse): APIGatewayProxyResult {
  const binary = isBinaryBody(res.headers, res.body);
  return {
    statusCode: res.statusCode,
    multiValueHeaders: res.headers,
    body: binary ? res.body.toString('base64') : res.body.toString('utf8'),
    isBase64Encoded: binary,
  };
}

/** The handler with injected dependencies (tests, the local platform, benchmarks). */
export function createHandler(deps: ControlPlaneProxyDeps): ControlPlaneHandler {
  const logger = deps.logger ?? createLogger(SERVICE_NAME);
  const forwardTimeoutMs = deps.forwardTimeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS;
  const maxResponseBytes = deps.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;

  return async (event, context) => {
    const started = Date.now();
    const fields = requestLogFields(event, deps.mode);
    try {
      rejectForbidden(event, eventHeaders(event));
      const prepared = prepareRequest(event, { hostHeader: deps.hostHeader });
      const { target, signed } = await signedForBackend(deps, prepared, context);
      const res = await forwardBuffered(target, signed, {
        timeoutMs: budgetMs(forwardTimeoutMs, context),
        maxResponseBytes,
      });
      logger.info(
        {
          ...fields,
          status: res.statusCode,
          backend: target.host,
          duration_ms: Date.now() - started,
        },
        'forwarded',
      );
      return toResult(res);
    } catch (error) {
      return errorResult(requestFailure(error, { logger, label: 'request', started, fields }));
    }
  };
}

/** Builds the handler from the environment and (unless overridden) real AWS clients. */
export function createHandlerFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  opts: FromEnvOptions = {},
): ControlPlaneHandler {
  const config = readControlPlaneProxyConfig(env, opts.readFile);
  return createHandler({
    ...proxyDeps(config, opts, SERVICE_NAME),
    forwardTimeoutMs: config.forwardTimeoutMs,
    maxResponseBytes: config.maxResponseBytes,
  });
}

const logger = createLogger(SERVICE_NAME);

/** Lambda entry point (lambda/shared/entry-point.ts). */
export const handler = entryPoint(logger, createHandlerFromEnv, answerInternalError);
