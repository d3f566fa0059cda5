/**
 * The region's internal ALB, locally: an HTTPS listener (certificate for the backend host name from the
 * internal CA) that picks the target service by longest prefix on whole segments (contracts/routing.ts, the
 * same table the regional stack turns into listener rules) and forwards the request unchanged — method,
 * request target byte for byte (the envelope signs it), headers, body — adding the X-Forwarded-* headers
 * an ALB adds. It routes on the request head and then streams the body to the target as it arrives
 * (never buffering it: an ALB has no body size limit for HTTP targets, the services refuse more than 1 MiB
 * themselves); the answer streams back as the target writes it. A service with no target answers 503, a
 * target that cannot be reached 502, one that stays silent past the idle timeout 504 — with the ALB's
 * own HTML bodies.
 */
import {
  request as httpRequest,
  Agent as HttpAgent,
  type ClientRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { createServer, request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import { pipeline, type Duplex } from 'node:stream';
import { connectionListed, isHopByHop } from '../contracts/http/hop-by-hop.js';
import {
  ALB_LISTENER_DEADLINES,
  applyListenerDeadlines,
  type ListenerDeadlines,
} from '../contracts/http/listener-deadlines.js';
import { lingeringClose } from '../contracts/http/lingering-close.js';
import { ALB_ROUTES, resolve, type AlbRoute, type AlbServiceName } from '../contracts/routing.js';
import type { IssuedCertificate } from './tls.js';

export interface AlbRouterOptions {
  /** Listener certificate (for the backend host name). */
  certificate: IssuedCertificate;
  /** Base URL of each service's target (`http://127.0.0.1:…` or `https://…`); absent = no healthy target. */
  targets: Partial<Record<AlbServiceName, string>>;
  /** Trust anchor for HTTPS targets (the internal CA). */
  targetCa?: string;
  routes?: readonly AlbRoute[];
  /**
   * The ALB attribute idle_timeout.timeout_seconds: target silence (504), client connection idle and
   * keep-alive, and the router's backstop request deadline. Default 300 s (the spec's).
   */
  idleTimeoutMs?: number;
  /** Listener deadlines beyond the idle timeout (tests use short ones); ALB_LISTENER_DEADLINES by default. */
  deadlines?: Partial<ListenerDeadlines>;
  host?: string;
  port?: number;
}

export interface AlbRouter {
  readonly port: number;
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  close(): Promise<void>;
}

const STATUS_TEXT: Record<number, string> = {
  502: 'Bad Gateway',
  503: 'Service Temporarily Unavailable',
  504: 'Gateway Time-out',
};

/** Connections whose current request was answered (by the target) before its upload ended. */
const answeredEarly = new WeakSet<Duplex>();

/** The rest of a request body nobody will read: dropped as it arrives (bounded by the request deadline). */
function discard(req: IncomingMessage): void {
  req.resume();
}

function albError(res: ServerResponse, status: 502 | 503 | 504): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = `${status} ${STATUS_TEXT[status] ?? ''}`;
  const body = `<html>\r\n<head><title>${text}</title></head>\r\n<body>\r\n<center><h1>${text}</h1></center>\r\n</body>\r\n</html>\r\n`;
  res.writeHead(status, {
    server: 'awselb/2.0',
    'content-type': 'text/html',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** Request headers to pass on: hop-by-hop ones dropped, X-Forwarded-* added as an ALB does. */
function forwardHeaders(req: IncomingMessage, listenerPort: number): Record<string, string | string[]> {
  const listed = connectionListed(req.headersDistinct.connection);
  // From the raw headers into a Map: Node's parsed header objects cannot hold a header named
  // `__proto__`, which is a header like any other on the wire.
  const grouped = new Map<string, string[]>();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] ?? '').toLowerCase();
    if (isHopByHop(name, listed)) continue;
    if (name === 'x-forwarded-for' || name === 'x-forwarded-proto' || name === 'x-forwarded-port') continue;
    grouped.set(name, [...(grouped.get(name) ?? []), req.rawHeaders[i + 1] ?? '']);
  }
  // Single values as strings: Node insists on that for Host.
  const out: Record<string, string | string[]> = Object.fromEntries(
    [...grouped].map(([name, values]) => [name, values.length === 1 ? (values[0] ?? '') : values]),
  );
  const client = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  const previous = req.headersDistinct['x-forwarded-for']?.join(', ');
  out['x-forwarded-for'] = previous ? `${previous}, ${client}` : client;
  out['x-forwarded-proto'] = 'https';
  out['x-forwarded-port'] = String(listenerPort);
  return out;
}

/**
 * The ALB's own answer to a request its listener gave up on: 408 when the client did not send its head or
 * body in time, 400 for bytes that are not HTTP. The connection closes after it.
 * https://docs.aws.amazon.com/elasticloadbalancing/latest/application/load-balancer-troubleshooting.html#http-408-issues
 */
function albClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset connection has no one left to answer; one whose request was already answered gets no second one.
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable || answeredEarly.has(socket)) {
    socket.destroy();
    return;
  }
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' || error.code === 'ERR_HTTP_HEADERS_TIMEOUT';
  const text = timedOut ? '408 Request Time-out' : '400 Bad Request';
  const body = `<html>\r\n<head><title>${text}</title></head>\r\n<body>\r\n<center><h1>${text}</h1></center>\r\n</body>\r\n</html>\r\n`;
  socket.end(
    `HTTP/1.1 ${text}\r\nServer: awselb/2.0\r\nContent-Type: text/html\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  // What the client still sends is read and dropped for a moment, so it reads the answer, not a reset.
  lingeringClose(socket);
}

export async function startAlbRouter(opts: AlbRouterOptions): Promise<AlbRouter> {
  const routes = opts.routes ?? ALB_ROUTES;
  const deadlines: ListenerDeadlines = {
    ...ALB_LISTENER_DEADLINES,
    ...(opts.idleTimeoutMs !== undefined
      ? { idleMs: opts.idleTimeoutMs, keepAliveMs: opts.idleTimeoutMs, requestMs: opts.idleTimeoutMs }
      : {}),
    ...opts.deadlines,
  };
  const idleTimeoutMs = deadlines.idleMs;
  // Idle target connections close after the idle timeout too: the router closes them first, as the
  // services keep theirs longer (SERVICE_LISTENER_DEADLINES), so none is reused while the target closes it.
  const agentOptions = { keepAlive: true, timeout: idleTimeoutMs };
  const httpAgent = new HttpAgent(agentOptions);
  const httpsAgent = new HttpsAgent({ ...agentOptions, ...(opts.targetCa ? { ca: opts.targetCa } : {}) });
  let port = 0;

  /**
   * Sends the request to the target as it arrives — head first, then the body piped chunk by chunk (so
   * nothing is held beyond what the target has not read yet) — and streams its answer back.
   */
  function forward(req: IncomingMessage, res: ServerResponse, base: string): void {
    const url = new URL(base);
    const secure = url.protocol === 'https:';
    let upstream: ClientRequest;
    try {
      upstream = (secure ? httpsRequest : httpRequest)({
        host: url.hostname,
        port: url.port || (secure ? 443 : 80),
        method: req.method,
        // The request target exactly as received.
        path: req.url ?? '/',
        // Content-Length passes as sent; a chunked upload goes on chunked (Node frames what is written).
        headers: forwardHeaders(req, port),
        agent: secure ? httpsAgent : httpAgent,
        ...(secure ? { servername: url.hostname } : {}),
      });
    } catch {
      // A request Node refuses to send (malformed header) never reaches a target.
      discard(req);
      return albError(res, 502);
    }
    let answered = false;
    upstream.setTimeout(idleTimeoutMs, () => {
      upstream.destroy();
      albError(res, 504);
    });
    upstream.on('error', () => {
      // The rest of the upload has nowhere to go; it is read and dropped so the caller reads the answer.
      req.unpipe(upstream);
      discard(req);
      // After the answer's head, a failure of the request side (the target answered early, e.g. 413 or
      // 408, and closed) is not the caller's problem: the answer, if complete, goes out as it is.
      if (!answered) albError(res, 502);
    });
    upstream.on('response', (answer) => {
      answered = true;
      const listed = connectionListed(answer.headersDistinct.connection);
      const out: string[] = [];
      for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) {
        const name = answer.rawHeaders[i] ?? '';
        if (isHopByHop(name, listed)) continue;
        out.push(name, answer.rawHeaders[i + 1] ?? '');
      }
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
      // Streaming targets (inference): status and headers now, each body chunk as it comes.
      res.flushHeaders();
      pipeline(answer, res, () => undefined);
    });
    // The caller going away (or its upload breaking off) aborts the upstream exchange.
    res.once('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.once('close', () => {
      if (!req.complete) upstream.destroy();
    });
    // A target that answered and closed before the upload ended (a 413, a 408) reads no more of it: the
    // rest is dropped as it arrives. The caller's connection stays usable — closing it now, with its upload
    // unread, would reset it and could lose the answer, or race a next request the caller sends on it —
    // until the upload ends or the listener's request deadline closes it (albClientError).
    upstream.once('close', () => {
      req.unpipe(upstream);
      if (!req.complete) discard(req);
    });
    res.once('finish', () => {
      if (req.complete) return;
      answeredEarly.add(req.socket);
      req.once('end', () => answeredEarly.delete(req.socket));
    });
    req.pipe(upstream);
  }

  const server = createServer(
    { key: opts.certificate.key, cert: opts.certificate.cert, minVersion: 'TLSv1.2' },
    (req, res) => {
      // Routing needs the request target only: the decision is made on the head, before any body byte.
      const base = opts.targets[resolve(req.url ?? '/', routes).service];
      if (base === undefined) {
        discard(req);
        return albError(res, 503);
      }
      forward(req, res, base);
    },
  );
  applyListenerDeadlines(server, deadlines);
  server.on('clientError', albClientError);
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => done());
  });
  port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `https://${opts.host ?? '127.0.0.1'}:${port}`,
    close: () =>
      new Promise<void>((done) => {
        httpAgent.destroy();
        httpsAgent.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
