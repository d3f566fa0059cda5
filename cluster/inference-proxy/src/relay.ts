/**
 * The reverse-proxy relay: streams a model server's answer to the caller as it arrives. Status and
 * headers go out as soon as the model sends them (an SSE client learns at once that its stream is open),
 * whatever one read of the model's socket brought follows in the same loop turn (never behind a timer),
 * a slow caller pauses the model's stream rather than growing a buffer, a stream silent for longer than
 * the idle timeout is cut on both sides, and whichever side fails first names the log line
 * (docs/inference-proxy.md, "Forwarding" and "Performance").
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { UpstreamTarget } from './endpoint.js';
import { downstreamResponseHeaders, TARGET_HEADER } from './headers.js';
import type { ProxiedRequest } from './proxied-request.js';
import type { UpstreamBodySink, UpstreamExchange } from './upstream.js';

/**
 * Unsent bytes the caller's socket may hold before the relay pauses the model server's stream, and the
 * largest batch it collects before writing: one socket read's worth (libuv reads 64 KiB at a time), so a
 * client that keeps up never triggers a pause while a slow one holds about this much in the proxy per
 * stream (plus what the kernel buffers).
 */
export const RELAY_BUFFER_LIMIT = 64 * 1024;

export interface RelayOptions {
  endpointName: string;
  target: UpstreamTarget;
  /** Longest silence allowed inside the streamed body. */
  streamIdleTimeoutMs: number;
}

/** A body nobody reads on: HEAD, 204, 304, an unrelayable answer, a caller already gone. */
const DISCARD: UpstreamBodySink = {
  onData: () => undefined,
  onEnd: () => undefined,
  onError: () => undefined,
};

/**
 * Starts streaming an upstream answer to the caller (status and headers now) and returns where the body
 * goes; from here on only the connection can signal failure.
 */
export function relayUpstreamResponse(
  request: ProxiedRequest,
  exchange: UpstreamExchange,
  { endpointName, target, streamIdleTimeoutMs }: RelayOptions,
): UpstreamBodySink {
  const { res } = request;
  const status = exchange.statusCode;
  // Raw writes: the caller gets the status and headers with the model's, not with the first body byte.
  request.hijack();
  try {
    const headers = downstreamResponseHeaders(exchange.rawHeaders, exchange.headers, {
      'x-request-id': request.id,
      [TARGET_HEADER]: target.role,
    });
    if (exchange.headers.date !== undefined) res.sendDate = false;
    res.writeHead(status, headers);
  } catch (error) {
    request.log.warn({ err: error, endpoint: endpointName }, 'model server sent unrelayable headers');
    exchange.abort();
    res.writeHead(502, { 'content-type': 'application/json', 'x-request-id': request.id });
    res.end(JSON.stringify({ detail: `Inference endpoint '${endpointName}' sent an invalid response` }));
    return DISCARD;
  }
  if (request.method === 'HEAD' || status === 204 || status === 304) {
    res.end();
    return DISCARD;
  }
  const socket = res.socket;
  if (socket === null) {
    // The caller is already gone (forward.ts has aborted the upstream request).
    exchange.abort();
    return DISCARD;
  }
  socket.setNoDelay(true);
  const relay = new BodyRelay(request, res, socket, exchange, endpointName, target, streamIdleTimeoutMs);
  relay.start();
  return relay;
}

const CRLF = Buffer.from('\r\n', 'latin1');

/**
 * The body relay. Node's TLS layer hands the HTTP parser one callback per TLS record (at most 16 KiB), so
 * one read of the model server's socket brings many chunks: 64 KiB of a bulk stream, or dozens of small
 * SSE events. Per chunk the relay only counts it and keeps a reference to the parser's Buffer (no copy);
 * the idle deadline is pushed back once per read, when a batch starts. Once the event loop has handled
 * that read (setImmediate: the rest of the current loop turn, no timer), everything it brought goes to the
 * caller's socket as one HTTP/1.1 chunk in one writev — a size line, the model's Buffers as they are, CRLF
 * — the way nginx relays a read. The first batch carries the response head, so status and headers reach
 * the caller with the first event, or at the end of the loop turn in which the model's headers arrived.
 * No stream layers sit between the two sockets: upstream is paused only when the caller's socket still
 * holds RELAY_BUFFER_LIMIT unsent bytes (a slow client) and resumed on 'drain', so a client that keeps up
 * costs no pause/resume and one that does not cannot make the proxy buffer without bound.
 */
