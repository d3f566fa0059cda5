/** Starts a service from its environment: host/port, then graceful shutdown on SIGTERM/SIGINT. */
import { errorMessage } from '../../contracts/runtime/errors.js';
import { X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { EnvReader } from '../../contracts/env/reader.js';
import { applyListenerDeadlines } from '../../contracts/http/listener-deadlines.js';
import { answerClientError } from './client-error.js';
import type { Service } from './service.js';
import { onShutdownSignals, type ShutdownOptions } from './shutdown.js';
import type { TlsMaterial } from './tls-secret.js';

/**
 * How often a listener whose TLS material can change (TLS_SECRET_ARN) re-reads it. The regional stack
 * renews the certificate 30 days before its end, so a few hours is ample; a failed read keeps the current
 * certificate and tries again next time.
 */
const DEFAULT_TLS_RELOAD_INTERVAL_SECONDS = 6 * 3600;

export interface HttpsListenOptions {
  readonly host: string;
  readonly port: number;
  /** Re-read `tls.reload` this often (when the material has a reload); default 6 h. */
  readonly tlsReloadIntervalMs?: number;
}

/**
 * Serves the service's routes over HTTPS (TLS 1.2+) on a server of our own, so every service gets the
 * same listener — TLS and the service's deadlines (keep-alive beyond the ALB's idle timeout, head and
 * request deadlines; docs/timeouts.md) — whatever its factory accepts. Resolves once listening.
 */
export async function serveHttps(
  service: Service,
  tls: Pick<TlsMaterial, 'cert' | 'key' | 'reload'>,
  opts: HttpsListenOptions,
): Promise<Server> {
  await service.app.ready();
  const server = createServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, (req, res) =>
    service.app.routing(req, res),
  );
  applyListenerDeadlines(server, service.deadlines);
  // Requests the HTTP parser refuses get the same small JSON answer as on Fastify's own listener.
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  if (tls.reload) {
    reloadPeriodically(server, service, tls.cert, tls.reload, opts.tlsReloadIntervalMs);
  }
  return server;
}

/**
 * Swaps a renewed certificate into the running listener (new handshakes use it; open connections keep
 * theirs), so a renewal never needs a pod restart. Stops when the server closes.
 */
function reloadPeriodically(
  server: Server,
  service: Service,
  initial: string | Buffer,
  reload: () => Promise<TlsMaterial>,
  intervalMs = DEFAULT_TLS_RELOAD_INTERVAL_SECONDS * 1000,
): void {
  let current = String(initial);
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    reload()
      .then((next) => {
        if (String(next.cert) === current) return;
        server.setSecureContext({ cert: next.cert, key: next.key, minVersion: 'TLSv1.2' });
        current = String(next.cert);
        service.app.log.info(
          { valid_to: new X509Certificate(next.cert).validTo },
          'TLS certificate reloaded',
        );
      })
      .catch((error: unknown) => {
        // The message names the secret and the problem, never a value (tls-secret.ts).
        service.app.log.warn(
          { error: errorMessage(error) },
          'TLS certificate reload failed; keeping the current certificate',
        );
      })
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  server.once('close', () => clearInterval(timer));
}

/**
 * Stops accepting, lets in-flight requests finish (idle keep-alive sockets are closed as they become
 * idle), then closes the app so its onClose hooks stop background work.
 */
export async function closeHttps(server: Server, service: Service): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const sweep = setInterval(() => server.closeIdleConnections(), 250);
  try {
    server.closeIdleConnections();
    await closed;
  } finally {
    clearInterval(sweep);
  }
  await service.app.close();
}

/** Where and how the service listens: its environment contract (docs/service-framework.md). */
interface ListenConfig {
  host: string;
  port: number;
  tlsReloadIntervalMs: number;
  shutdown: Required<Pick<ShutdownOptions, 'drainMs' | 'timeoutMs'>>;
}

function loadListenConfig(env: NodeJS.ProcessEnv, defaultPort = 8080): ListenConfig {
  const read = new EnvReader(env);
  const config: ListenConfig = {
    host: read.string('HOST', '0.0.0.0'),
    port: read.integer('PORT', defaultPort, { min: 0, max: 65_535 }),
    tlsReloadIntervalMs:
      read.number('TLS_RELOAD_INTERVAL_SECONDS', DEFAULT_TLS_RELOAD_INTERVAL_SECONDS, {
        min: 1,
        max: 86_400,
      }) * 1000,
    shutdown: {
      drainMs: read.integer('SHUTDOWN_DRAIN_MS', 0, { min: 0 }),
      timeoutMs: read.integer('SHUTDOWN_TIMEOUT_MS', 30_000, { min: 0 }),
    },
  };
  read.finish();
  return config;
}

/**
 * Listens as the environment says (HTTPS with the given TLS material, plain HTTP without) and closes
 * gracefully on SIGTERM/SIGINT. `defaultPort` applies when PORT is unset.
 */
export async function listen(
  service: Service,
  env: NodeJS.ProcessEnv = process.env,
  tls?: Pick<TlsMaterial, 'cert' | 'key' | 'reload'>,
  defaultPort?: number,
): Promise<string> {
  const { host, port, tlsReloadIntervalMs, shutdown } = loadListenConfig(env, defaultPort);
  if (tls) {
    const server = await serveHttps(service, tls, { host, port, tlsReloadIntervalMs });
    onShutdownSignals(
      [{ startDraining: () => service.startDraining(), close: () => closeHttps(server, service) }],
      shutdown,
    );
    const address = `https://${host}:${(server.address() as AddressInfo).port}`;
    // The same line Fastify logs for its own listener, so operators and tests see one format.
    service.app.log.info(`Server listening at ${address}`);
    return address;
  }
  const address = await service.app.listen({ port, host });
  onShutdownSignals(
    [{ startDraining: () => service.startDraining(), close: () => service.app.close() }],
    shutdown,
  );
  return address;
}
