/**
 * Turns an API Gateway REST proxy event (payload v1) into the request the proxies forward: the rejection
 * rules, the backend path and query, the header allow-rules and the body. Pure functions, so every rule
 * is unit-tested without a network. See docs/edge-lambdas.md for the rules in prose.
 */
import { validateHeaderName, validateHeaderValue } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { isEnvelopeHeader, signEnvelope } from '../../contracts/envelope/envelope.js';
import { badRequest, MESSAGES } from './errors.js';
import { PROXY_REGION_ALTERNATIVE, targetRegionHeaderIn, targetRegionRefusal } from './target-region.js';
import { connectionListed, isHopByHop } from '../../contracts/http/hop-by-hop.js';
import type { OutboundRequest } from './http-forward.js';

/** The part of the REST proxy event the proxies read (the local API Gateway emulator builds the same). */
export type ProxyEvent = Pick<
  APIGatewayProxyEvent,
  | 'httpMethod'
  | 'path'
  | 'resource'
  | 'pathParameters'
  | 'headers'
  | 'multiValueHeaders'
  | 'queryStringParameters'
  | 'multiValueQueryStringParameters'
  | 'body'
  | 'isBase64Encoded'
> & {
  requestContext: Pick<APIGatewayProxyEvent['requestContext'], 'requestId' | 'stage'> & {
    identity?: Pick<APIGatewayProxyEvent['requestContext']['identity'], 'sourceIp'>;
  };
};

/** Request headers merged case-insensitively (lowercase names), every value kept in order. */
export function eventHeaders(
  event: Pick<ProxyEvent, 'headers' | 'multiValueHeaders'>,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (name: string, values: readonly (string | undefined)[]): void => {
    const lower = name.toLowerCase();
    const list = out.get(lower) ?? [];
    for (const v of values) if (typeof v === 'string') list.push(v);
    out.set(lower, list);
  };
  // API Gateway sends both maps; multiValueHeaders is the complete one. `headers` is the fallback for
  // callers (tests, emulators) that only fill the single-value map.
  const multi = event.multiValueHeaders as Record<string, (string | undefined)[] | undefined> | null;
  if (multi && Object.keys(multi).length > 0) {
    for (const [name, values] of Object.entries(multi)) add(name, values ?? []);
  } else if (event.headers) {
    for (const [name, value] of Object.entries(event.headers)) add(name, [value]);
  }
  return out;
}

/** Methods whose body the services never read (Fastify parses no GET/HEAD body), so none may be sent. */
const BODYLESS = new Set(['GET', 'HEAD']);

/**
 * The edge's refusals, checked before anything else (nothing is resolved, signed or sent for a refused
 * request): a caller may not pick the target region (`x-*-target-region`, lambda/shared/target-region.ts),
 * base64 bodies (binary media types) are refused, and so is a body on GET or HEAD — the service would
 * drop it unread, its envelope hash would then not match, and the caller would get a 403 that reads as a
 * signing problem (docs/edge-lambdas.md, "Request rules"). DELETE keeps its body: the spec's bulk delete
 * (`DELETE /api/v1/jobs`) carries one.
 */
export function rejectForbidden(
  event: ProxyEvent,
  headers: Map<string, string[]> = eventHeaders(event),
): void {
  const regionHeader = targetRegionHeaderIn(headers.keys());
  if (regionHeader !== undefined) {
    throw badRequest(targetRegionRefusal(regionHeader, PROXY_REGION_ALTERNATIVE), 'target_region_header');
  }
  if (event.isBase64Encoded) throw badRequest(MESSAGES.base64Body, 'base64_body');
  const method = event.httpMethod.toUpperCase();
  if (BODYLESS.has(method) && typeof event.body === 'string' && event.body.length > 0) {
    throw badRequest(bodyOnBodilessMethod(method), 'body_on_bodiless_method');
  }
}

/** The refusal of a GET or HEAD with a body: what is wrong and what to send instead. */
export function bodyOnBodilessMethod(method: string): string {
  return `A ${method} request may not carry a body: send its parameters in the query string, or use the operation's POST/PUT/PATCH/DELETE method`;
}

// Characters allowed verbatim in a path (RFC 3986 pchar + "/"); "%" only as the start of an escape.
const PATH_SAFE = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/;

