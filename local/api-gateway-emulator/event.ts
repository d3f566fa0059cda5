/**
 * REST API Lambda proxy events (payload format 1.0) as API Gateway builds them: `path` without the
 * stage, headers and query both single-value (last wins) and multi-value, decoded path and query
 * parameters, the body as text — base64 with `isBase64Encoded` only when its Content-Type is one of the
 * API's binary media types — and a `requestContext` with the caller's IAM identity and, behind a Lambda
 * authorizer, its context.
 */
import type { APIGatewayEventIdentity, APIGatewayProxyEvent } from 'aws-lambda';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import type { LocalCredential } from '../sigv4-verifier.js';

/** What the emulator read from the wire. */
export interface IncomingApiRequest {
  method: string;
  /** Path below the stage as sent (percent-encoding kept), e.g. `/api/v1/jobs`. */
  path: string;
  /** The raw query string without `?` ('' when none). */
  rawQuery: string;
  rawHeaders: readonly string[];
  body: Buffer;
  sourceIp: string;
}

export interface ApiStageInfo {
  apiId: string;
  stage: string;
  accountId: string;
  /** `<apiId>.execute-api.<region>.<dnsSuffix>`: the name the deployed API would have. */
  domainName: string;
}

export interface RequestInfo {
  requestId: string;
  extendedRequestId: string;
  resourceId: string;
  resourcePath: string;
  pathParameters: Record<string, string> | null;
  requestTime: Date;
  /** The verified SigV4 credential on `iam` routes. */
  caller: LocalCredential | undefined;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Appends `value` under `key` (a Map: a name such as `__proto__` is a key like any other). */
function append(groups: Map<string, string[]>, key: string, value: string): void {
  const values = groups.get(key);
  if (values === undefined) groups.set(key, [value]);
  else values.push(value);
}

/** Headers grouped case-insensitively under the first spelling seen, values in arrival order. */
function multiValueHeaders(rawHeaders: readonly string[]): Record<string, string[]> {
  const out = new Map<string, string[]>();
  const spelling = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? '';
    const key = spelling.get(name.toLowerCase()) ?? name;
    spelling.set(name.toLowerCase(), key);
    append(out, key, rawHeaders[i + 1] ?? '');
  }
  return Object.fromEntries(out);
}

/** Decoded query parameters, repeated keys grouped in order; null when there is no query. */
function multiValueQuery(rawQuery: string): Record<string, string[]> | null {
  const out = new Map<string, string[]>();
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = safeDecode(eq === -1 ? pair : pair.slice(0, eq));
    append(out, key, eq === -1 ? '' : safeDecode(pair.slice(eq + 1)));
  }
  return out.size > 0 ? Object.fromEntries(out) : null;
}

function lastValues(multi: Record<string, string[]>): Record<string, string> {
  return Object.fromEntries(Object.entries(multi).map(([k, v]) => [k, v[v.length - 1] ?? '']));
}

function headerValue(multi: Record<string, string[]>, name: string): string | undefined {
  const key = Object.keys(multi).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : multi[key]?.[0];
}

/** Whether a media type matches one of `binaryMediaTypes` (`type/subtype`, `type/*`, `*\/*`). */
export function isBinaryMediaType(
  contentType: string | undefined,
  binaryMediaTypes: readonly string[],
): boolean {
  if (contentType === undefined || binaryMediaTypes.length === 0) return false;
  const media = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  const [type = '', subtype = ''] = media.split('/');
  return binaryMediaTypes.some((entry) => {
    const [t = '', s = ''] = entry.toLowerCase().split('/');
    return (t === '*' || t === type) && (s === '*' || s === subtype);
  });
}

