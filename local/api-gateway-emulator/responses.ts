/**
 * What API Gateway sends back: its own gateway responses (JSON `{"message":…}` with `x-amzn-ErrorType`)
 * and the translation of a Lambda proxy result — validated as API Gateway validates it (anything
 * malformed is a 502), `headers` merged into `multiValueHeaders`, a base64 body decoded only when the
 * request's Accept names a binary media type.
 */
import type { HttpIntegrationPrelude } from '../../lambda/shared/streaming.js';
import { isBinaryMediaType } from './event.js';

export interface HttpAnswer {
  statusCode: number;
  /** Name/value pairs in order (repeated names allowed). */
  headers: [string, string][];
  body: Buffer;
}

export const MESSAGES = {
  internal: 'Internal server error',
  timeout: 'Endpoint request timed out',
  forbidden: 'Forbidden',
  unauthorized: 'Unauthorized',
  tooLarge: 'Request Too Long',
  tooManyRequests: 'Too Many Requests',
  notAuthorized: 'User is not authorized to access this resource',
  explicitDeny: 'User is not authorized to access this resource with an explicit deny',
} as const;

/** A gateway response: `{"message": …}` (or another body, e.g. the authorizer's `{"Message": …}`). */
export function gatewayResponse(
  statusCode: number,
  errorType: string,
  body: Record<string, unknown>,
): HttpAnswer {
  return {
    statusCode,
    headers: [
      ['Content-Type', 'application/json'],
      ['x-amzn-ErrorType', errorType],
    ],
    body: Buffer.from(JSON.stringify(body)),
  };
}

export const gatewayError = (statusCode: number, errorType: string, message: string | null): HttpAnswer =>
  gatewayResponse(statusCode, errorType, { message });

/** A gateway answer with no error type of API Gateway's own (the request-size quotas). */
export const jsonAnswer = (statusCode: number, message: string): HttpAnswer => ({
  statusCode,
  headers: [['Content-Type', 'application/json']],
  body: Buffer.from(JSON.stringify({ message })),
});

export const internalServerError = (): HttpAnswer =>
  gatewayError(502, 'InternalServerErrorException', MESSAGES.internal);

export const integrationTimeout = (): HttpAnswer =>
  gatewayError(504, 'InternalServerErrorException', MESSAGES.timeout);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function scalar(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * `multiValueHeaders` first, then `headers` values not already listed under the same name (API Gateway
 * merges the two). Undefined when either is malformed.
 */
function mergeHeaders(headers: unknown, multi: unknown): [string, string][] | undefined {
  const out: [string, string][] = [];
  if (multi !== undefined && multi !== null) {
    if (!isRecord(multi)) return undefined;
    for (const [name, values] of Object.entries(multi)) {
      if (values === null || values === undefined) continue;
      if (!Array.isArray(values)) return undefined;
      for (const v of values) {
        const s = scalar(v);
        if (s === undefined) return undefined;
        out.push([name, s]);
      }
    }
  }
  if (headers !== undefined && headers !== null) {
    if (!isRecord(headers)) return undefined;
    for (const [name, value] of Object.entries(headers)) {
      if (value === null || value === undefined) continue;
      const s = scalar(value);
      if (s === undefined) return undefined;
      const lower = name.toLowerCase();
      if (!out.some(([n, v]) => n.toLowerCase() === lower && v === s)) out.push([name, s]);
    }
  }
  return out;
}

function statusOf(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 100 && n <= 599 ? n : undefined;
}

function hasHeader(headers: readonly [string, string][], name: string): boolean {
  return headers.some(([n]) => n.toLowerCase() === name);
}

/** A buffered Lambda proxy result as the HTTP answer; undefined = malformed (API Gateway's 502). */
export function fromProxyResult(
  result: unknown,
  accept: string | undefined,
  binaryMediaTypes: readonly string[],
): HttpAnswer | undefined {
  if (!isRecord(result)) return undefined;
  const statusCode = statusOf(result.statusCode);
  const headers = mergeHeaders(result.headers, result.multiValueHeaders);
  const body = result.body;
  const base64 = result.isBase64Encoded;
  if (statusCode === undefined || headers === undefined) return undefined;
  if (body !== undefined && body !== null && typeof body !== 'string') return undefined;
  if (base64 !== undefined && base64 !== null && typeof base64 !== 'boolean') return undefined;
  const text = body ?? '';
  // API Gateway turns a base64 result into bytes only for an Accept it treats as binary.
  const firstAccept = accept?.split(',')[0]?.trim();
  const bytes =
    base64 === true && isBinaryMediaType(firstAccept, binaryMediaTypes)
      ? Buffer.from(text, 'base64')
      : Buffer.from(text, 'utf8');
  const out = headers.filter(
    ([n]) => !['content-length', 'transfer-encoding', 'connection'].includes(n.toLowerCase()),
  );
  if (!hasHeader(out, 'content-type')) out.push(['Content-Type', 'application/json']);
  return { statusCode, headers: out, body: bytes };
}

/** Status and headers of a streaming response's prelude; undefined = malformed. */
export function fromPrelude(prelude: HttpIntegrationPrelude): Omit<HttpAnswer, 'body'> | undefined {
  const statusCode = statusOf(prelude.statusCode ?? 200);
  const headers = mergeHeaders(prelude.headers, prelude.multiValueHeaders);
  if (statusCode === undefined || headers === undefined) return undefined;
  for (const cookie of prelude.cookies ?? []) headers.push(['Set-Cookie', cookie]);
  return {
    statusCode,
    headers: headers.filter(
      ([n]) => !['content-length', 'transfer-encoding', 'connection'].includes(n.toLowerCase()),
    ),
  };
}
