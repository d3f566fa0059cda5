/**
 * Error types every cluster service answers with. Bodies follow FastAPI: validation failures are
 * 422 `HTTPValidationError` (`{"detail":[ValidationError…]}`), every other error is `{"detail":"…"}`.
 */
import { PlatformError } from '../../contracts/runtime/errors.js';

export type LocSegment = string | number;

/** One entry of FastAPI's HTTPValidationError.detail (docs/service-framework.md, "Validation rules"). */
export interface ValidationErrorItem {
  loc: LocSegment[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** An error with an HTTP status and a caller-safe `detail`. Thrown by handlers; rendered by the service. */
export class HttpError extends PlatformError {
  override readonly name = 'HttpError';
  constructor(
    readonly statusCode: number,
    readonly detail: unknown,
    /** Extra response headers (e.g. Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : `HTTP ${statusCode}`);
  }
}

/** 422 with FastAPI's shape; handlers throw it for checks a JSON schema cannot express. */
export class RequestValidationError extends PlatformError {
  override readonly name = 'RequestValidationError';
  readonly statusCode = 422;
  constructor(readonly items: ValidationErrorItem[]) {
    super(items.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
  }
}

export const notFound = (detail = 'Not Found'): HttpError => new HttpError(404, detail);
export const serviceUnavailable = (detail: string): HttpError => new HttpError(503, detail);
