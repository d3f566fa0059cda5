/**
 * Control-plane proxy: API Gateway REST `/api/v1/{proxy+}` (Lambda proxy integration, buffered) to the
 * regional internal load balancer, HMAC-envelope signed. MODE=global goes through the accelerator,
 * MODE=regional to the region's ALB inside the VPC. Rules and variables: docs/edge-lambdas.md.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { describeError, errorResult, internalError, toProxyError } from '../shared/errors.js';
import { forwardBuffered, isBinaryBody, type BufferedResponse } from '../shared/http-forward.js';
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
import type { TargetResolver } from '../shared/backend-target.js';
import type { KeySource } from '../shared/signing-keys.js';

export const SERVICE_NAME = 'control-plane-proxy';
/** Seed: the integration times out at 29 s, so the proxy gives up at 28 s and answers 504 itself. */
export const DEFAULT_FORWARD_TIMEOUT_MS = 28_000;
/** 4 MiB raw stays under Lambda's 6 MB response limit even base64-encoded (×4/3). */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export interface ControlPlaneProxyConfig extends ProxyConfig {
  readonly forwardTimeoutMs: number;
  readonly maxResponseBytes: number;
}

/** Reads and validates the environment; throws ConfigError listing every problem. */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  readFile?: (path: string) => string,
): ControlPlaneProxyConfig {
  const r = new EnvReader(env);
  const proxy = readProxyConfig(r, readFile);
  const forwardTimeoutMs = r.integer('FORWARD_TIMEOUT_MS', DEFAULT_FORWARD_TIMEOUT_MS, 1, 28_000);
  const maxResponseBytes = r.integer('MAX_RESPONSE_BYTES', DEFAULT_MAX_RESPONSE_BYTES, 1, 4_718_592);
  r.finish();
  return Object.freeze({ ...proxy, forwardTimeoutMs, maxResponseBytes });
}

export interface ControlPlaneProxyDeps {
  keys: KeySource;
  targets: TargetResolver;
  /** Host header for the backend (`backend.<project>.<internal_domain>`). */
  hostHeader: string;
  forwardTimeoutMs?: number;
  maxResponseBytes?: number;
  logger?: EdgeLogger;
  /** Label for logs. */
  mode?: string;
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
    const log = {
      request_id: event.requestContext?.requestId,
      lambda_request_id: context.awsRequestId,
      method: event.httpMethod,
      path: event.path,
      mode: deps.mode,
    };
    try {
      rejectForbidden(event, eventHeaders(event));
      const prepared = prepareRequest(event, { hostHeader: deps.hostHeader });
      const target = await deps.targets.resolve({ invokedFunctionArn: context.invokedFunctionArn });
      const signed = signRequest(prepared, await currentSigningKey(deps.keys));
      const res = await forwardBuffered(target, signed, {
        timeoutMs: budgetMs(forwardTimeoutMs, context),
        maxResponseBytes,
      });
      logger.info('forwarded', {
        ...log,
        status: res.statusCode,
        backend: target.host,
        duration_ms: Date.now() - started,
      });
      return toResult(res);
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
      return errorResult(proxyError);
    }
  };
}

/** Builds the handler from the environment and (unless overridden) real AWS clients. */
export function createHandlerFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  opts: FromEnvOptions = {},
): ControlPlaneHandler {
  const logger = opts.logger ?? createLogger(SERVICE_NAME);
  const config = loadConfig(env, opts.readFile);
  const { keys, targets } = proxyDeps(config, opts.clients ?? defaultAwsClients(), logger, opts.lookup);
  return createHandler({
    keys,
    targets,
    hostHeader: config.backendHostname,
    forwardTimeoutMs: config.forwardTimeoutMs,
    maxResponseBytes: config.maxResponseBytes,
    logger,
    mode: config.mode,
  });
}

let moduleLogger: EdgeLogger | undefined;
const getLogger = (): EdgeLogger => (moduleLogger ??= createLogger(SERVICE_NAME));

/** Lambda entry point. Configuration (and the logger) are set up on the first invocation, not at import. */
export const handler: ControlPlaneHandler = lazyHandler(
  () => createHandlerFromEnv(process.env, { logger: getLogger() }),
  async () => errorResult(internalError('invalid_configuration')),
  getLogger,
);
