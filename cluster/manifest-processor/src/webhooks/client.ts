/**
 * One webhook POST. The target is vetted (ssrf.ts) immediately before the request and the socket is
 * connected to one of the vetted addresses through a pinned `lookup`, while TLS still verifies the
 * certificate for the URL's hostname (SNI and Host are the hostname). Redirects are never followed.
 */
import { request as httpsRequest } from 'node:https';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { TargetRefusedError, vetWebhookTarget, type Lookup, type VettedTarget } from './ssrf.js';

/** How much of a receiver's answer is kept for the delivery record. */
const MAX_RESPONSE_BYTES = 1024;

export interface WebhookRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowPrivateTargets: boolean;
  lookup?: Lookup;
  /** Extra trusted CA certificates (PEM); the system store is used when unset. */
  ca?: string | Buffer | (string | Buffer)[];
}

export type WebhookResult =
  | { kind: 'response'; statusCode: number; body: string; address: string; durationMs: number }
  /** The target broke the SSRF rules: permanent. */
  | { kind: 'refused'; error: string; durationMs: number }
  /** Resolution, connection, TLS or timeout failure: worth retrying. */
  | { kind: 'error'; error: string; durationMs: number };

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `lookup` for net.connect that answers only with the vetted addresses (no second DNS query). */
function pinnedLookup(target: VettedTarget) {
  return (_hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
    const addresses = target.addresses.filter((a) => !wanted || a.family === wanted);
    const first = addresses[0];
    if (!first) {
      const error: NodeJS.ErrnoException = new Error(`no vetted IPv${wanted ?? ''} address`);
      error.code = 'ENOTFOUND';
      callback(error, '');
      return;
    }
    if (options.all) callback(null, addresses);
    else callback(null, first.address, first.family);
  };
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}

export async function postWebhook(req: WebhookRequest): Promise<WebhookResult> {
  const started = Date.now();
  const elapsed = () => Date.now() - started;
  let target: VettedTarget;
  try {
    // The deadline covers name resolution too: a hung resolver must not outlive the worker's lease.
    target = await vetWebhookTarget(req.url, {
      allowPrivateTargets: req.allowPrivateTargets,
      timeoutMs: req.timeoutMs,
      ...(req.lookup ? { lookup: req.lookup } : {}),
    });
  } catch (error) {
    const message = `target refused: ${describeError(error)}`;
    return error instanceof TargetRefusedError
      ? { kind: 'refused', error: message, durationMs: elapsed() }
      : { kind: 'error', error: describeError(error), durationMs: elapsed() };
  }
  const remainingMs = Math.max(1, req.timeoutMs - elapsed());

  return new Promise<WebhookResult>((resolve) => {
    const request = httpsRequest({
      protocol: 'https:',
      hostname: target.hostname,
      port: target.port,
      method: 'POST',
      path: `${target.url.pathname}${target.url.search}`,
      headers: { ...req.headers, 'Content-Length': String(Buffer.byteLength(req.body)) },
      // A fresh connection per delivery: a pooled socket could belong to an address vetted earlier.
      agent: false,
      lookup: pinnedLookup(target),
      ...(isIP(target.hostname) ? {} : { servername: target.hostname }),
      ...(req.ca ? { ca: req.ca } : {}),
    });
    const timer = setTimeout(() => {
      request.destroy(new Error(`timed out after ${req.timeoutMs} ms`));
    }, remainingMs);
    let settled = false;
    const finish = (result: WebhookResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };

    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      // Read now: once the response ends the socket is detached and forgets its peer.
      const address = response.socket?.remoteAddress ?? '';
      const done = () =>
        finish({
          kind: 'response',
          statusCode: response.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8').slice(0, MAX_RESPONSE_BYTES),
          address,
          durationMs: elapsed(),
        });
      response.on('data', (chunk: Buffer) => {
        if (size < MAX_RESPONSE_BYTES) chunks.push(chunk);
        size += chunk.length;
        // The answer's status is what counts; do not wait for (or buffer) a large body.
        if (size >= MAX_RESPONSE_BYTES) {
          done();
          response.destroy();
        }
      });
      response.on('end', done);
      response.on('error', (error) =>
        finish({ kind: 'error', error: describeError(error), durationMs: elapsed() }),
      );
    });
    request.on('error', (error) =>
      finish({ kind: 'error', error: describeError(error), durationMs: elapsed() }),
    );
    request.end(req.body);
  });
}
