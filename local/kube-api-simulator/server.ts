// HTTP front: reads bodies (3 MiB cap → 413), routes paths, applies simulated unavailability,
// dispatches verbs to the REST layer / discovery / metrics / pods/log, negotiates Table output and
// turns every failure into a Kubernetes Status. Nothing a client sends can crash the server.

import { errorMessage } from '../../contracts/runtime/errors.js';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

import type { SimContext } from './context.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, SERVER_VERSION } from './discovery.js';
import { parseLogQuery, renderLog, stripTimestamp } from './logs.js';
import { metricsGet } from './metrics.js';
import { openapiV3Document, openapiV3Root } from './openapi-v3.js';
import { patchTypeOf } from './patch.js';
import type { Reply, Target } from './rest.js';
import { create, getObject, list, listObjects, patch, remove, removeCollection, replace } from './rest.js';
import type { Route } from './routes.js';
import { route } from './routes.js';
import {
  badRequest,
  forbidden,
  internal,
  KubeError,
  methodNotAllowed,
  notFound,
  notFoundPath,
  serviceUnavailable,
  tooLarge,
  unsupportedMediaType,
} from './status.js';
import { negotiate, toPartial, toTable } from './table.js';
import { isRecord, str } from './types.js';

const MAX_BODY_BYTES = 3 * 1024 * 1024;

type ResourceRoute = Extract<Route, { kind: 'resource' }>;

interface Stream {
  stream: (res: ServerResponse, req: IncomingMessage) => void;
}

type Outcome =
  Reply | Stream | { status: number; text: string } | { status: number; bytes: Buffer; contentType: string };

/**
 * `/openapi/v2`: an OpenAPI document with no definitions, protobuf-encoded (field 1, swagger = "2.0").
 * kubectl's client-side validation needs the download to succeed and skips kinds it has no schema
 * for; the simulator does not publish schemas.
 */
const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const OPENAPI_V2_EMPTY = Buffer.from([0x0a, 0x03, 0x32, 0x2e, 0x30]);

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > MAX_BODY_BYTES) {
      reject(new BodyTooLarge());
      return;
    }
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit the rest is discarded; the 413 answer closes the connection.
      if (size > MAX_BODY_BYTES) reject(new BodyTooLarge());
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function parseJsonBody(raw: Buffer, contentType: string, required: boolean): unknown {
  if (raw.length === 0) {
    if (required) throw badRequest('the request body is empty');
    return undefined;
  }
  const base = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const jsonLike =
    base === '' ||
    base === 'application/json' ||
    base === '*/*' ||
    base.endsWith('+json') ||
    base === 'application/apply-patch+yaml';
  if (!jsonLike) throw unsupportedMediaType(contentType);
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (err) {
    const why = err instanceof Error ? err.message : 'invalid JSON';
    // Apply bodies may legally be YAML; the simulator only understands the JSON subset.
    const hint =
      base === 'application/apply-patch+yaml' ? ' (the simulator accepts JSON apply bodies only)' : '';
    throw badRequest(`the request body is not valid JSON: ${why}${hint}`);
  }
}

