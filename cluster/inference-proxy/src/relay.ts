/**
 * The reverse-proxy relay: streams a model server's answer to the caller as it arrives. Status and
 * headers go out as soon as the model sends them (an SSE client learns at once that its stream is open),
 * every chunk follows without buffering, a stream silent for longer than the idle timeout is cut on both
 * sides, and whichever side fails first names the log line (docs/inference-proxy.md, "Forwarding").
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UpstreamTarget } from './endpoint.js';
import { downstreamResponseHeaders, TARGET_HEADER } from './headers.js';
import type { UpstreamExchange } from './upstream.js';

/**
 * Unsent bytes the caller's socket may hold before the relay pauses the model server's stream: four TLS
 * records (the proxy reads upstream 16 KiB at a time), so a client that keeps up never triggers a pause
 * while a slow one holds at most this much (plus one read) in the proxy per stream.
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

/**
 * The body relay, per chunk: count it, push the idle deadline back, write it to the caller — the same
 * Buffer the HTTP parser handed out (no copy; HTTP/1.1 chunk framing only), no stream layers between the
 * two sockets. Node's TLS layer hands out one callback per TLS record (at most 16 KiB), so one socket read
 * can bring many chunks — 64 KiB of a bulk stream, or dozens of small SSE events. The caller's socket is
 * corked at the first chunk of a read and uncorked by setImmediate, once the event loop has handled that
 * read: every chunk of one upstream read leaves in one writev, and nothing waits longer than the rest of
 * the current loop turn (no timer). Upstream is paused only when the caller's socket still holds
 * RELAY_BUFFER_LIMIT unsent bytes (a slow client) and resumed on 'drain': a client that keeps up costs no
 * pause/resume, and one that does not cannot make the proxy buffer without bound.
 */
function relayBody(
  request: FastifyRequest,
  res: ServerResponse,
  { request: upstreamRequest, response: upstreamResponse }: UpstreamExchange,
  endpointName: string,
  target: UpstreamTarget,
  streamIdleTimeoutMs: number,
): void {
  res.socket?.setNoDelay(true);
  let bytes = 0;
  let paused = false;
  let done = false;
  // Whichever side failed first names the log line (the other side is then torn down here).
  let cause: 'client' | 'upstream' | 'idle' | undefined;
  const idle = setTimeout(() => {
    cause ??= 'idle';
    upstreamRequest.destroy(new Error(`stream idle for ${streamIdleTimeoutMs} ms`));
  }, streamIdleTimeoutMs);

  let flushing: NodeJS.Immediate | undefined;
  const flush = (): void => {
    if (flushing === undefined) return;
    clearImmediate(flushing);
    flushing = undefined;
    res.uncork();
    if (!paused && !res.destroyed && res.writableLength >= RELAY_BUFFER_LIMIT) {
      paused = true;
      upstreamResponse.pause();
    }
  };
  const onData = (chunk: Buffer): void => {
    bytes += chunk.length;
    idle.refresh();
    if (flushing === undefined) {
      res.cork();
      flushing = setImmediate(flush);
    }
    res.write(chunk);
    // A burst larger than the limit in one read goes out now rather than piling up behind the cork.
    if (res.writableLength >= RELAY_BUFFER_LIMIT) flush();
  };
  const onDrain = (): void => {
    if (!paused) return;
    paused = false;
    upstreamResponse.resume();
  };
  const finish = (error?: Error): void => {
    if (done) return;
    done = true;
    clearTimeout(idle);
    if (flushing !== undefined) {
      clearImmediate(flushing);
      flushing = undefined;
      res.uncork();
    }
    upstreamResponse.off('data', onData);
    res.off('drain', onDrain);
    if (error === undefined) return;
    upstreamRequest.destroy();
    res.destroy();
    const fields = { endpoint: endpointName, target: target.role, bytes };
    if (cause === 'client') request.log.info(fields, 'client closed the stream; upstream request aborted');
    else if (cause === 'idle') request.log.warn(fields, 'model server stream went idle; both sides closed');
    else request.log.warn({ ...fields, err: error }, 'model server stream interrupted');
  };

  upstreamResponse.on('data', onData);
  upstreamResponse.once('end', () => {
    // The model is done: no silence to watch for while the caller drains the rest.
    clearTimeout(idle);
    // Still corked: end() uncorks fully, so the last chunks and the terminating chunk share one writev.
    if (flushing !== undefined) clearImmediate(flushing);
    flushing = undefined;
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
  res.on('drain', onDrain);
  res.once('error', (error) => finish(error));
  res.once('finish', () => finish());
  res.once('close', () => {
    if (res.writableFinished) return;
    cause ??= 'client';
    finish(new Error('client closed the stream'));
  });
}