class BodyRelay implements UpstreamBodySink {
  /** Decided by writeHead: chunked unless the model sent a length (or the caller speaks HTTP/1.0). */
  private readonly chunked: boolean;
  private readonly idle: NodeJS.Timeout;
  private bytes = 0;
  private paused = false;
  private done = false;
  private batch: Buffer[] = [];
  private batchBytes = 0;
  private scheduled: NodeJS.Immediate | undefined = undefined;
  /** Whichever side failed first names the log line (the other side is then torn down here). */
  private cause: 'client' | 'upstream' | 'idle' | undefined = undefined;

  constructor(
    private readonly request: ProxiedRequest,
    private readonly res: ServerResponse,
    private readonly socket: Socket,
    private readonly exchange: UpstreamExchange,
    private readonly endpointName: string,
    private readonly target: UpstreamTarget,
    private readonly streamIdleTimeoutMs: number,
  ) {
    this.chunked = res.chunkedEncoding;
    this.idle = setTimeout(() => {
      this.cause ??= 'idle';
      this.finish(new Error(`stream idle for ${this.streamIdleTimeoutMs} ms`));
    }, streamIdleTimeoutMs);
  }

  start(): void {
    const { res } = this;
    // The response head goes out with the first batch (or alone at the end of this loop turn).
    this.hold();
    res.flushHeaders();
    this.socket.on('drain', this.onDrain);
    res.once('error', (error) => this.finish(error));
    res.once('finish', () => this.finish());
    res.once('close', () => {
      if (res.writableFinished) return;
      this.cause ??= 'client';
      this.finish(new Error('client closed the stream'));
    });
  }

  onData(chunk: Buffer): void {
    if (this.done) return;
    this.bytes += chunk.length;
    this.hold();
    this.batch.push(chunk);
    this.batchBytes += chunk.length;
    // A burst larger than the limit in one read goes out now rather than piling up behind the cork.
    if (this.batchBytes >= RELAY_BUFFER_LIMIT) this.flush();
  }

  onEnd(): void {
    this.end();
  }

  /** The model's stream broke (reset, closed before its end). */
  onError(error: Error): void {
    this.cause ??= 'upstream';
    this.finish(error);
  }

  private readonly onDrain = (): void => {
    if (!this.paused || this.done) return;
    this.paused = false;
    this.exchange.resume();
  };

  /** setImmediate's callback, bound once per stream rather than once per read. */
  private readonly flushScheduled = (): void => this.flush();

  /** Starts a batch: cork, flush at the end of this loop turn, push the idle deadline back (once per read). */
  private hold(): void {
    if (this.scheduled !== undefined) return;
    this.idle.refresh();
    this.socket.cork();
    this.scheduled = setImmediate(this.flushScheduled);
  }

  /** Writes the batch into the corked socket: one chunk frame around the model's own Buffers. */
  private writeBatch(): void {
    if (this.batchBytes === 0) return;
    const { socket, chunked } = this;
    if (chunked) socket.write(`${this.batchBytes.toString(16)}\r\n`, 'latin1');
    for (const chunk of this.batch) socket.write(chunk);
    if (chunked) socket.write(CRLF);
    this.batch = [];
    this.batchBytes = 0;
  }

  private flush(): void {
    if (this.scheduled === undefined) return;
    clearImmediate(this.scheduled);
    this.scheduled = undefined;
    this.writeBatch();
    this.socket.uncork();
    if (!this.paused && this.socket.writableLength >= RELAY_BUFFER_LIMIT) {
      this.paused = true;
      this.exchange.pause();
    }
  }

  /** The model is done: the last batch and the terminating chunk go out together. */
  private end(): void {
    if (this.done) return;
    // No silence to watch for while the caller drains the rest.
    clearTimeout(this.idle);
    // Still corked: end() uncorks fully, so the last batch and the terminating chunk share one writev.
    if (this.scheduled !== undefined) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    this.writeBatch();
    this.res.end();
  }

  private finish(error?: Error): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.idle);
    if (this.scheduled !== undefined) {
      clearImmediate(this.scheduled);
      this.scheduled = undefined;
      this.socket.uncork();
    }
    this.batch = [];
    this.socket.off('drain', this.onDrain);
    if (error === undefined) return;
    this.exchange.abort();
    this.res.destroy();
    const fields = { endpoint: this.endpointName, target: this.target.role, bytes: this.bytes };
    const { log } = this.request;
    if (this.cause === 'client') log.info(fields, 'client closed the stream; upstream request aborted');
    else if (this.cause === 'idle') log.warn(fields, 'model server stream went idle; both sides closed');
    else log.warn({ ...fields, err: error }, 'model server stream interrupted');
  }
}