function verbOf(method: string, r: ResourceRoute): string {
  switch (method) {
    case 'GET':
      return r.name ? 'get' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return r.name ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

/** setUnavailable(): answer 403/404/503 for a resource, a group or `resource.group`. */
function checkAvailable(ctx: SimContext, method: string, r: ResourceRoute): void {
  const t = r.type;
  const keys = [t.plural, t.group, `${t.plural}.${t.group}`, `${t.group}/${t.plural}`].filter(
    (k) => k !== '' && k !== '.',
  );
  const status = keys.map((k) => ctx.unavailable.get(k)).find((s) => s !== undefined);
  if (status === undefined) return;
  if (status === 404) throw notFoundPath();
  if (status === 503) throw serviceUnavailable();
  const scope = r.namespace ? `in the namespace "${r.namespace}"` : 'at the cluster scope';
  const resource = r.subresource ? `${t.plural}/${r.subresource}` : t.plural;
  throw forbidden(
    { group: t.group, resource: t.plural },
    r.name ?? '',
    `User "system:serviceaccount:default:simulator" cannot ${verbOf(method, r)} resource "${resource}" in API group "${t.group}" ${scope}`,
  );
}

function groupUnavailable(ctx: SimContext, group: string): 404 | 503 | undefined {
  const s = ctx.unavailable.get(group);
  return s === 404 || s === 503 ? s : undefined;
}

function targetOf(r: ResourceRoute): Target {
  const t: Target = { type: r.type, version: r.version };
  if (r.namespace !== undefined) t.namespace = r.namespace;
  if (r.name !== undefined) t.name = r.name;
  if (r.subresource !== undefined) t.subresource = r.subresource;
  return t;
}

function podLog(ctx: SimContext, r: ResourceRoute, query: URLSearchParams): Outcome {
  const pods = ctx.registry.core('pods');
  const name = r.name ?? '';
  const pod = ctx.store.get(pods, r.namespace, name);
  if (!pod) throw notFound({ group: '', resource: 'pods' }, name);
  const q = parseLogQuery(pod, query);
  const { text, live } = renderLog(ctx.logs, pod, q);
  if (!q.follow || !live) return { status: 200, text };
  const ns = r.namespace ?? 'default';
  return {
    stream: (res, req) => {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
      res.write(text);
      const stop = ctx.logs.follow(ns, name, q.container, (line) => {
        if (res.writableEnded || res.destroyed) return;
        if (line === null) res.end();
        else res.write(`${q.timestamps ? line : stripTimestamp(line)}\n`);
      });
      req.on('close', stop);
      res.on('error', stop); // a client that vanished mid-stream is not an error worth surfacing
    },
  };
}

/** GET on a stored resource, honoring `as=Table` / `as=PartialObjectMetadata`. */
function getResource(
  ctx: SimContext,
  r: ResourceRoute,
  query: URLSearchParams,
  accept: string | undefined,
): Reply {
  const target = targetOf(r);
  const rep = negotiate(accept);
  if (r.name === undefined) {
    if (query.get('watch') === 'true' || query.get('watch') === '1') {
      throw methodNotAllowed('watch is not supported by the kube-api-simulator; poll with list instead');
    }
    if (rep.as === 'json') return list(ctx, target, query);
    const { items, metadata } = listObjects(ctx, target, query);
    if (rep.as === 'Table')
      return { status: 200, body: toTable(r.type, items, metadata, rep.version, query.get('includeObject')) };
    return { status: 200, body: toPartial(items, metadata, rep.version, false) };
  }
  const obj = getObject(ctx, target);
  if (rep.as === 'json' || r.subresource) return { status: 200, body: obj };
  // Single objects are presented with the same representation as lists.
  const meta = { resourceVersion: str(obj.metadata.resourceVersion) ?? '' };
  if (rep.as === 'Table')
    return { status: 200, body: toTable(r.type, [obj], meta, rep.version, query.get('includeObject')) };
  return { status: 200, body: toPartial([obj], meta, rep.version, true) };
}

async function dispatch(
  ctx: SimContext,
  req: IncomingMessage,
  url: URL,
  serverAddress: string,
): Promise<Outcome> {
  const method = (req.method ?? 'GET').toUpperCase();
  const query = url.searchParams;
  const r = route(ctx.registry, url.pathname);
  const raw = method === 'GET' || method === 'HEAD' ? Buffer.alloc(0) : await readBody(req);
  const contentType = req.headers['content-type'] ?? '';
  if (r.kind !== 'resource') {
    if (method !== 'GET')
      throw r.kind === 'notFound' || r.kind === 'unknownResource'
        ? notFoundPath()
        : methodNotAllowed('the server does not allow this method on the requested resource');
    switch (r.kind) {
      case 'version':
        return { status: 200, body: SERVER_VERSION };
      case 'health':
        return { status: 200, text: 'ok' };
      case 'openapiV2':
        return { status: 200, bytes: OPENAPI_V2_EMPTY, contentType: OPENAPI_V2_PROTOBUF };
      case 'openapiV3Root':
        return { status: 200, body: openapiV3Root(ctx.registry) };
      case 'openapiV3': {
        const doc = openapiV3Document(ctx.registry, r.group, r.version);
        if (doc === undefined) throw notFoundPath();
        return { status: 200, bytes: Buffer.from(doc), contentType: 'application/json' };
      }
      case 'apiVersions':
        return { status: 200, body: apiVersions(serverAddress) };
      case 'groupList':
        return { status: 200, body: apiGroupList(ctx) };
      case 'group': {
        const doc = apiGroup(ctx, r.group);
        if (!doc) throw notFoundPath();
        return { status: 200, body: doc };
      }
      case 'resourceList': {
        if (groupUnavailable(ctx, r.group) === 503) throw serviceUnavailable();
        const doc = apiResourceList(ctx, r.group, r.version);
        if (!doc) throw notFoundPath();
        return { status: 200, body: doc };
      }
      default:
        throw notFoundPath();
    }
  }
  checkAvailable(ctx, method, r);
  const target = targetOf(r);
  if (r.type.namespaced && r.name !== undefined && r.namespace === undefined) throw notFoundPath();
  if (r.type.virtual) {
    if (method !== 'GET')
      throw methodNotAllowed('the server does not allow this method on the requested resource');
    return { status: 200, body: metricsGet(ctx, r.type, r.namespace, r.name, query) };
  }
  if (r.subresource === 'log') {
    if (r.type.plural !== 'pods' || r.type.group !== '') throw notFoundPath();
    if (method !== 'GET')
      throw methodNotAllowed('the server does not allow this method on the requested resource');
    return podLog(ctx, r, query);
  }
  if (r.subresource !== undefined && !r.type.subresources.includes(r.subresource)) throw notFoundPath();
  switch (method) {
    case 'GET':
      return getResource(ctx, r, query, req.headers.accept);
    case 'POST':
      if (r.name !== undefined)
        throw methodNotAllowed('the server does not allow this method on the requested resource');
      return create(ctx, target, parseJsonBody(raw, contentType, true), query, raw.toString('utf8'));
    case 'PUT':
      if (r.name === undefined)
        throw methodNotAllowed('the server does not allow this method on the requested resource');
      return replace(ctx, target, parseJsonBody(raw, contentType, true), query, raw.toString('utf8'));
    case 'PATCH': {
      if (r.name === undefined)
        throw methodNotAllowed('the server does not allow this method on the requested resource');
      const type = patchTypeOf(contentType);
      if (!type) throw unsupportedMediaType(contentType);
      return patch(ctx, target, type, parseJsonBody(raw, contentType, true), query, raw.toString('utf8'));
    }
    case 'DELETE': {
      const body = parseJsonBody(raw, contentType, false);
      return r.name === undefined
        ? removeCollection(ctx, target, body, query)
        : remove(ctx, target, body, query);
    }
    default:
      throw methodNotAllowed(`the server does not allow the method ${method}`);
  }
}

/** JSON of stored (frozen, so never changing) objects, serialized once however often they are listed. */
const frozenJson = new WeakMap<object, string>();

function itemJson(item: unknown): string {
  // (An undefined or function item is `null` in a JSON array.)
  if (typeof item !== 'object' || item === null || !Object.isFrozen(item)) {
    const text: string | undefined = JSON.stringify(item);
    return text ?? 'null';
  }
  let text = frozenJson.get(item);
  if (text === undefined) {
    text = JSON.stringify(item);
    frozenJson.set(item, text);
  }
  return text;
}

/** JSON.stringify(body), with the items of a list (its last key) taken from the per-object cache. */
function toJson(body: unknown): string {
  if (!isRecord(body) || !Array.isArray(body.items) || Object.keys(body).at(-1) !== 'items')
    return JSON.stringify(body);
  const { items, ...rest } = body;
  const head = JSON.stringify({ ...rest, items: [] }); // ends in `"items":[]}`
  return `${head.slice(0, -2)}${items.map(itemJson).join(',')}]}`;
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string | string[]> = {},
): void {
  const text = toJson(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    ...headers,
  });
  res.end(text);
}

export interface RunningServer {
  server: Server;
  url: string;
  /** TCP connections accepted and HTTP requests received since start (connection reuse is visible). */
  readonly counts: { connections: number; requests: number };
  close(): Promise<void>;
}

/** PEM key and certificate the simulator serves (an API server over TLS, as in a real cluster). */
export interface ServerTls {
  key: string;
  cert: string;
}

export async function startServer(
  ctx: SimContext,
  host: string,
  port: number,
  tls?: ServerTls,
): Promise<RunningServer> {
  let address = `${host}:${port}`;
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    void (async () => {
      try {
        const url = new URL(req.url ?? '/', 'http://simulator.local');
        const out = await dispatch(ctx, req, url, address);
        if ('stream' in out) out.stream(res, req);
        else if ('bytes' in out) {
          res.writeHead(out.status, { 'Content-Type': out.contentType });
          res.end(out.bytes);
        } else if ('text' in out) {
          res.writeHead(out.status, { 'Content-Type': 'text/plain' });
          res.end(out.text);
        } else send(res, out.status, out.body, out.headers);
      } catch (err) {
        const e =
          err instanceof KubeError
            ? err
            : err instanceof BodyTooLarge
              ? tooLarge(MAX_BODY_BYTES)
              : internal(errorMessage(err));
        if (res.headersSent) {
          res.destroy();
          return;
        }
        // Too-large bodies are cut off mid-stream: answer, then close so the rest is not read.
        send(res, e.code, e.toStatus(), err instanceof BodyTooLarge ? { Connection: 'close' } : {});
      }
    })();
  };
  const server: Server = tls
    ? createTlsServer({ key: tls.key, cert: tls.cert }, handler)
    : createServer(handler);
  const counts = { connections: 0, requests: 0 };
  server.on('connection', () => counts.connections++);
  server.on('request', () => counts.requests++);
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const info = server.address() as AddressInfo; // listen() on a TCP port always yields an AddressInfo
  const hostPart = host.includes(':') ? `[${host}]` : host;
  address = `${hostPart}:${info.port}`;
  return {
    server,
    url: `${tls ? 'https' : 'http'}://${address}`,
    counts,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
