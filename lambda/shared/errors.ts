/**
 * Errors of the edge Lambdas. Their own answers are JSON `{"message":"…"}` (the API Gateway convention,
 * unlike the services' `{"detail":"…"}`), so a caller can tell a proxy refusal from a backend answer.
 * The message is for the caller; `reason` is for the log only and may name internals.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';

export const MESSAGES = {
  targetRegionHeader: 'The X-SVC-Target-Region header is not allowed',
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

/** An error the proxy answers itself: HTTP status, caller-facing message, log-only reason. */
export class ProxyError extends Error {
  override readonly name = 'ProxyError';

  constructor(
    readonly statusCode: number,
    message: string,
    /** Short machine-readable cause for the log (never returned to the caller). */
    readonly reason: string,
    readonly headers: Readonly<Record<string, string>> = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export const badRequest = (message: string, reason: string): ProxyError =>
  new ProxyError(400, message, reason);

/** The backend could not be reached or broke the exchange before answering. */
export const badGateway = (reason: string, cause?: unknown): ProxyError =>
  new ProxyError(502, MESSAGES.badGateway, reason, {}, { cause });

/** The backend did not answer within the configured limit. */
export const gatewayTimeout = (reason: string): ProxyError =>
  new ProxyError(504, MESSAGES.gatewayTimeout, reason);

/** The proxy itself failed (configuration, key store, target verification): details only in the log. */
export const internalError = (reason: string, cause?: unknown): ProxyError =>
  new ProxyError(500, MESSAGES.internal, reason, {}, { cause });

export const JSON_CONTENT_TYPE = 'application/json';

export function errorBody(message: string): string {
  return JSON.stringify({ message });
}

/** A buffered API Gateway answer for a ProxyError. */
export function errorResult(error: ProxyError): APIGatewayProxyResult {
  return {
    statusCode: error.statusCode,
    multiValueHeaders: {
      'content-type': [JSON_CONTENT_TYPE],
      ...Object.fromEntries(Object.entries(error.headers).map(([k, v]) => [k, [v]])),
    },
    body: errorBody(error.message),
    isBase64Encoded: false,
  };
}

/** Any thrown value as a ProxyError: unknown errors become a 500 whose cause stays in the log. */
export function toProxyError(error: unknown): ProxyError {
  return error instanceof ProxyError ? error : internalError('unexpected_error', error);
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
