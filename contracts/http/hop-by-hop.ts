/**
 * Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, not the message, so no proxy
 * passes them on. One rule for every proxy of the platform: the edge proxies (lambda/), the
 * inference-proxy service (cluster/) and the local ALB router (local/). See docs/edge-lambdas.md.
 */

/** The fixed names, including the legacy ones (Keep-Alive, Proxy-Connection) and HTTP/2's upgrade setting. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
]);

/**
 * Header names (lowercase) a `Connection` header lists (`close`, `keep-alive`, custom names), from a
 * single value (`IncomingMessage.headers`) or every value (`headersDistinct`).
 */
export function connectionListed(value: string | readonly string[] | undefined): Set<string> {
  const out = new Set<string>();
  for (const item of typeof value === 'string' ? [value] : (value ?? [])) {
    for (const token of item.split(',')) {
      const name = token.trim().toLowerCase();
      if (name !== '') out.add(name);
    }
  }
  return out;
}

/**
 * True for a header of one connection: the fixed names, every `proxy-*` header (Proxy-Authorization and
 * Proxy-Authenticate are credentials for a proxy, never for the next hop), and any name the message's
 * `Connection` header lists (`listed`, lowercase).
 */
export function isHopByHop(name: string, listed: ReadonlySet<string> = new Set()): boolean {
  const lower = name.toLowerCase();
  return HOP_BY_HOP.has(lower) || lower.startsWith('proxy-') || listed.has(lower);
}
