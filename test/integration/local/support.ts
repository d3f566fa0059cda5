/**
 * Helpers for the local-platform integration tests: SigV4-signed requests made with the project's own
 * signer (contracts/runtime/sigv4.ts, @smithy/signature-v4) and a raw HTTP client for what fetch cannot
 * send (repeated headers, exact bytes).
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import type { RouteHandler, RouteIntegration } from '../../../contracts/api-routes.js';
import { signSigV4 } from '../../../contracts/runtime/sigv4.js';
import type { AwsCredentialIdentity } from '@smithy/types';
import { createLocalCredentials } from '../../../local/credentials.js';
import { readBody } from '../../support/read-body.js';

/** Credentials of a test account for emulators started without the whole platform. */
export const TEST_ACCOUNT_CREDENTIALS = createLocalCredentials({
  partition: 'aws',
  accountId: '000000000000',
  aggregatorRoleName: 'gco-aggregator',
});

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON shapes
}

/** Sends exactly these headers (repeats allowed) and body; resolves with the whole answer. */
export function rawRequest(
  url: string,
  opts: { method?: string; headers?: [string, string][]; body?: Buffer | string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    // The request target exactly as written: URL parsing would resolve `.`/`..` (also `%2e`) segments.
    const target = /^[a-z]+:\/\/[^/?#]+([^#]*)/i.exec(url)?.[1] || '/';
    const given = new Set((opts.headers ?? []).map(([n]) => n.toLowerCase()));
    // A body needs framing: Node adds none to GET/DELETE/OPTIONS bodies when headers are an array.
    const framing: string[] =
      opts.body !== undefined && !given.has('content-length') && !given.has('transfer-encoding')
        ? ['Content-Length', String(Buffer.byteLength(opts.body))]
        : [];
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        method: opts.method ?? 'GET',
        path: target,
        // An array of headers is sent as is: Node adds no Host of its own then.
        headers: [
          ...(opts.headers?.some(([n]) => n.toLowerCase() === 'host') ? [] : ['Host', u.host]),
          ...(opts.headers ?? []).flat(),
          ...framing,
        ],
      },
      (res) => {
        readBody(res).then((body) => {
          const text = body.toString('utf8');
          let json: unknown;
          try {
            json = text === '' ? undefined : JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            rawHeaders: res.rawHeaders,
            body,
            text,
            json,
          });
        }, reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

export interface SignedOptions {
  method?: string;
  /** Below the base URL, e.g. `/api/v1/jobs`; sent verbatim. */
  path: string;
  query?: Record<string, string | string[]>;
  headers?: Record<string, string>;
  /** Unsigned extra headers (repeats allowed), added after signing. */
  extraHeaders?: [string, string][];
  /** Text, or exact bytes (e.g. bytes that are not UTF-8). */
  body?: string | Buffer;
  region: string;
  credentials: AwsCredentialIdentity;
  signingDate?: Date;
}

/** A SigV4-signed request to `base` (an API URL with its stage). */
export async function signedRequest(base: string, opts: SignedOptions): Promise<Reply> {
  const signed = await signSigV4({
    method: opts.method ?? 'GET',
    baseUrl: base,
    path: opts.path,
    ...(opts.query ? { query: opts.query } : {}),
    ...(opts.headers ? { headers: opts.headers } : {}),
    ...(opts.body !== undefined ? { body: opts.body } : {}),
    region: opts.region,
    credentials: opts.credentials,
    ...(opts.signingDate ? { signingDate: opts.signingDate } : {}),
  });
  return rawRequest(signed.url, {
    method: signed.method,
    headers: [...Object.entries(signed.headers), ...(opts.extraHeaders ?? [])],
    ...(opts.body !== undefined ? { body: opts.body } : {}),
  });
}

/** A Lambda integration for hand-written test definitions. */
export function lambdaIntegration(
  handler: RouteHandler,
  timeoutSeconds: number,
  streaming = false,
): RouteIntegration {
  return { type: 'lambda', handler, timeoutSeconds, streaming };
}
