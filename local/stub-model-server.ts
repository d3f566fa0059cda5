/**
 * What a simulated model pod serves when its image is not the local sample model (only
 * `.local/endpoints.json` → `inference.sampleImage` runs for real on this machine): HTTPS with the same
 * internal-CA certificate as a real pod's TLS sidecar, the health path answers 200 so the pod turns
 * Ready and the endpoint reports running as it would with the real image, and every other request is
 * 501 with a JSON detail that says why, so a caller through the inference-proxy sees what happened.
 *
 *   GET  <health path>   200 {"status":"ok","stub":true}
 *   *    anything else   501 {"detail":"stub model server: image <img> is not runnable locally"}
 */
import { createServer } from 'node:https';
import { closeGracefully } from './model-server.js';
import type { AddressInfo } from 'node:net';
import type { IssuedCertificate } from './tls.js';

export interface StubModelServerOptions {
  certificate: IssuedCertificate;
  /** The pod's model image (named in every refusal). */
  image: string;
  /** The readiness probe's path (answered 200). */
  healthPath: string;
  host?: string;
}

export interface StubModelServer {
  readonly port: number;
  /** As ModelServer.close. */
  close(graceMs?: number): Promise<void>;
}

export function stubDetail(image: string): string {
  return `stub model server: image ${image} is not runnable locally`;
}

export async function startStubModelServer(opts: StubModelServerOptions): Promise<StubModelServer> {
  const host = opts.host ?? '127.0.0.1';
  const server = createServer({ key: opts.certificate.key, cert: opts.certificate.cert }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const health = path === opts.healthPath && (req.method === 'GET' || req.method === 'HEAD');
    const body = JSON.stringify(health ? { status: 'ok', stub: true } : { detail: stubDetail(opts.image) });
    // The request body is not needed: drain it so the connection can be reused.
    req.resume();
    res.writeHead(health ? 200 : 501, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: (graceMs = 0) => closeGracefully(server, graceMs),
  };
}
