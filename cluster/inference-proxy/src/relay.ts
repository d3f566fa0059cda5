/**
 * The reverse-proxy relay: streams a model server's answer to the caller as it arrives. Status and
 * headers go out as soon as the model sends them (an SSE client learns at once that its stream is open),
 * every chunk follows without buffering, a stream silent for longer than the idle timeout is cut on both
 * sides, and whichever side fails first names the log line (docs/inference-proxy.md, "Forwarding").
 */
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UpstreamTarget } from './endpoint.js';
import { downstreamResponseHeaders, TARGET_HEADER } from './headers.js';
import type { UpstreamExchange } from './upstream.js';

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
  let bytes = 0;
  // Whichever side failed first names the log line (the other side is then torn down by pipeline).
  let cause: 'client' | 'upstream' | 'idle' | undefined;
  const idle = setTimeout(() => {
    cause ??= 'idle';
    upstreamRequest.destroy(new Error(`stream idle for ${streamIdleTimeoutMs} ms`));
  }, streamIdleTimeoutMs);
  upstreamResponse.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    idle.refresh();
  });
  upstreamResponse.once('error', () => (cause ??= 'upstream'));
  res.once('close', () => {
    if (!res.writableFinished) cause ??= 'client';
  });
  pipeline(upstreamResponse, res, (error) => {
    clearTimeout(idle);
    if (!error) return;
    upstreamRequest.destroy();
    const fields = { endpoint: endpointName, target: target.role, bytes };
    if (cause === 'client') request.log.info(fields, 'client closed the stream; upstream request aborted');
    else if (cause === 'idle') request.log.warn(fields, 'model server stream went idle; both sides closed');
    else request.log.warn({ ...fields, err: error }, 'model server stream interrupted');
  });
}
