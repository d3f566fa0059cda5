/**
 * The floor for bench/inference-proxy.ts: the least a Node process can do to relay the model server's
 * answer — a bare `node:http` server and one kept-alive undici Client (TLS verified against the same CA),
 * status, headers and body passed through, no routing, no envelope, no metrics, no log. Measured the same
 * way as the proxy, it shows how much of the proxy's CPU per request is Node's HTTP server and undici
 * themselves rather than the proxy's own work. Prints `{"port":N}` once ready.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, type Dispatcher } from 'undici';

const required = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is required`);
  return value;
};

const client = new Client(`https://127.0.0.1:${required('BENCH_MODEL_PORT')}`, {
  connect: { ca: readFileSync(required('BENCH_CA_FILE')), rejectUnauthorized: true },
  pipelining: 1,
  keepAliveTimeout: 4_000,
});

const server = createServer((req, res) => {
  const handler: Dispatcher.DispatchHandler = {
    onRequestStart: () => undefined,
    onResponseStart: (controller, statusCode) => {
      const raw = Array.isArray(controller.rawHeaders) ? controller.rawHeaders : [];
      const headers: string[] = [];
      for (let i = 0; i + 1 < raw.length; i += 2) {
        const name = String(raw[i]);
        const lower = name.toLowerCase();
        if (lower !== 'connection' && lower !== 'keep-alive') headers.push(name, String(raw[i + 1]));
      }
      res.writeHead(statusCode, headers);
    },
    onResponseData: (_controller, chunk: Buffer) => void res.write(chunk),
    onResponseEnd: () => void res.end(),
    onResponseError: () => void res.destroy(),
  };
  client.dispatch(
    { method: 'GET', path: (req.url ?? '/').replace(/^\/inference\/[^/]+/, ''), headers: {} },
    handler,
  );
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  void client.destroy();
});
