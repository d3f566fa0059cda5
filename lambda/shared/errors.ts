/**
 * Errors the edge Lambdas answer themselves. Their answers are JSON `{"message":"…"}` (the API Gateway
 * convention, unlike the services' `{"detail":"…"}`), so a caller can tell a refusal of ours from a
 * backend answer. The message is for the caller; `reason` is for the log only and may name internals.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { PlatformError } from '../../contracts/runtime/errors.js';
import { jsonResult } from './json-result.js';
import type { EdgeLogger, LogFields } from './logger.js';

export const MESSAGES = {
  base64Body: 'Base64-encoded request bodies are not supported',
  badPath: 'Invalid request path',
  badQuery: 'Invalid query string',
  badHeader: 'Invalid request header',
  badMethod: 'Invalid method',
  methodNotAllowed: 'Method Not Allowed',
  bodyTooLarge: 'Request body too large',
  internal: 'Internal server error',
  badGateway: 'Bad Gateway',
  gatewayTimeout: 'Gateway Timeout',
  responseTooLarge: 'Backend response too large',
} as const;

/** An error a handler answers itself: HTTP status, caller-facing message, log-only reason. */
export class EdgeHttpError extends PlatformError {
  override readonly name = 'EdgeHttpError';
  /** Short machine-readable cause for the log (never returned to the caller). */
  declare readonly reason: string;

  constructor(
    readonly statusCode: number,
    message: string,
    reason: string,
    readonly headers: Readonly<Record<string, string>> = {},
    options?: ErrorOptions,
  ) {
    super(message, { ...options, reason });
  }
}

export const badRequest = (message: string, reason: string): EdgeHttpError =>
  new EdgeHttpError(400, message, reason);

/** The backend could not be reached or broke the exchange before answering. */
export const badGateway = (reason: string, cause?: unknown): EdgeHttpError =>
  new EdgeHttpError(502, MESSAGES.badGateway, reason, {}, { cause });

/** The backend did not answer within the configured limit. */
export const gatewayTimeout = (reason: string): EdgeHttpError =>
  new EdgeHttpError(504, MESSAGES.gatewayTimeout, reason);

/** The handler itself failed (configuration, key store, target verification): details only in the log. */
export const internalError = (reason: string, cause?: unknown): EdgeHttpError =>
  new EdgeHttpError(500, MESSAGES.internal, reason, {}, { cause });

export function errorBody(message: string): string {
  return JSON.stringify({ message });
}

/** A buffered API Gateway answer for an EdgeHttpError. */
export function errorResult(error: EdgeHttpError): APIGatewayProxyResult {
  return jsonResult(error.statusCode, { message: error.message }, error.headers);
}

/** Any thrown value as an EdgeHttpError: unknown errors become a 500 whose cause stays in the log. */
function toEdgeHttpError(error: unknown): EdgeHttpError {
  return error instanceof EdgeHttpError ? error : internalError('unexpected_error', error);
}

/** What a handler knows about the request that failed, for its log line. */
export interface FailedRequest {
  readonly logger: EdgeLogger;
  /** Names the log line: `<label> failed` (5xx) or `<label> refused` (4xx). */
  readonly label: string;
  /** Date.now() when the request arrived. */
  readonly started: number;
  /** Request fields of the handler's log lines (request id, method, path…). */
  readonly fields: LogFields;
}

/**
 * The one failure path of the HTTP handlers: the thrown value as an EdgeHttpError, logged once (error with
 * the cause chain for a 5xx, warn for a refusal), ready to be answered.
 */
export function requestFailure(error: unknown, request: FailedRequest): EdgeHttpError {
  const failure = toEdgeHttpError(error);
  const fields = {
    ...request.fields,
    status: failure.statusCode,
    reason: failure.reason,
    duration_ms: Date.now() - request.started,
    ...describeError(failure.cause),
  };
  if (failure.statusCode >= 500) request.logger.error(fields, `${request.label} failed`);
  // `message` is a reserved key of the log line itself, hence `answer`.
  else request.logger.warn({ ...fields, answer: failure.message }, `${request.label} refused`);
  return failure;
}

/** A log-safe description of an error chain: names, codes and our own messages, never payloads. */
export function describeError(error: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    const prefix = depth === 0 ? 'error' : `cause${depth}`;
    out[`${prefix}_name`] = current.name;
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') out[`${prefix}_code`] = code;
    out[`${prefix}_message`] = current.message;
    current = current.cause;
  }
  return out;
}
