/**
 * Test helpers: API Gateway REST proxy events built the way API Gateway builds them from a raw request,
 * plain events for the handlers of a fixed resource, custom-resource requests, and an in-memory logger.
 */
import type { APIGatewayProxyEvent, CloudFormationCustomResourceEvent } from 'aws-lambda';
import type { EdgeLogger, LogFields } from '../../../lambda/shared/logger.js';
import type { ProxyEvent } from '../../../lambda/shared/proxy-request.js';

export interface RawRequest {
  method?: string;
  /** Path and query exactly as the client sent them, without the stage (e.g. `/api/v1/jobs?a=1`). */
  url: string;
  /** In order; repeated names allowed. */
  headers?: [string, string][];
  body?: string | null;
  isBase64Encoded?: boolean;
  /** Route resource; default from the first path segment (`/api/v1/{proxy+}` or `/inference/{proxy+}`). */
  resource?: string;
  /** Custom-domain base path mapping (prepended to `event.path`, as API Gateway does). */
  basePath?: string;
  requestId?: string;
  sourceIp?: string;
}

let counter = 0;

/** Builds the REST v1 event API Gateway would send for `raw`. */
export function restEvent(raw: RawRequest): ProxyEvent {
  const q = raw.url.indexOf('?');
  const path = q === -1 ? raw.url : raw.url.slice(0, q);
  const query = q === -1 ? '' : raw.url.slice(q + 1);
  const resource =
    raw.resource ?? (path.startsWith('/inference/') ? '/inference/{proxy+}' : '/api/v1/{proxy+}');
  const prefix = resource.slice(0, resource.indexOf('{'));

  // API Gateway decodes query values and groups repeated keys (order of values kept).
  const multiQuery: Record<string, string[]> = {};
  if (query !== '') {
    for (const pair of query.split('&')) {
      const eq = pair.indexOf('=');
      const key = decodeURIComponent(eq === -1 ? pair : pair.slice(0, eq));
      const value = eq === -1 ? '' : decodeURIComponent(pair.slice(eq + 1));
      (multiQuery[key] ??= []).push(value);
    }
  }
  const multiHeaders: Record<string, string[]> = {};
  for (const [name, value] of raw.headers ?? []) (multiHeaders[name] ??= []).push(value);
  const single = <T>(m: Record<string, T[]>): Record<string, T> =>
    Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v[v.length - 1] as T]));

  counter += 1;
  return {
    httpMethod: raw.method ?? 'GET',
    path: (raw.basePath ?? '') + path,
    resource,
    pathParameters: path.startsWith(prefix) ? { proxy: decodeURIComponent(path.slice(prefix.length)) } : null,
    headers: single(multiHeaders),
    multiValueHeaders: multiHeaders,
    queryStringParameters: query === '' ? null : single(multiQuery),
    multiValueQueryStringParameters: query === '' ? null : multiQuery,
    body: raw.body ?? null,
    isBase64Encoded: raw.isBase64Encoded ?? false,
    requestContext: {
      requestId: raw.requestId ?? `req-${counter}-0f1e2d3c`,
      stage: 'prod',
      identity: { sourceIp: raw.sourceIp ?? '203.0.113.7' },
    },
  };
}

/** A REST proxy event for a handler whose route is the path itself (aggregator, studio login). */
export function apiEvent(
  httpMethod: string,
  path: string,
  extra: Partial<APIGatewayProxyEvent> = {},
): APIGatewayProxyEvent {
  return {
    httpMethod,
    path,
    resource: path,
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {} as APIGatewayProxyEvent['requestContext'],
    ...extra,
  };
}

/** A CloudFormation custom-resource request (the internal CA's resources). */
export function customResourceEvent(
  requestType: 'Create' | 'Update' | 'Delete',
  properties: Record<string, unknown>,
  physicalResourceId = 'placeholder',
): CloudFormationCustomResourceEvent {
  const base = {
    ServiceToken: 'token',
    ResponseURL: 'https://example.invalid/response',
    StackId: 'stack',
    RequestId: 'request',
    LogicalResourceId: 'Resource',
    ResourceType: 'Custom::InternalCa',
    ResourceProperties: { ...properties, ServiceToken: 'token' },
  };
  if (requestType === 'Create') return { ...base, RequestType: 'Create' };
  if (requestType === 'Update') {
    return {
      ...base,
      RequestType: 'Update',
      PhysicalResourceId: physicalResourceId,
      OldResourceProperties: { ServiceToken: 'token' },
    };
  }
  return { ...base, RequestType: 'Delete', PhysicalResourceId: physicalResourceId };
}

export interface MemoryLogger extends EdgeLogger {
  readonly lines: { level: string; message: string; fields: LogFields }[];
  /** Everything logged, serialized (for "never contains" assertions). */
  text(): string;
}

export function memoryLogger(): MemoryLogger {
  const lines: { level: string; message: string; fields: LogFields }[] = [];
  const at =
    (level: string) =>
    (fields: LogFields, message: string): void => {
      lines.push({ level, message, fields });
    };
  return {
    lines,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    text: () => JSON.stringify(lines),
  };
}