/** Percent-encodes what may not appear raw in a request path, leaving valid escapes untouched. */
function encodePathChars(path: string): string {
  let out = '';
  for (let i = 0; i < path.length; i++) {
    const ch = path[i] ?? '';
    if (ch === '%' && /^[0-9A-Fa-f]{2}$/.test(path.slice(i + 1, i + 3))) out += ch;
    else if (PATH_SAFE.test(ch)) out += ch;
    else {
      const code = path.codePointAt(i) ?? 0;
      const char = String.fromCodePoint(code);
      if (char.length === 2) i++; // astral character: two UTF-16 units
      out += encodeURIComponent(char);
    }
  }
  return out;
}

const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * The backend path, without the stage prefix.
 *
 * For a REST API `event.path` is the path as the client sent it (percent-encoding kept) WITHOUT the
 * stage for execute-api URLs, but WITH the base path of a custom-domain mapping. The route's static
 * prefix is `event.resource` up to its first `{` (`/api/v1/` for `/api/v1/{proxy+}`), and the backend path
 * is `event.path` from the first occurrence of that prefix. Without a usable `event.path` the path is
 * rebuilt from the prefix and `pathParameters.proxy` (which API Gateway has already decoded, so it is
 * re-encoded segment by segment). Dot segments are refused: the proxies only reach their own prefix.
 */
export function derivePath(event: Pick<ProxyEvent, 'path' | 'resource' | 'pathParameters'>): string {
  const resource = event.resource ?? '';
  const brace = resource.indexOf('{');
  const prefix = brace === -1 ? resource : resource.slice(0, brace);
  if (!prefix.startsWith('/')) throw badRequest(MESSAGES.badPath, 'resource_unusable');

  let path: string | undefined;
  const raw = typeof event.path === 'string' ? event.path : '';
  // The prefix starts with "/", so any occurrence starts on a segment boundary.
  const at = raw.indexOf(prefix);
  if (at !== -1) path = raw.slice(at);
  if (path === undefined) {
    const proxy = event.pathParameters?.['proxy'];
    if (brace === -1 || proxy === undefined || proxy === '') {
      throw badRequest(MESSAGES.badPath, 'path_unusable');
    }
    path = prefix + proxy.split('/').map(encodeURIComponent).join('/');
  }
  path = encodePathChars(path);
  if (path.split('/').some((segment) => DOT_SEGMENT.test(segment))) {
    throw badRequest(MESSAGES.badPath, 'dot_segment');
  }
  return path;
}

function encodeQueryComponent(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    // A lone UTF-16 surrogate cannot be encoded as UTF-8.
    throw badRequest(MESSAGES.badQuery, 'query_unencodable');
  }
}

/**
 * The raw query string, rebuilt from the decoded values API Gateway hands over: every value of a
 * repeated key in the order received, keys in the order of the event, each component percent-encoded
 * exactly once. (REST events carry no raw query; keys repeated non-adjacently, `a=1&b=2&a=3`, arrive
 * grouped, so they are sent as `a=1&a=3&b=2`. A key without `=` arrives as an empty value: `k=`.)
 */
export function buildQuery(
  event: Pick<ProxyEvent, 'queryStringParameters' | 'multiValueQueryStringParameters'>,
): string {
  const pairs: string[] = [];
  const multi = event.multiValueQueryStringParameters;
  if (multi && Object.keys(multi).length > 0) {
    for (const [key, values] of Object.entries(multi)) {
      for (const value of values ?? []) {
        pairs.push(`${encodeQueryComponent(key)}=${encodeQueryComponent(value)}`);
      }
    }
  } else if (event.queryStringParameters) {
    for (const [key, value] of Object.entries(event.queryStringParameters)) {
      if (value !== undefined) pairs.push(`${encodeQueryComponent(key)}=${encodeQueryComponent(value)}`);
    }
  }
  return pairs.join('&');
}

/** Path plus `?query` when there is one: the envelope's request target. */
export function requestTarget(event: ProxyEvent): string {
  const path = derivePath(event);
  const query = buildQuery(event);
  return query === '' ? path : `${path}?${query}`;
}

