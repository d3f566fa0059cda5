/**
 * Header hygiene for both directions of the proxy: hop-by-hop headers (the platform's one rule,
 * contracts/http/hop-by-hop.ts) stay on their hop; the envelope and the caller's credentials never reach a
 * model server; the proxy adds the usual forwarding headers and the request id.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { isEnvelopeHeader } from '../../../contracts/envelope/envelope.js';
import { connectionListed, isHopByHop } from '../../../contracts/http/hop-by-hop.js';

export const TARGET_HEADER = 'x-gco-inference-target';

/** Request headers that are not hop-by-hop but must still not be copied verbatim. */
const REQUEST_DROPPED = new Set([
  'host', // set by the upstream request from the target service
  'authorization', // the caller's credentials are for the edge, not for the model
  'content-length', // recomputed from the forwarded bytes
  'expect', // the body is already read; a 100-continue handshake has nothing left to gate
  'x-request-id', // replaced by this request's id
]);

/** Response headers the proxy sets itself. */
const RESPONSE_DROPPED = new Set(['x-request-id', TARGET_HEADER]);

/** Request headers as they go to the model server (what undici takes). */
export type UpstreamHeaders = Record<string, string | string[]>;

export interface ForwardContext {
  requestId: string;
  /** Address of the peer that connected to this proxy (the load balancer, or the caller locally). */
  remoteAddress: string | undefined;
  /** Scheme the peer used to reach this proxy. */
  protocol: 'http' | 'https';
  /** `/inference/<name>`: lets a model server build absolute links back through the proxy. */
  prefix: string;
  /** Bytes of the forwarded body; undefined when there is none. */
  bodyLength: number | undefined;
  method: string;
}

export function upstreamRequestHeaders(incoming: IncomingHttpHeaders, ctx: ForwardContext): UpstreamHeaders {
  const listed = connectionListed(incoming.connection);
  const out: UpstreamHeaders = {};
  // for…in over Node's own header object: no [name, value] array per header.
  for (const name in incoming) {
    const value = incoming[name];
    if (value === undefined) continue;
    if (isHopByHop(name, listed) || REQUEST_DROPPED.has(name) || isEnvelopeHeader(name)) continue;
    out[name] = value;
  }
  const priorFor = incoming['x-forwarded-for'];
  const chain = Array.isArray(priorFor) ? priorFor.join(', ') : priorFor;
  if (ctx.remoteAddress) {
    out['x-forwarded-for'] = chain ? `${chain}, ${ctx.remoteAddress}` : ctx.remoteAddress;
  }
  // The load balancer already set proto/host for the original client; keep them when present.
  out['x-forwarded-proto'] ??= ctx.protocol;
  if (incoming.host) out['x-forwarded-host'] ??= incoming.host;
  out['x-forwarded-prefix'] = ctx.prefix;
  out['x-request-id'] = ctx.requestId;
  if (ctx.bodyLength !== undefined) out['content-length'] = String(ctx.bodyLength);
  else if (ctx.method !== 'GET' && ctx.method !== 'HEAD') out['content-length'] = '0';
  return out;
}

/**
 * Response headers to relay, as a flat raw list so repeated headers (Set-Cookie, Link…) and the model
 * server's spelling survive unchanged.
 */
export function downstreamResponseHeaders(
  rawHeaders: readonly string[],
  headers: IncomingHttpHeaders,
  extra: Record<string, string>,
): string[] {
  const listed = connectionListed(headers.connection);
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] ?? '';
    if (isHopByHop(name, listed) || RESPONSE_DROPPED.has(name.toLowerCase())) continue;
    out.push(name, rawHeaders[i + 1] ?? '');
  }
  for (const [name, value] of Object.entries(extra)) out.push(name, value);
  return out;
}