/** `09/Apr/2015:12:34:56 +0000`, API Gateway's `requestTime` format. */
function requestTimeText(date: Date): string {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(date.getUTCDate())}/${months[date.getUTCMonth()] ?? 'Jan'}/${date.getUTCFullYear()}:${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`;
}

/** The headers API Gateway adds before invoking: forwarding information and the trace id. */
export function withGatewayHeaders(req: IncomingApiRequest, traceId: string, port: number): string[] {
  const lower = new Set<string>();
  let forwardedFor: string | undefined;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] ?? '').toLowerCase();
    lower.add(name);
    if (name === 'x-forwarded-for') forwardedFor = req.rawHeaders[i + 1];
  }
  const out = req.rawHeaders.filter((_, i) => {
    // X-Forwarded-For is rewritten (appended to), the others replaced.
    const name = (req.rawHeaders[i - (i % 2)] ?? '').toLowerCase();
    return !['x-forwarded-for', 'x-forwarded-port', 'x-forwarded-proto', 'x-amzn-trace-id'].includes(name);
  });
  out.push(
    'X-Forwarded-For',
    forwardedFor === undefined ? req.sourceIp : `${forwardedFor}, ${req.sourceIp}`,
    'X-Forwarded-Port',
    String(port),
    'X-Forwarded-Proto',
    'http',
    'X-Amzn-Trace-Id',
    traceId,
  );
  return out;
}

function identityOf(req: IncomingApiRequest, caller: LocalCredential | undefined): APIGatewayEventIdentity {
  const userAgent = headerValue(multiValueHeaders(req.rawHeaders), 'user-agent') ?? null;
  return {
    accessKey: caller?.accessKeyId ?? null,
    accountId: caller?.principal.accountId ?? null,
    apiKey: null,
    apiKeyId: null,
    caller: caller?.principal.userId ?? null,
    clientCert: null,
    cognitoAuthenticationProvider: null,
    cognitoAuthenticationType: null,
    cognitoIdentityId: null,
    cognitoIdentityPoolId: null,
    principalOrgId: null,
    sourceIp: req.sourceIp,
    user: caller?.principal.userId ?? null,
    userAgent,
    userArn: caller?.principal.arn ?? null,
  };
}

function requestContext(req: IncomingApiRequest, stage: ApiStageInfo, info: RequestInfo) {
  return {
    accountId: stage.accountId,
    apiId: stage.apiId,
    domainName: stage.domainName,
    domainPrefix: stage.apiId,
    extendedRequestId: info.extendedRequestId,
    httpMethod: req.method,
    identity: identityOf(req, info.caller),
    path: `/${stage.stage}${req.path}`,
    protocol: 'HTTP/1.1',
    requestId: info.requestId,
    requestTime: requestTimeText(info.requestTime),
    requestTimeEpoch: info.requestTime.getTime(),
    resourceId: info.resourceId,
    resourcePath: info.resourcePath,
    stage: stage.stage,
  };
}

/** The Lambda proxy integration event. `authorizer` is the Lambda authorizer's context, if any. */
export function proxyEvent(
  req: IncomingApiRequest,
  rawHeaders: readonly string[],
  stage: ApiStageInfo,
  info: RequestInfo,
  opts: { binaryMediaTypes: readonly string[]; authorizer?: Record<string, unknown> },
): APIGatewayProxyEvent {
  const headers = multiValueHeaders(rawHeaders);
  const query = multiValueQuery(req.rawQuery);
  const binary = isBinaryMediaType(headerValue(headers, 'content-type'), opts.binaryMediaTypes);
  const body =
    req.body.length === 0 ? null : binary ? req.body.toString('base64') : req.body.toString('utf8');
  return {
    resource: info.resourcePath,
    path: req.path,
    httpMethod: req.method,
    headers: lastValues(headers),
    multiValueHeaders: headers,
    queryStringParameters: query === null ? null : lastValues(query),
    multiValueQueryStringParameters: query,
    pathParameters: info.pathParameters,
    stageVariables: null,
    requestContext: { ...requestContext(req, stage, info), authorizer: opts.authorizer },
    body,
    isBase64Encoded: body !== null && binary,
  };
}

/** The REQUEST authorizer's event: the same request data plus the method ARN, no body. */
export function authorizerEvent(
  req: IncomingApiRequest,
  rawHeaders: readonly string[],
  stage: ApiStageInfo,
  info: RequestInfo,
  methodArn: string,
): APIGatewayRequestAuthorizerEvent {
  const headers = multiValueHeaders(rawHeaders);
  const query = multiValueQuery(req.rawQuery);
  return {
    type: 'REQUEST',
    methodArn,
    resource: info.resourcePath,
    path: req.path,
    httpMethod: req.method,
    headers: lastValues(headers),
    multiValueHeaders: headers,
    queryStringParameters: query === null ? {} : lastValues(query),
    multiValueQueryStringParameters: query ?? {},
    pathParameters: info.pathParameters ?? {},
    stageVariables: {},
    requestContext: { ...requestContext(req, stage, info), authorizer: undefined },
  };
}
