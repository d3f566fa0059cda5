/** Starts a service from its environment: host/port, then graceful shutdown on SIGTERM/SIGINT. */
import { readFileSync } from 'node:fs';
import type { Service } from './service.js';
import { onShutdownSignals } from './shutdown.js';

/** TLS material from TLS_CERT_FILE/TLS_KEY_FILE (both or neither), for services that terminate TLS themselves. */
export function tlsFromEnv(env: NodeJS.ProcessEnv = process.env): { key: Buffer; cert: Buffer } | undefined {
  const certFile = env.TLS_CERT_FILE;
  const keyFile = env.TLS_KEY_FILE;
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) throw new Error('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  return { cert: readFileSync(certFile), key: readFileSync(keyFile) };
}

export async function listen(service: Service, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const port = Number(env.PORT ?? 8080);
  const host = env.HOST ?? '0.0.0.0';
  const address = await service.app.listen({ port, host });
  onShutdownSignals([{ startDraining: () => service.startDraining(), close: () => service.app.close() }]);
  return address;
}
