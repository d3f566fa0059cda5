/**
 * HTTPS client of the model servers, on undici (https://undici.nodejs.org/#/docs/api/Client and
 * .../api/Dispatcher, "dispatch"): kept-alive connections that trust only the cluster internal CA (the `ca`
 * option replaces the public roots), one request at a time per connection, the warmest idle connection
 * first. Every way a request can fail before the response headers arrive becomes a typed UpstreamError the
 * route maps to 502 or 504; after them the body goes to the relay's sink chunk by chunk, with
 * pause/resume for backpressure and abort for a caller that went away.
 */
import { PlatformError } from '../../../contracts/runtime/errors.js';
import type { IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { buildConnector, Client, type Dispatcher } from 'undici';
import type { UpstreamTarget } from './endpoint.js';
import type { UpstreamHeaders } from './headers.js';

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
    /** A pooled connection was closed by the server before it answered this request: safe to send again. */
    readonly staleConnection = false,
  ) {
    super(message);
  }
}

const TLS_CODE = /CERT|SELF_SIGNED|UNABLE_TO_|ERR_TLS|ERR_SSL|EPROTO/;
/**
 * What a connection the server closed looks like: a reset or broken pipe from the kernel, or undici's
 * SocketError ("other side closed") when the server's FIN arrives before any response byte.
 */
const STALE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET']);

export function classify(error: NodeJS.ErrnoException, reusedSocket: boolean): UpstreamError {
  const code = error.code;
  let failure: UpstreamFailure = 'unreachable';
  if (code === 'ECONNREFUSED') failure = 'refused';
  else if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET') failure = 'reset';
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
  headers: UpstreamHeaders;
  body: Buffer | undefined;
}

/** Receives the model server's body once its headers are in (relay.ts). */
export interface UpstreamBodySink {
  onData(chunk: Buffer): void;
  onEnd(): void;
  /** The stream broke after the headers (reset, a premature close, or an abort with a reason). */
  onError(error: Error): void;
}

/** The model server's answer: status and headers, and control over its body. */
export interface UpstreamExchange {
  readonly statusCode: number;
  /** Name, value, name, value… as the model server sent them (latin1). */
  readonly rawHeaders: readonly string[];
  readonly headers: IncomingHttpHeaders;
  /** Stops reading the model server's socket (backpressure) until resume(). */
  pause(): void;
  resume(): void;
  /** Closes the model server's connection (the sink then hears nothing more). */
  abort(reason?: Error): void;
}

export interface UpstreamHandler {
  /** Called from the response parser as the headers arrive; returns where the body goes. */
  onResponse(exchange: UpstreamExchange): UpstreamBodySink;
  /** No answer: every retry spent, the deadline passed or the call was aborted. */
  onFailure(error: UpstreamError): void;
}

/** A request in flight; abort() is for a caller that went away. */
export interface UpstreamCall {
  abort(): void;
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

/**
 * Idle connections are closed after this long unless the server's `Keep-Alive: timeout=N` says less
 * (undici then closes them 2 s before N): shorter than uvicorn's 5 s default, the server most model
 * servers run, so the proxy normally closes an idle connection before the server would.
 * https://github.com/nodejs/undici/blob/main/docs/docs/api/Client.md (keepAliveTimeout)
 */
const KEEP_ALIVE_MS = 4_000;
/** Idle connections kept per model server address; a burst beyond this closes the surplus as it ends. */
const MAX_IDLE_PER_ORIGIN = 256;
/** Addresses remembered (each with its TLS session cache); the oldest is closed beyond this. */
const MAX_ORIGINS = 1_024;

/** One connection (an undici Client runs one at a time here) and whether it already carried an answer. */
interface Slot {
  readonly client: Client;
  /** The current connection carried a complete answer: a failure on it may be a stale keep-alive. */
  used: boolean;
}

/** The connections to one address: idle ones on a stack (LIFO, so the warmest is reused). */
class Origin {
  private readonly idle: Slot[] = [];
  private readonly all = new Set<Slot>();

  constructor(
    private readonly url: string,
    private readonly connector: buildConnector.connector,
    private readonly connectTimeoutMs: number,
  ) {}

