/**
 * The HTTP transport of the pooled Kubernetes API clients (client-node's `HttpLibrary`, see
 * ./kube-pool.ts): one node:http(s) request on the pooled keep-alive agent, and one retry of an
 * idempotent request whose reused connection turned out to be closed.
 *
 * A keep-alive connection can be closed by the server while it sits idle in the pool; a request written
 * into it as the server's FIN or RST is still on its way fails with ECONNRESET or EPIPE before any
 * response ("socket hang up"). Node documents the case and the remedy: retry when `request.reusedSocket`
 * (https://nodejs.org/api/http.html#requestreusedsocket); it happens most when the event loop is busy
 * and has not yet read the close (https://github.com/nodejs/node/issues/47130). The pool closes idle
 * connections before the API server does (./kube-pool.ts), which makes the race rare, not impossible.
 *
 * Only requests that cannot do anything twice are retried: reads (GET, HEAD, OPTIONS), writes with
 * `dryRun` (which persist nothing: https://kubernetes.io/docs/reference/using-api/api-concepts/#dry-run),
 * deletes with `preconditions` and updates or patches carrying `metadata.resourceVersion` (a second
 * delivery answers Conflict or NotFound instead of acting again:
 * https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions). A create without
 * dryRun is never resent here: its caller decides (the queue dispatcher adopts its own Job on
 * AlreadyExists). The retry uses a new connection, and the pool's other idle connections to that
 * server, older than the one found closed, are closed too.
 *
 * Compared with client-node's default transport (node-fetch 2) this reads the same answers: status,
 * headers (lower-case names, repeated values joined with ", ") and the body, gzip or deflate decoded.
 * It follows no redirects (the API server sends none for API calls). Bodies other than text (FormData)
 * go through client-node's default transport unchanged.
 */
import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';

import {
  IsomorphicFetchHttpLibrary,
  ResponseContext,
  wrapHttpLibrary,
  type HttpLibrary,
  type RequestContext,
} from '@kubernetes/client-node';

type Agent = http.Agent | https.Agent;

/** Errors of a write into a connection the peer had closed. */
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function parsedBody(body: string | undefined): unknown {
  if (body === undefined || body === '') return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined; // not JSON (a YAML apply body): no precondition this transport can read
  }
}

/** Whether sending the request a second time cannot change more than sending it once. */
function idempotentKubeRequest(method: string, url: URL, body: string | undefined): boolean {
  if (SAFE_METHODS.has(method)) return true;
  if (url.searchParams.has('dryRun')) return true;
  const parsed = parsedBody(body);
  if (!isRecord(parsed)) return false;
  if (method === 'DELETE') {
    const pre = parsed.preconditions;
    return isRecord(pre) && (typeof pre.uid === 'string' || typeof pre.resourceVersion === 'string');
  }
  if (method === 'PUT' || method === 'PATCH') {
    const rv = isRecord(parsed.metadata) ? parsed.metadata.resourceVersion : undefined;
    return typeof rv === 'string' && rv !== '';
  }
  return false;
}

/** A connection reset or a write into a closed connection (no answer from the server came back). */
export function isConnectionReset(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && RESET_CODES.has(code);
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Promise<Buffer>;
}

/** Thrown for a request that failed before any response; `reused` tells whether its connection was pooled. */
class SendFailure extends Error {
  constructor(
    readonly error: Error & { code?: string },
    readonly reused: boolean,
  ) {
    super(error.message);
  }
}

function decoded(res: http.IncomingMessage): NodeJS.ReadableStream {
  const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return res.pipe(zlib.createGunzip());
  if (encoding === 'deflate') return res.pipe(zlib.createInflate());
  return res;
}

function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function headersOf(res: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function sendOnce(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  agent: Agent | undefined,
  signal: AbortSignal | undefined,
): Promise<Answer> {
  const request = url.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, ...(agent ? { agent } : {}), ...(signal ? { signal } : {}) });
    req.on('response', (res) => {
      const stream = decoded(res);
      const bytes = readAll(stream);
      // A body nobody reads (a status-only caller) must not become an unhandled rejection.
      bytes.catch(() => undefined);
      if (stream !== res) res.on('error', (err) => stream.emit('error', err));
      resolve({ status: res.statusCode ?? 0, headers: headersOf(res), body: bytes });
    });
    req.on('error', (err) => reject(new SendFailure(err, req.reusedSocket)));
    req.end(body);
  });
}

/** A one-request agent with the pooled agent's options (same CA, client certificate, server name). */
function freshAgent(agent: Agent | undefined): Agent | undefined {
  if (!agent) return undefined;
  return agent instanceof https.Agent
    ? new https.Agent({ ...agent.options, keepAlive: false })
    : new http.Agent({ keepAlive: false });
}

/**
 * Closes the agent's idle connections: a pooled agent serves one API server and identity, and with LIFO
 * reuse every idle connection left has idled longer than the one found closed.
 */
function closeIdle(agent: Agent | undefined): void {
  for (const sockets of Object.values(agent?.freeSockets ?? {})) {
    for (const socket of sockets ?? []) socket.destroy();
  }
}

const fallback = new IsomorphicFetchHttpLibrary();

async function send(context: RequestContext): Promise<ResponseContext> {
  const raw = context.getBody();
  if (raw !== undefined && typeof raw !== 'string') {
    return fallback.send(context).toPromise();
  }
  const url = new URL(context.getUrl());
  const method = context.getHttpMethod().toString();
  const headers: Record<string, string> = { 'accept-encoding': 'gzip, deflate', ...context.getHeaders() };
  if (raw !== undefined) headers['content-length'] = String(Buffer.byteLength(raw));
  const agent = context.getAgent();
  const signal = context.getSignal();
  let answer: Answer;
  try {
    answer = await sendOnce(url, method, headers, raw, agent, signal);
  } catch (error) {
    if (!(error instanceof SendFailure)) throw error;
    const retry =
      error.reused && RESET_CODES.has(error.error.code ?? '') && idempotentKubeRequest(method, url, raw);
    if (!retry) throw error.error;
    closeIdle(agent);
    try {
      answer = await sendOnce(url, method, headers, raw, freshAgent(agent), signal);
    } catch (again) {
      throw again instanceof SendFailure ? again.error : again;
    }
  }
  const { body } = answer;
  return new ResponseContext(answer.status, answer.headers, {
    binary: () => body,
    text: async () => (await body).toString('utf8'),
  });
}

/** The transport every pooled API client sends with (`createConfiguration({ httpApi })`). */
export const kubeHttpLibrary: HttpLibrary = wrapHttpLibrary({ send });
