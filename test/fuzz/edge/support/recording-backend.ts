/**
 * The cluster side of the edge under generated input: one plain HTTP server behind every ALB route
 * that verifies the HMAC envelope exactly as the services do (contracts/envelope/envelope.ts), records what
 * reached it, and answers 200. It stands in for the services on purpose: the properties are about the
 * edge's own logic (what it refuses, what it forwards and how), not about the services' validation.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EnvelopeVerifier, type EnvelopeVerifyResult } from '../../../../contracts/envelope/envelope.js';
import { staticKeySource } from '../../../../contracts/envelope/signing-keys.js';

export interface ReceivedRequest {
  /** `x-request-id`: the API Gateway request id the proxy forwarded (regional id for aggregate calls). */
  requestId: string | undefined;
  method: string;
  /** The request target exactly as received (what the envelope signs). */
  target: string;
  headers: IncomingHttpHeaders;
  /** Name/value pairs as received (Node's parsed headers cannot hold a header named `__proto__`). */
  rawHeaders: string[];
  body: Buffer;
  envelope: EnvelopeVerifyResult;
}

export interface RecordingBackend {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Every request that reached the backend, in arrival order. */
  readonly received: ReceivedRequest[];
  close(): Promise<void>;
}

/** Every value the backend received for a header name (any letter case), in order. */
export function headerValues(request: ReceivedRequest | undefined, name: string): string[] {
  const raw = request?.rawHeaders ?? [];
  return raw.filter((_, i) => i % 2 === 1 && raw[i - 1]?.toLowerCase() === name.toLowerCase());
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startRecordingBackend(signingKey: string): Promise<RecordingBackend> {
  const verifier = new EnvelopeVerifier({ keys: staticKeySource({ current: signingKey }) });
  const received: ReceivedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = req.url ?? '/';
      const method = req.method ?? 'GET';
      void verifier.verify({ method, target, headers: req.headers, body }).then((envelope) => {
        const requestId = req.headers['x-request-id'];
        received.push({
          requestId: typeof requestId === 'string' ? requestId : undefined,
          method,
          target,
          headers: req.headers,
          rawHeaders: req.rawHeaders,
          body,
          envelope,
        });
        if (!envelope.ok) return send(res, 403, { detail: 'Forbidden' });
        // The regional health route answers a health body, so aggregate health reads as healthy.
        if (target.split('?')[0] === '/api/v1/health') return send(res, 200, { status: 'healthy' });
        send(res, 200, { recorded: true });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