  acquire(): Slot {
    const slot = this.idle.pop();
    if (slot !== undefined) return slot;
    const client = new Client(this.url, {
      connect: this.connector,
      connectTimeout: this.connectTimeoutMs,
      // The proxy keeps its own deadlines: headers (UpstreamClient) and stream idle (relay.ts).
      headersTimeout: 0,
      bodyTimeout: 0,
      keepAliveTimeout: KEEP_ALIVE_MS,
      pipelining: 1,
    });
    const fresh: Slot = { client, used: false };
    // A new connection has carried nothing yet; a lost one takes its history with it.
    client.on('connect', () => (fresh.used = false));
    client.on('disconnect', () => (fresh.used = false));
    this.all.add(fresh);
    return fresh;
  }

  release(slot: Slot): void {
    if (slot.client.destroyed || slot.client.closed) {
      this.all.delete(slot);
    } else if (this.idle.length >= MAX_IDLE_PER_ORIGIN) {
      this.all.delete(slot);
      void slot.client.close();
    } else {
      this.idle.push(slot);
    }
  }

  async close(): Promise<void> {
    const slots = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(slots.map((s) => s.client.destroy()));
  }
}

export class UpstreamClient {
  private readonly ca: string | Buffer;
  private readonly headersTimeoutMs: number;
  private readonly resolve: UpstreamResolver | undefined;
  private readonly origins = new Map<string, Origin>();

  constructor(opts: UpstreamClientOptions) {
    if (String(opts.ca).trim() === '') throw new Error('internal CA bundle is empty');
    this.ca = opts.ca;
    this.headersTimeoutMs = opts.headersTimeoutMs;
    this.resolve = opts.resolve;
  }

  /**
   * Sends the request; `handler` hears of the response headers (and then the body) or of the failure.
   * A pooled connection the server had already closed is retried once on a fresh one (the body is in
   * memory, and the server never answered the first attempt).
   */
  send(request: UpstreamRequest, handler: UpstreamHandler): UpstreamCall {
    return new Call(this, request, handler, this.headersTimeoutMs);
  }

  /** The connections to `address`, verified for the target's name. */
  origin(address: UpstreamAddress, target: UpstreamTarget): Origin {
    const key = `${address.host}:${address.port}/${target.host}`;
    let origin = this.origins.get(key);
    if (origin === undefined) {
      if (this.origins.size >= MAX_ORIGINS) {
        const [oldestKey, oldest] = this.origins.entries().next().value!;
        this.origins.delete(oldestKey);
        void oldest.close();
      }
      const connector = buildConnector({
        ca: this.ca,
        rejectUnauthorized: true,
        // Verify the service name in the certificate; IP literals are checked against IP SANs instead.
        ...(isIP(target.host) === 0 ? { servername: target.host } : {}),
        timeout: this.headersTimeoutMs,
      });
      origin = new Origin(`https://${address.host}:${address.port}`, connector, this.headersTimeoutMs);
      this.origins.set(key, origin);
    }
    return origin;
  }

  /** Where `target` connects: itself, or what the twin's resolver says. */
  resolveAddress(target: UpstreamTarget): UpstreamAddress | Promise<UpstreamAddress> {
    return this.resolve ? this.resolve(target.host, target.port) : target;
  }

  async close(): Promise<void> {
    const origins = [...this.origins.values()];
    this.origins.clear();
    await Promise.all(origins.map((o) => o.close()));
  }
}

/** One proxied request: up to two attempts under one headers deadline. */
class Call implements UpstreamCall {
  private readonly timer: NodeJS.Timeout;
  private attempt: Attempt | undefined = undefined;
  private settled = false;
  retried = false;

  constructor(
    private readonly upstream: UpstreamClient,
    readonly request: UpstreamRequest,
    readonly handler: UpstreamHandler,
    timeoutMs: number,
  ) {
    this.timer = setTimeout(
      () => this.fail(new UpstreamError('timeout', `no response headers within ${timeoutMs} ms`)),
      timeoutMs,
    );
    this.start();
  }

  private start(): void {
    const { target } = this.request;
    let address: UpstreamAddress | Promise<UpstreamAddress>;
    try {
      address = this.upstream.resolveAddress(target);
    } catch (error) {
      this.fail(classify(error as NodeJS.ErrnoException, false));
      return;
    }
    if (!(address instanceof Promise)) {
      this.dispatch(address);
      return;
    }
    address.then(
      (resolved) => this.dispatch(resolved),
      (error: unknown) => this.fail(classify(error as NodeJS.ErrnoException, false)),
    );
  }

