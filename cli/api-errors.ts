/**
 * An error answer as the user reads it: the status, the API's own message, and — as far as the answer
 * tells them apart — who refused and what to do (docs/cli.md, "Errors"): API Gateway's IAM check
 * (`x-amzn-ErrorType`), the web ACL in front of the global API, the cluster services' HMAC envelope
 * check (`{"detail":"Forbidden"}`), the analytics authorizer, throttling.
 */
import type { ApiReply } from './http.js';
import { ApiError, UsageError } from './errors.js';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const MAX_LINE = 300;
const MAX_VALIDATION_ITEMS = 8;

/** The first line of a text (a signature error's canonical request, a stack trace follow it). */
function firstLine(text: string): string {
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  return line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line;
}

function validationItems(detail: unknown[]): string {
  const lines = detail.slice(0, MAX_VALIDATION_ITEMS).map((item) => {
    if (!isRecord(item)) return JSON.stringify(item);
    const loc = Array.isArray(item.loc) ? item.loc.join('.') : '';
    return `${loc}: ${typeof item.msg === 'string' ? item.msg : JSON.stringify(item)}`;
  });
  if (detail.length > MAX_VALIDATION_ITEMS) lines.push(`… and ${detail.length - MAX_VALIDATION_ITEMS} more`);
  return lines.join('; ');
}

/** `field: message` of each policy violation (a report's or a policy error's). */
const violationTexts = (violations: unknown): string[] =>
  (Array.isArray(violations) ? violations : []).filter(isRecord).map((v) => {
    const field = String(v.field);
    const message = typeof v.message === 'string' ? v.message : String(v.rule);
    // The platform's messages usually start with the field's path already.
    return message.includes(field) ? message : `${field}: ${message}`;
  });

/**
 * The violations of a manifest report that belong to the request, not to one manifest (index -1: the
 * request's namespace is not allowed); its resources are then `skipped` with no message of their own.
 */
export const requestViolations = (body: Record<string, unknown>): string[] =>
  violationTexts(
    (Array.isArray(body.violations) ? body.violations : []).filter((v) => isRecord(v) && v.index === -1),
  );

/**
 * A manifest report's refusals (manifest-processor's ApplyReport, also the body of a refused template
 * run): the request's own violations, then `Kind/name: reason` of each failed resource.
 */
export function reportRefusals(body: Record<string, unknown>): string[] {
  const resources = (Array.isArray(body.resources) ? body.resources : []).filter(isRecord);
  const failed = resources
    .filter((r) => r.status === 'failed')
    .map(
      (r) => `${String(r.kind)}/${String(r.name)}: ${typeof r.message === 'string' ? r.message : 'failed'}`,
    );
  return [...requestViolations(body), ...failed];
}

/** The global API's merged answer with no successful region: each region's own error. */
function regionErrors(body: Record<string, unknown>): string | undefined {
  if (!isRecord(body.regions)) return undefined;
  const errors = Object.entries(body.regions)
    .filter(([, r]) => isRecord(r) && typeof r.error === 'string')
    .map(([region, r]) => `${region}: ${firstLine(String((r as Record<string, unknown>).error))}`);
  return errors.length > 0 ? errors.join('; ') : undefined;
}

/**
 * The API's own message, on one line: `detail` (string, validation list or policy report), a manifest
 * report's refusals, the regions' errors of a merged answer, `message`, `Message` or `error`, or the
 * body's first line. The whole body is the error's details (detailsOf), printed with `-v`.
 */
export function messageOf(reply: Pick<ApiReply, 'json' | 'text'>): string {
  const body = reply.json;
  if (typeof body === 'string') return firstLine(body);
  if (isRecord(body)) {
    const { detail } = body;
    if (typeof detail === 'string') return firstLine(detail);
    if (Array.isArray(detail)) return validationItems(detail);
    if (isRecord(detail) && typeof detail.message === 'string') {
      return [detail.message, ...violationTexts(detail.violations)]
        .slice(0, MAX_VALIDATION_ITEMS + 1)
        .join('; ');
    }
    if (Array.isArray(body.resources)) {
      const refusals = reportRefusals(body);
      if (refusals.length > 0) return refusals.slice(0, MAX_VALIDATION_ITEMS).join('; ');
    }
    const regions = regionErrors(body);
    if (regions !== undefined) return regions;
    for (const key of ['message', 'Message', 'error']) {
      const value = body[key];
      if (typeof value === 'string') return firstLine(value);
      if (isRecord(value) && typeof value.message === 'string') return firstLine(value.message);
    }
  }
  const text = reply.text.trim();
  return text === '' ? '(empty body)' : firstLine(text);
}

/** The whole answer, for `-v`: JSON pretty-printed, text as it came. */
function detailsOf(reply: Pick<ApiReply, 'json' | 'text'>): string | undefined {
  if (reply.text.trim() === '') return undefined;
  return reply.json === undefined ? reply.text : JSON.stringify(reply.json, null, 2);
}

/**
 * The API refused a query or path parameter (FastAPI's 422 `loc: ["query", …]`, the analytics API's
 * "Path parameter X must be …"): the command line was wrong, a usage error as if gco had found it.
 */
function isParameterRefusal(reply: Pick<ApiReply, 'status' | 'json'>): boolean {
  if (reply.status !== 400 && reply.status !== 422) return false;
  const body = isRecord(reply.json) ? reply.json : {};
  if (Array.isArray(body.detail) && body.detail.length > 0) {
    return body.detail.every(
      (item) => isRecord(item) && Array.isArray(item.loc) && ['query', 'path'].includes(String(item.loc[0])),
    );
  }
  const message = [body.detail, body.message, body.Message].find((m) => typeof m === 'string');
  return typeof message === 'string' && /^(path|query(string)?) parameter\b/i.test(message);
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
      // A merged answer whose regions refused (4xx) is not an outage: their errors say what to fix.
      if (regionStatuses(body).some((status) => status >= 400 && status < 500)) return undefined;
      return 'The platform did not answer in time or a backend is down: retry; `gco health` shows each region.';
    default:
      return undefined;
  }
}

/** The HTTP status of each region of a merged answer (`regions.<region>.status`). */
const regionStatuses = (body: Record<string, unknown>): number[] =>
  isRecord(body.regions)
    ? Object.values(body.regions).flatMap((r) =>
        isRecord(r) && typeof r.status === 'number' ? [r.status] : [],
      )
    : [];

/** The error of an error answer: exit 2 for a refused parameter, 1 otherwise; the body as details. */
export function apiErrorOf(
  reply: Pick<ApiReply, 'status' | 'headers' | 'json' | 'text' | 'target' | 'method' | 'path'>,
): ApiError | UsageError {
  const message = `HTTP ${reply.status} from ${reply.method} ${reply.path} (${reply.target.kind} API): ${messageOf(reply)}`;
  const details = detailsOf(reply);
  if (isParameterRefusal(reply)) {
    return new UsageError(message, 'the API refused an option’s value: see the command’s --help', details);
  }
  return new ApiError(message, hintFor(reply), reply.status, details);
}

/** The reply when its status is 2xx; otherwise the ApiError that describes it. */
export function ensureOk<T extends Parameters<typeof apiErrorOf>[0]>(reply: T): T {
  if (reply.status >= 200 && reply.status < 300) return reply;
  throw apiErrorOf(reply);
}
