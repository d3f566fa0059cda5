/**
 * Real backends for the edge-proxy tests: cluster services built with `createService` (so the framework's
 * own envelope verifier judges every proxied request), served over HTTPS with a throw-away CA, and a
 * record of every request that reached the socket (for "never forwarded" assertions).
 */
import { once } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, LookupFunction } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { Type } from 'typebox';
import { silentServiceLogger } from '../../../cluster/shared/logger.js';
import { createService, type ServiceApp } from '../../../cluster/shared/service.js';
import { EnvelopeVerifier } from '../../../contracts/envelope/envelope.js';
import { staticKeySource, type SigningKeys } from '../../../contracts/envelope/signing-keys.js';
import type { IssuedCertificate, LocalCa } from '../../../local/tls.js';

export const BACKEND_NAME = 'backend.gco.gco.internal';
export const KEY = 'integration-edge-signing-key-0123456789';

interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  servername: string | undefined;
}

export interface Backend {
  readonly port: number;
  /** Every request that reached the server, in arrival order, before any verification. */
  readonly seen: SeenRequest[];
  close(): Promise<void>;
}

/** A query schema that accepts any parameter (the framework closes query strings by default). */
export const OPEN_QUERY = { querystring: Type.Object({}, { additionalProperties: true }) };

export interface BackendOptions {
  ca: LocalCa;
  /** Keys the backend's verifier accepts (default: `{ current: KEY }`). */
  keys?: SigningKeys;
  /** Certificate to serve (default: issued by `ca` for 127.0.0.1 and BACKEND_NAME). */
  cert?: IssuedCertificate;
  routes: (app: ServiceApp) => void;
}

export async function startBackend(opts: BackendOptions): Promise<Backend> {
  const service = await createService({
    name: 'edge-test-backend',
    version: '1.0.0',
    description: 'backend for edge proxy tests',
    envelope: new EnvelopeVerifier({ keys: staticKeySource(opts.keys ?? { current: KEY }) }),
    logger: silentServiceLogger(),
    https: opts.cert ?? opts.ca.issue(['127.0.0.1', BACKEND_NAME]),
    routes: opts.routes,
  });
  const seen: SeenRequest[] = [];
  service.app.server.on('request', (req: IncomingMessage) => {
    seen.push({
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      servername: (req.socket as TLSSocket).servername || undefined,
    });
  });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = service.app.server.address() as AddressInfo;
  return { port, seen, close: () => service.app.close() };
}

/** Echo of what the backend received, after the envelope check passed. */
export function echoRoute(app: ServiceApp, path: string): void {
  app.all(path, { schema: OPEN_QUERY }, async (request) => ({
    method: request.method,
    url: request.raw.url,
    query: request.query,
    headers: request.headers,
    body_b64: (request.rawBody ?? Buffer.alloc(0)).toString('base64'),
    servername: (request.raw.socket as TLSSocket).servername,
  }));
}

/** A promise the test resolves to let a held backend answer. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

/** Resolves every name to 127.0.0.1 (the accelerator and ALB names of the tests). */
export const loopbackLookup: LookupFunction = (_hostname, options, callback) => {
  // net.connect asks for all addresses when autoSelectFamily is on (Node 20+ default).
  if ((options as { all?: boolean }).all) {
    (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
      { address: '127.0.0.1', family: 4 },
    ]);
  } else {
    callback(null, '127.0.0.1', 4);
  }
};

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createHttpsServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A plain HTTPS server (no framework) for transport-level behaviour. */
export async function startRawServer(
  cert: IssuedCertificate,
  handler: Parameters<typeof createHttpsServer>[1],
): Promise<{ server: HttpsServer; port: number }> {
  const server = createHttpsServer({ key: cert.key, cert: cert.cert }, handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as AddressInfo).port };
}
