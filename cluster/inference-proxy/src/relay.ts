/**
 * The reverse-proxy relay: streams a model server's answer to the caller as it arrives. Status and
 * headers go out as soon as the model sends them (an SSE client learns at once that its stream is open),
 * whatever one read of the model's socket brought follows in the same loop turn (never behind a timer),
 * a slow caller pauses the model's stream rather than growing a buffer, a stream silent for longer than
 * the idle timeout is cut on both sides, and whichever side fails first names the log line
 * (docs/inference-proxy.md, "Forwarding" and "Performance").
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UpstreamTarget } from './endpoint.js';
import { downstreamResponseHeaders, TARGET_HEADER } from './headers.js';
import type { UpstreamExchange } from './upstream.js';

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

/** Streams an upstream answer to the caller; from here on only the connection can signal failure. */
export function relayUpstreamResponse(
  request: FastifyRequest,
  reply: FastifyReply,
  exchange: UpstreamExchange,
  { endpointName, target, streamIdleTimeoutMs }: RelayOptions,
): void {
  const { request: upstreamRequest, response: upstreamResponse } = exchange;
  const res: ServerResponse = reply.raw;
  const status = upstreamResponse.statusCode ?? 502;
  // Raw writes: the caller gets the status and headers with the model's, not with the first body byte.
  reply.hijack();
  try {
    const headers = downstreamResponseHeaders(upstreamResponse.rawHeaders, upstreamResponse.headers, {
      'x-request-id': request.id,
      [TARGET_HEADER]: target.role,
    });
    if (upstreamResponse.headers.date !== undefined) res.sendDate = false;
    res.writeHead(status, headers);
  } catch (error) {
    request.log.warn({ err: error, endpoint: endpointName }, 'model server sent unrelayable headers');
    upstreamRequest.destroy();
    res.writeHead(502, { 'content-type': 'application/json', 'x-request-id': request.id });
    res.end(JSON.stringify({ detail: `Inference endpoint '${endpointName}' sent an invalid response` }));
    return;
  }
  if (request.method === 'HEAD' || status === 204 || status === 304 || status < 200) {
    upstreamResponse.resume();
    res.end();
    return;
  }
  relayBody(request, res, exchange, endpointName, target, streamIdleTimeoutMs);
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
function relayBody(
  request: FastifyRequest,
  res: ServerResponse,
  { request: upstreamRequest, response: upstreamResponse }: UpstreamExchange,
  endpointName: string,
  target: UpstreamTarget,
  streamIdleTimeoutMs: number,
): void {
  const socket = res.socket;
  if (socket === null) {
    // The caller is already gone (forward.ts has aborted the upstream request).
    upstreamRequest.destroy();
    return;
  }
  socket.setNoDelay(true);
  // Decided by writeHead: chunked unless the model sent a length (or the caller speaks HTTP/1.0).
  const chunked = res.chunkedEncoding;
  let bytes = 0;
  let paused = false;
  let done = false;
  let batch: Buffer[] = [];
  let batchBytes = 0;
  let scheduled: NodeJS.Immediate | undefined;
  // Whichever side failed first names the log line (the other side is then torn down here).
  let cause: 'client' | 'upstream' | 'idle' | undefined;
  const idle = setTimeout(() => {
    cause ??= 'idle';
    upstreamRequest.destroy(new Error(`stream idle for ${streamIdleTimeoutMs} ms`));
  }, streamIdleTimeoutMs);

  /** Writes the batch into the corked socket: one chunk frame around the model's own Buffers. */
  const writeBatch = (): void => {
    if (batchBytes === 0) return;
    if (chunked) socket.write(`${batchBytes.toString(16)}\r\n`, 'latin1');
    for (const chunk of batch) socket.write(chunk);
    if (chunked) socket.write(CRLF);
    batch = [];
    batchBytes = 0;
  };
  const flush = (): void => {
    if (scheduled === undefined) return;
    clearImmediate(scheduled);
    scheduled = undefined;
    writeBatch();
    socket.uncork();
    if (!paused && socket.writableLength >= RELAY_BUFFER_LIMIT) {
      paused = true;
      upstreamResponse.pause();
    }
  };
  /** Starts a batch: cork, flush at the end of this loop turn, push the idle deadline back (once per read). */
  const hold = (): void => {
    if (scheduled !== undefined) return;
    idle.refresh();
    socket.cork();
    scheduled = setImmediate(flush);
  };
  const onData = (chunk: Buffer): void => {
    if (done) return;
    bytes += chunk.length;
    hold();
    batch.push(chunk);
    batchBytes += chunk.length;
    // A burst larger than the limit in one read goes out now rather than piling up behind the cork.
    if (batchBytes >= RELAY_BUFFER_LIMIT) flush();
  };
  const onDrain = (): void => {
    if (!paused || done) return;
    paused = false;
    upstreamResponse.resume();
  };
  const finish = (error?: Error): void => {
    if (done) return;
    done = true;
    clearTimeout(idle);
    if (scheduled !== undefined) {
      clearImmediate(scheduled);
      scheduled = undefined;
      socket.uncork();
    }
    batch = [];
    upstreamResponse.off('data', onData);
    socket.off('drain', onDrain);
    if (error === undefined) return;
    upstreamRequest.destroy();
    res.destroy();
    const fields = { endpoint: endpointName, target: target.role, bytes };
    if (cause === 'client') request.log.info(fields, 'client closed the stream; upstream request aborted');
    else if (cause === 'idle') request.log.warn(fields, 'model server stream went idle; both sides closed');
    else request.log.warn({ ...fields, err: error }, 'model server stream interrupted');
  };

  // The response head goes out with the first batch (or alone at the end of this loop turn).
  hold();
  res.flushHeaders();
  upstreamResponse.on('data', onData);
  upstreamResponse.once('end', () => {
    if (done) return;
    // The model is done: no silence to watch for while the caller drains the rest.
    clearTimeout(idle);
    // Still corked: end() uncorks fully, so the last batch and the terminating chunk share one writev.
    if (scheduled !== undefined) clearImmediate(scheduled);
    scheduled = undefined;
    writeBatch();
    res.end();
  });
  upstreamResponse.once('error', (error) => {
    cause ??= 'upstream';
    finish(error);
  });
  upstreamResponse.once('close', () => {
    if (upstreamResponse.complete) return;
    cause ??= 'upstream';
    finish(new Error('model server closed the stream before its end'));
  });
  socket.on('drain', onDrain);
  res.once('error', (error) => finish(error));
  res.once('finish', () => finish());
  res.once('close', () => {
    if (res.writableFinished) return;
    cause ??= 'client';
    finish(new Error('client closed the stream'));
  });
}
