/**
 * The region's internal ALB, locally: an HTTPS listener (certificate for the backend host name from the
 * internal CA) that picks the target service by longest prefix on whole segments (contracts/routing.ts, the
 * same table the regional stack turns into listener rules) and forwards the request unchanged — method,
 * request target byte for byte (the envelope signs it), headers, body — adding the X-Forwarded-* headers
 * an ALB adds. The body is read whole before it is sent (readBody says why); the answer streams back as
 * the target writes it. A service with no target answers 503, a
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
import { pipeline } from 'node:stream';
import { connectionListed, isHopByHop } from '../contracts/http/hop-by-hop.js';
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
  /** Target idle timeout (the ALB attribute idle_timeout.timeout_seconds). */
  idleTimeoutMs?: number;
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
 * The whole request body, read before anything is sent to the target. A target may answer before it has
 * read the body (a 413 decided from Content-Length) and close the connection; while the router was still
 * streaming the upload, its next write failed (EPIPE) before the answer had been read, and the caller got
 * a 502 instead of the target's 413. With the body in hand it goes out in one write, whose failure is
 * reported only after the answer that is already on the socket has been read. The edge hands the router
 * complete bodies anyway (API Gateway buffers requests), so nothing streams less than before.
 */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => done(Buffer.concat(chunks)));
    req.once('error', fail);
  });
}

export async function startAlbRouter(opts: AlbRouterOptions): Promise<AlbRouter> {
  const routes = opts.routes ?? ALB_ROUTES;
  const idleTimeoutMs = opts.idleTimeoutMs ?? 300_000;
  const httpAgent = new HttpAgent({ keepAlive: true });
  const httpsAgent = new HttpsAgent({ keepAlive: true, ...(opts.targetCa ? { ca: opts.targetCa } : {}) });
  let port = 0;

  /** Sends the buffered request to the target and streams its answer back to the caller. */
  function forward(req: IncomingMessage, res: ServerResponse, base: string, body: Buffer): void {
    const url = new URL(base);
    const secure = url.protocol === 'https:';
    const headers = forwardHeaders(req, port);
    // A chunked upload goes on with its length now that it is known; a given Content-Length is kept.
    if (headers['content-length'] === undefined && body.length > 0) {
      headers['content-length'] = String(body.length);
    }
    let upstream: ClientRequest;
    try {
      upstream = (secure ? httpsRequest : httpRequest)({
        host: url.hostname,
        port: url.port || (secure ? 443 : 80),
        method: req.method,
        // The request target exactly as received.
        path: req.url ?? '/',
        headers,
        agent: secure ? httpsAgent : httpAgent,
        ...(secure ? { servername: url.hostname } : {}),
      });
    } catch {
      // A request Node refuses to send (malformed header) never reaches a target.
      return albError(res, 502);
    }
    let answered = false;
    upstream.setTimeout(idleTimeoutMs, () => {
      upstream.destroy();
      albError(res, 504);
    });
    upstream.on('error', () => {
      // After the answer's head, a failure of the request side (the target answered early, e.g. 413,
      // and closed) is not the caller's problem: the answer, if complete, goes out as it is.
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
    // The caller going away aborts the upstream exchange.
    res.once('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    // One write of the whole body: see readBody.
    upstream.end(body);
  }

  const server = createServer(
    { key: opts.certificate.key, cert: opts.certificate.cert, minVersion: 'TLSv1.2' },
    (req, res) => {
      const base = opts.targets[resolve(req.url ?? '/', routes).service];
      if (base === undefined) {
        req.resume();
        return albError(res, 503);
      }
      readBody(req).then(
        (body) => forward(req, res, base, body),
        () => req.destroy(),
      );
    },
  );
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
