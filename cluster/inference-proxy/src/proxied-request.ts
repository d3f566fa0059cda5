/**
 * A request on its way through the proxy, whichever entry it came by: the Fastify routes (routes.ts) or
 * the hot path in front of them (fast-path.ts). forward.ts and relay.ts see only this.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

/** The few logger methods the proxy uses (pino's signature: fields, then message). */
export interface ProxyLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface ProxiedRequest {
  readonly id: string;
  readonly method: string;
  /** The request target exactly as received (path and query, percent escapes kept). */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The exact body bytes; undefined when the request had none. */
  readonly body: Buffer | undefined;
  /** Scheme the peer used to reach this proxy. */
  readonly protocol: 'http' | 'https';
  readonly remoteAddress: string | undefined;
  readonly log: ProxyLog;
  readonly res: ServerResponse;
  /** Takes the response over from whoever would otherwise answer (Fastify's reply.hijack()). */
  hijack(): void;
}
