/**
 * HTTPS client of the model servers. Trusts only the cluster internal CA (the `ca` option replaces the
 * public roots), keeps connections alive between requests, and turns every way a request can fail
 * before the response headers arrive into a typed UpstreamError the route maps to 502 or 504.
 */
import { PlatformError } from '../../../contracts/runtime/errors.js';
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { UpstreamTarget } from './endpoint.js';

export type UpstreamFailure =
  'refused' | 'reset' | 'tls' | 'dns' | 'unreachable' | 'timeout' | 'client_closed';

/** Caller-safe wording per failure (the host and the raw error go to the log only). */
export const FAILURE_WORDING: Record<UpstreamFailure, string> = {
  refused: 'connection refused',
  reset: 'connection reset',
  tls: 'TLS verification failed',
  dns: 'name resolution failed',
  unreachable: 'connection failed',
  timeout: 'no response in time',
  client_closed: 'client closed the request',
};

export class UpstreamError extends PlatformError {
  override readonly name = 'UpstreamError';
  constructor(
    readonly failure: UpstreamFailure,
    message: string,
    override readonly code: string | undefined = undefined,
    /** A pooled connection was closed by the server before it read this request: safe to send again. */
    readonly staleConnection = false,
  ) {
    super(message);
  }
}

const TLS_CODE = /CERT|SELF_SIGNED|UNABLE_TO_|ERR_TLS|ERR_SSL|EPROTO/;
const STALE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

export function classify(error: NodeJS.ErrnoException, reusedSocket: boolean): UpstreamError {
  const code = error.code;
  let failure: UpstreamFailure = 'unreachable';
  if (code === 'ECONNREFUSED') failure = 'refused';
  else if (code === 'ECONNRESET' || code === 'EPIPE') failure = 'reset';
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') failure = 'dns';
  else if (code !== undefined && TLS_CODE.test(code)) failure = 'tls';
  return new UpstreamError(
    failure,
    error.message,
    code,
    reusedSocket && code !== undefined && STALE_CODES.has(code),
  );
}

export interface UpstreamRequest {
  target: UpstreamTarget;
  method: string;
  /** Raw path plus raw query, exactly as forwarded. */
  path: string;
  headers: OutgoingHttpHeaders;
  body: Buffer | undefined;
  /** Aborts the attempt when the caller goes away. */
  signal: AbortSignal;
}

export interface UpstreamExchange {
  request: ClientRequest;
  response: IncomingMessage;
}

/** The address a connection to a target's `host:port` goes to. */
export interface UpstreamAddress {
  host: string;
  port: number;
}

/**
 * Resolves a target to the address to connect to; rejects with an errno-style error (ENOTFOUND,
 * ECONNREFUSED) as DNS or the connection would. Twin-only seam (docs/local-platform.md): in a cluster
 * CoreDNS and kube-proxy do this and the option is absent.
 */
export type UpstreamResolver = (host: string, port: number) => Promise<UpstreamAddress>;

export interface UpstreamClientOptions {
  /** PEM bundle of the internal CA. */
  ca: string | Buffer;
  /** Deadline from the first attempt to the response headers. */
  headersTimeoutMs: number;
  /** Only the local platform sets it; the certificate is still verified for the target's host. */
  resolve?: UpstreamResolver;
}

export class UpstreamClient {
  private readonly agent: Agent;
  private readonly headersTimeoutMs: number;
  private readonly resolve: UpstreamResolver | undefined;

  constructor(opts: UpstreamClientOptions) {
    if (String(opts.ca).trim() === '') throw new Error('internal CA bundle is empty');
    this.headersTimeoutMs = opts.headersTimeoutMs;
    this.resolve = opts.resolve;
    this.agent = new Agent({ keepAlive: true, ca: opts.ca, rejectUnauthorized: true, scheduling: 'lifo' });
  }

  /**
   * Sends the request and resolves once the response headers are in; the body is left unread for the
   * caller to stream. A pooled connection the server had already closed is retried once on a fresh one
   * (the body is in memory, and the server never saw the first attempt).
   */
  async send(r: UpstreamRequest): Promise<UpstreamExchange> {
    const deadline = Date.now() + this.headersTimeoutMs;
    try {
      return await this.attempt(r, this.headersTimeoutMs);
    } catch (error) {
      if (!(error instanceof UpstreamError) || !error.staleConnection) throw error;
      return this.attempt(r, Math.max(1, deadline - Date.now()));
    }
  }

  close(): void {
    this.agent.destroy();
  }

  private async attempt(r: UpstreamRequest, timeoutMs: number): Promise<UpstreamExchange> {
    let address: UpstreamAddress = { host: r.target.host, port: r.target.port };
    if (this.resolve) {
      try {
        address = await this.resolve(r.target.host, r.target.port);
      } catch (error) {
        throw classify(error as NodeJS.ErrnoException, false);
      }
    }
    const moved = address.host !== r.target.host || address.port !== r.target.port;
    return new Promise<UpstreamExchange>((resolve, reject) => {
      if (r.signal.aborted) {
        reject(new UpstreamError('client_closed', 'client closed the request before forwarding'));
        return;
      }
      const req = httpsRequest({
        host: address.host,
        port: address.port,
        method: r.method,
        path: r.path,
        // A resolved address keeps the Host header the target's service would have received.
        headers: moved ? { ...r.headers, host: `${r.target.host}:${r.target.port}` } : r.headers,
        agent: this.agent,
        // Verify the service name in the certificate; IP literals are checked against IP SANs instead.
        ...(isIP(r.target.host) === 0 ? { servername: r.target.host } : {}),
      });
      // Chunks and the first SSE event leave as soon as written (cached per socket: free on a reused one).
      req.setNoDelay(true);
      let settled = false;
      const settle = () => {
        settled = true;
        clearTimeout(timer);
        r.signal.removeEventListener('abort', onAbort);
      };
      const fail = (error: UpstreamError) => {
        if (settled) return;
        settle();
        req.destroy();
        reject(error);
      };
      const timer = setTimeout(
        () => fail(new UpstreamError('timeout', `no response headers within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onAbort = () => fail(new UpstreamError('client_closed', 'client closed the request'));
      r.signal.addEventListener('abort', onAbort, { once: true });
      // Stays attached for the life of the request, so a failure while streaming is never unhandled.
      req.on('error', (error: NodeJS.ErrnoException) => fail(classify(error, req.reusedSocket)));
      req.on('response', (response) => {
        if (settled) {
          response.resume();
          return;
        }
        settle();
        resolve({ request: req, response });
      });
      req.end(r.body);
    });
  }
}
