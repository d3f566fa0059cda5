/**
 * An error answer as the user reads it: the status, the API's own message, and — as far as the answer
 * tells them apart — who refused and what to do (docs/cli.md, "Errors"): API Gateway's IAM check
 * (`x-amzn-ErrorType`), the web ACL in front of the global API, the cluster services' HMAC envelope
 * check (`{"detail":"Forbidden"}`), the analytics authorizer, throttling.
 */
import type { ApiReply } from './http.js';
import { ApiError } from './errors.js';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const MAX_MESSAGE = 600;
const MAX_VALIDATION_ITEMS = 8;

function validationItems(detail: unknown[]): string {
  const lines = detail.slice(0, MAX_VALIDATION_ITEMS).map((item) => {
    if (!isRecord(item)) return JSON.stringify(item);
    const loc = Array.isArray(item.loc) ? item.loc.join('.') : '';
    return `${loc}: ${typeof item.msg === 'string' ? item.msg : JSON.stringify(item)}`;
  });
  if (detail.length > MAX_VALIDATION_ITEMS) lines.push(`… and ${detail.length - MAX_VALIDATION_ITEMS} more`);
  return lines.join('; ');
}

/** The API's own message: `detail` (string, validation list or policy report), `message` or `Message`. */
export function messageOf(reply: Pick<ApiReply, 'json' | 'text'>): string {
  const body = reply.json;
  if (typeof body === 'string') return body;
  if (isRecord(body)) {
    const { detail } = body;
    if (typeof detail === 'string') return detail;
    if (Array.isArray(detail)) return validationItems(detail);
    if (isRecord(detail) && typeof detail.message === 'string') {
      const violations = Array.isArray(detail.violations) ? detail.violations : [];
      return [
        detail.message,
        ...violations.filter(isRecord).map((v) => `${String(v.field)}: ${String(v.message)}`),
      ]
        .slice(0, MAX_VALIDATION_ITEMS + 1)
        .join('; ');
    }
    for (const key of ['message', 'Message', 'error']) {
      const value = body[key];
      if (typeof value === 'string') return value;
      if (isRecord(value) && typeof value.message === 'string') return value.message;
    }
  }
  const text = reply.text.trim();
  if (text === '') return '(empty body)';
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

function headerValue(reply: Pick<ApiReply, 'headers'>, name: string): string | undefined {
  const value = reply.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** What to do about an error answer, when the answer says enough to tell. */
export function hintFor(
  reply: Pick<ApiReply, 'status' | 'headers' | 'json' | 'text' | 'target'>,
): string | undefined {
  const errorType = headerValue(reply, 'x-amzn-errortype')?.split(':')[0];
  const body = isRecord(reply.json) ? reply.json : {};
  const regional = reply.target.kind === 'regional';
  switch (reply.status) {
    case 401:
      return 'The analytics API key is missing, malformed, unknown or deleted: pass a current key with --key (or GCO_ANALYTICS_KEY).';
    case 403:
      if (errorType === 'MissingAuthenticationTokenException') {
        return 'API Gateway has no such route (or the request was unsigned): check the command and the API URL.';
      }
      if (errorType === 'InvalidSignatureException' || errorType === 'IncompleteSignatureException') {
        return "API Gateway refused the SigV4 signature: check the system clock and that the credentials match the API's account and region.";
      }
      if (errorType === 'UnrecognizedClientException') {
        return 'API Gateway (IAM) does not know this access key: the credentials belong to another account, expired or were deleted.';
      }
      if (errorType === 'AccessDeniedException' && typeof body.Message === 'string') {
        return /explicit deny/.test(body.Message)
          ? 'The analytics API key is disabled, or its application was deleted (authorizer decisions are cached up to its TTL, 300 s by default).'
          : 'This API key belongs to another application.';
      }
      if (errorType === 'AccessDeniedException') {
        return regional
          ? "IAM or the regional API's resource policy denies execute-api:Invoke: direct calls to regional APIs need api_gateway.regional_api_enabled (commercial partition) and an identity of the deploying account."
          : "IAM or the API's resource policy denies execute-api:Invoke to this identity: use credentials of the deploying account with execute-api:Invoke on the API.";
      }
      if (errorType === 'ForbiddenException') {
        return "Refused before API Gateway ran the request: the global API's web ACL (per-IP rate limit, body size limit on non-inference paths) or a wrong stage in the URL.";
      }
      if (errorType === undefined && body.detail === 'Forbidden') {
        return "The cluster service refused the edge proxy's HMAC envelope (signing-key rotation under way, or clock skew between the proxy and the cluster): retry shortly; if it persists, tell the platform operators.";
      }
      return undefined;
    case 429:
      return 'Throttled (API Gateway stage limit): wait and retry; gco already retried reads.';
    case 502:
    case 503:
    case 504:
      return 'The platform did not answer in time or a backend is down: retry; `gco health` shows each region.';
    default:
      return undefined;
  }
}

export function apiErrorOf(
  reply: Pick<ApiReply, 'status' | 'headers' | 'json' | 'text' | 'target' | 'method' | 'path'>,
): ApiError {
  return new ApiError(
    `HTTP ${reply.status} from ${reply.method} ${reply.path} (${reply.target.kind} API): ${messageOf(reply)}`,
    hintFor(reply),
    reply.status,
  );
}

/** The reply when its status is 2xx; otherwise the ApiError that describes it. */
export function ensureOk<T extends Parameters<typeof apiErrorOf>[0]>(reply: T): T {
  if (reply.status >= 200 && reply.status < 300) return reply;
  throw apiErrorOf(reply);
}