  private dispatch(address: UpstreamAddress): void {
    if (this.settled) return;
    const { request } = this;
    const moved = address.host !== request.target.host || address.port !== request.target.port;
    const origin = this.upstream.origin(address, request.target);
    this.attempt = new Attempt(this, origin, origin.acquire());
    this.attempt.slot.client.dispatch(
      {
        method: request.method,
        path: request.path,
        // A resolved address keeps the Host header the target's service would have received.
        headers: moved
          ? { ...request.headers, host: `${request.target.host}:${request.target.port}` }
          : request.headers,
        body: request.body ?? null,
      },
      this.attempt,
    );
  }

  /** The response headers are in: no deadline from here, the handler takes the body. */
  responded(exchange: UpstreamExchange): UpstreamBodySink | undefined {
    if (this.settled) return undefined;
    this.settled = true;
    clearTimeout(this.timer);
    return this.handler.onResponse(exchange);
  }

  /** The attempt got no answer: retried once when its pooled connection had gone stale. */
  attemptFailed(error: UpstreamError): void {
    if (this.settled) return;
    if (error.staleConnection && !this.retried) {
      this.retried = true;
      this.start();
      return;
    }
    this.fail(error);
  }

  private fail(error: UpstreamError): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.attempt?.abort(error);
    this.handler.onFailure(error);
  }

  abort(): void {
    if (!this.settled) {
      this.fail(new UpstreamError('client_closed', 'client closed the request'));
      return;
    }
    this.attempt?.abort();
  }
}

/**
 * One attempt on one connection: undici's dispatch handler (Dispatcher.md, "DispatchHandler") and the
 * exchange the relay controls once the headers are in.
 */
class Attempt implements Dispatcher.DispatchHandler, UpstreamExchange {
  private controller: Dispatcher.DispatchController | undefined = undefined;
  private reused = false;
  private released = false;
  private aborted: Error | undefined = undefined;
  private sink: UpstreamBodySink | undefined = undefined;
  statusCode = 0;
  rawHeaders: readonly string[] = [];
  headers: IncomingHttpHeaders = {};

  constructor(
    private readonly call: Call,
    private readonly origin: Origin,
    readonly slot: Slot,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    this.reused = this.slot.used;
    if (this.aborted !== undefined) controller.abort(this.aborted);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    // Interim answers (103 Early Hints…) are not the response.
    if (statusCode < 200) return;
    this.statusCode = statusCode;
    this.headers = headers;
    this.rawHeaders = latin1Pairs(controller.rawHeaders);
    this.sink = this.call.responded(this);
    if (this.sink === undefined) controller.abort(new Error('response after the request was given up'));
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.sink?.onData(chunk);
  }

  onResponseEnd(): void {
    this.slot.used = true;
    this.release();
    this.sink?.onEnd();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.release();
    if (this.sink !== undefined) {
      this.sink.onError(error);
      return;
    }
    if (this.aborted !== undefined) return; // the call already failed (deadline, caller gone)
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'UND_ERR_INVALID_ARG') {
      this.call.handler.onFailure(new UpstreamError('unreachable', error.message, code));
      return;
    }
    this.call.attemptFailed(classify(error, this.reused));
  }

  pause(): void {
    this.controller?.pause();
  }

  resume(): void {
    this.controller?.resume();
  }

  abort(reason: Error = new Error('aborted by the proxy')): void {
    if (this.aborted !== undefined) return;
    this.aborted = reason;
    this.sink = undefined;
    this.controller?.abort(reason);
  }

  private release(): void {
    if (this.released) return;
    this.released = true;
    this.origin.release(this.slot);
  }
}

/** undici's raw header list (Buffers) as the strings Node's ServerResponse writes back byte for byte. */
function latin1Pairs(raw: Dispatcher.DispatchController['rawHeaders']): string[] {
  if (!Array.isArray(raw)) return [];
  const out = new Array<string>(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const item: unknown = raw[i];
    out[i] = typeof item === 'string' ? item : (item as Buffer).toString('latin1');
  }
  return out;
}
