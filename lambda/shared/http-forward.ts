/**
 * The proxies' HTTPS client: node:https directly (not fetch) because the request must reach a given
 * address with a different SNI/Host name, keep the request target byte-exact (the envelope signs it), and
 * stream the answer. Errors come out as ApiErrors: 502 when the backend does not answer, 504 when a
 * deadline passes.
 */
import { PlatformError } from '../../contracts/runtime/errors.js';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { badGateway, gatewayTimeout, MESSAGES, EdgeHttpError } from './errors.js';
import type { BackendTarget } from './backend-target.js';
import { connectionListed, isHopByHop } from '../../contracts/http/hop-by-hop.js';

export interface OutboundRequest {
  method: string;
  /** Path plus `?` and query, exactly as signed. */
  target: string;
  /** Final header set (lowercase names), envelope included. */
  headers: Record<string, string | string[]>;
  body: Buffer | undefined;
}

/**
 * Response headers to hand back: every backend header except hop-by-hop ones and the message framing
 * (`content-length`), which belongs to whoever sends the message on (API Gateway re-frames it, and
 * streams it chunked). Multi-value headers (Set-Cookie) keep every value, in order.
 */
export function responseHeaders(res: IncomingMessage): Record<string, string[]> {
  const distinct = res.headersDistinct;
  const listed = connectionListed(distinct['connection']);
  const out: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(distinct)) {
    if (name === 'content-length' || isHopByHop(name, listed)) continue;
    if (values !== undefined) out[name] = [...values];
  }
  return out;
}

// Media types whose bodies are text; everything else is returned base64-encoded.
const TEXT_TYPE =
  /^(?:text\/[\w.+-]+|application\/(?:[\w.-]+\+)?(?:json|xml|yaml)|application\/(?:javascript|ecmascript|x-www-form-urlencoded|x-ndjson|graphql|sql)|[\w.-]+\/[\w.-]+\+(?:json|xml))$/i;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a body must travel base64-encoded through API Gateway: a compressed or non-text media type,
 * a charset other than UTF-8, or bytes that are not valid UTF-8 (turning them into a string would
 * replace them with U+FFFD). Empty bodies are text.
 */
export function isBinaryBody(headers: Record<string, string[]>, body: Uint8Array): boolean {
  if (body.length === 0) return false;
  const encoding = headers['content-encoding']?.join(',').trim().toLowerCase();
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') return true;
  const contentType = headers['content-type']?.[0];
  if (contentType !== undefined) {
    const [mediaType = '', ...params] = contentType.split(';').map((s) => s.trim());
    if (!TEXT_TYPE.test(mediaType)) return true;
    const charset = params
      .map((p) => /^charset\s*=\s*"?([^";]+)"?$/i.exec(p)?.[1]?.toLowerCase())
      .find((c) => c !== undefined);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8' && charset !== 'us-ascii') {
      return true;
    }
  }
  return !isValidUtf8(body);
}

/** Connection-level failures after which a request on a reused keep-alive socket is sent once more. */
const STALE_SOCKET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

class StaleSocketError extends PlatformError {
  override readonly name = 'StaleSocketError';
}

export interface OpenOptions {
  /** Epoch ms by which the response headers must have arrived. */
  deadlineAt: number;
  /** Reason logged when the deadline passes. */
  timeoutReason?: string;
  now?: () => number;
}

/**
 * Sends the request and resolves with the response as soon as its headers arrive (body unread).
 *
 * A keep-alive socket can go stale while a Lambda sandbox is frozen; when a REUSED socket fails before
 * any response, the request is sent once more on a fresh connection with the SAME headers — same
 * envelope nonce — so if the backend did see the first attempt, the retry is refused as a replay
 * instead of running twice.
 */
export async function openResponse(
  target: BackendTarget,
  request: OutboundRequest,
  opts: OpenOptions,
): Promise<IncomingMessage> {
  try {
    return await attempt(target, request, opts, true);
  } catch (error) {
    if (!(error instanceof StaleSocketError)) throw error;
    return attempt(target, request, opts, false);
  }
}

function attempt(
  target: BackendTarget,
  request: OutboundRequest,
  opts: OpenOptions,
  mayRetry: boolean,
): Promise<IncomingMessage> {
  const now = opts.now ?? Date.now;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const remaining = opts.deadlineAt - now();
    if (remaining <= 0) {
      reject(gatewayTimeout(opts.timeoutReason ?? 'backend_timeout'));
      return;
    }
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const req = httpsRequest({
      host: target.host,
      port: target.port,
      servername: target.servername,
      agent: target.agent,
      ...(target.lookup ? { lookup: target.lookup } : {}),
      method: request.method,
      path: request.target,
      headers: request.headers,
    });
    const timer = setTimeout(() => {
      settle(() => reject(gatewayTimeout(opts.timeoutReason ?? 'backend_timeout')));
      req.destroy();
    }, remaining);
    req.once('response', (res) => settle(() => resolve(res)));
    req.on('error', (error: NodeJS.ErrnoException) => {
      settle(() => {
        const stale = mayRetry && req.reusedSocket && STALE_SOCKET_CODES.has(error.code ?? '');
        reject(stale ? new StaleSocketError(error.message) : badGateway('backend_unreachable', error));
      });
    });
    req.end(request.body);
  });
}

export interface BufferedResponse {
  statusCode: number;
  headers: Record<string, string[]>;
  body: Buffer;
}

class DeadlineError extends PlatformError {
  override readonly name = 'DeadlineError';
}

export interface ForwardBufferedOptions {
  /** Whole exchange (connect, headers, body) must finish within this many ms. */
  timeoutMs: number;
  /** Larger bodies are refused with 502 (the Lambda response payload limit is 6 MB). */
  maxResponseBytes: number;
  now?: () => number;
}

/** Sends the request and reads the whole answer within one deadline. */
export async function forwardBuffered(
  target: BackendTarget,
  request: OutboundRequest,
  opts: ForwardBufferedOptions,
): Promise<BufferedResponse> {
  const now = opts.now ?? Date.now;
  const deadlineAt = now() + opts.timeoutMs;
  const res = await openResponse(target, request, { deadlineAt, timeoutReason: 'backend_timeout', now });
  const timer = setTimeout(
    () => res.destroy(new DeadlineError('response deadline passed')),
    Math.max(0, deadlineAt - now()),
  );
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > opts.maxResponseBytes) {
        res.destroy();
        throw new EdgeHttpError(502, MESSAGES.responseTooLarge, 'backend_response_too_large');
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof EdgeHttpError) throw error;
    if (error instanceof DeadlineError) throw gatewayTimeout('backend_timeout');
    throw badGateway('backend_response_aborted', error);
  } finally {
    clearTimeout(timer);
  }
  if (!res.complete) throw badGateway('backend_response_truncated');
  return { statusCode: res.statusCode ?? 502, headers: responseHeaders(res), body: Buffer.concat(chunks) };
}