/** Headers never forwarded, besides hop-by-hop ones: the proxy sets or recomputes these itself. */
const REPLACED = new Set(['host', 'authorization', 'content-length', 'x-request-id', 'x-forwarded-for']);

/**
 * Whether a caller header may reach the backend. Dropped: hop-by-hop (incl. `proxy-*` and names listed in
 * `Connection`), `host`, the caller's `authorization` (the SigV4 signature is for API Gateway), every
 * `x-amz-*` (SigV4 date, security token, content hash), every `x-svc-*` (nothing outside the proxies
 * may sign), and `content-length` / `x-request-id` / `x-forwarded-for`, which the proxy sets.
 */
function isForwardableHeader(name: string, listed: ReadonlySet<string>): boolean {
  const lower = name.toLowerCase();
  return !(
    REPLACED.has(lower) ||
    isHopByHop(lower, listed) ||
    lower.startsWith('x-amz-') ||
    isEnvelopeHeader(lower)
  );
}

/** `x-forwarded-for`: the chain API Gateway passed, ending with the caller's source IP. */
export function forwardedFor(
  headers: Map<string, string[]>,
  sourceIp: string | undefined,
): string | undefined {
  const chain = (headers.get('x-forwarded-for') ?? [])
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (sourceIp !== undefined && sourceIp !== '' && chain[chain.length - 1] !== sourceIp) chain.push(sourceIp);
  return chain.length > 0 ? chain.join(', ') : undefined;
}

/** The request body as bytes (undefined when absent). Base64 bodies never get here. */
export function requestBody(event: Pick<ProxyEvent, 'body'>): Buffer | undefined {
  return typeof event.body === 'string' && event.body.length > 0
    ? Buffer.from(event.body, 'utf8')
    : undefined;
}

const METHOD_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export interface PrepareOptions {
  /** Host header sent to the backend (`backend.<project>.<internal_domain>`). */
  hostHeader: string;
  /** Precomputed body (the streaming proxy checks its size first). */
  body?: Buffer | undefined;
}

/**
 * The request to forward, unsigned: method, target, allowed caller headers plus `host`,
 * `x-request-id` (the API Gateway request id), `x-forwarded-for` and `content-length`.
 * Call `rejectForbidden` first.
 */
export function prepareRequest(event: ProxyEvent, opts: PrepareOptions): OutboundRequest {
  const method = event.httpMethod.toUpperCase();
  if (!METHOD_RE.test(method)) throw badRequest(MESSAGES.badMethod, 'bad_method');
  const target = requestTarget(event);
  const body = opts.body ?? requestBody(event);
  const incoming = eventHeaders(event);
  const listed = connectionListed(incoming.get('connection'));

  const forwarded = new Map<string, string | string[]>();
  for (const [name, values] of incoming) {
    if (!isForwardableHeader(name, listed) || values.length === 0) continue;
    try {
      validateHeaderName(name);
      for (const v of values) validateHeaderValue(name, v);
    } catch {
      throw badRequest(MESSAGES.badHeader, 'bad_header');
    }
    forwarded.set(name, values.length === 1 ? (values[0] ?? '') : values);
  }
  // From a Map: a caller header named `__proto__` is a header like any other, not a prototype.
  const headers: Record<string, string | string[]> = Object.fromEntries(forwarded);
  headers['host'] = opts.hostHeader;
  const requestId = event.requestContext.requestId;
  if (typeof requestId === 'string' && requestId !== '') headers['x-request-id'] = requestId;
  const xff = forwardedFor(incoming, event.requestContext.identity?.sourceIp);
  if (xff !== undefined) headers['x-forwarded-for'] = xff;
  if (body !== undefined) headers['content-length'] = String(body.length);
  else if (!BODYLESS.has(method)) headers['content-length'] = '0';
  return { method, target, headers, body };
}

/** Adds the envelope (signed with `key`, the current signing key) to a prepared request. */
export function withEnvelope(request: OutboundRequest, key: string, nowSeconds?: number): OutboundRequest {
  const envelope = signEnvelope({
    key,
    method: request.method,
    target: request.target,
    ...(request.body !== undefined ? { body: request.body } : {}),
    ...(nowSeconds !== undefined ? { nowSeconds } : {}),
  });
  return { ...request, headers: { ...request.headers, ...envelope } };
}
