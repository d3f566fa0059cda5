/**
 * A service container's entry point: TLS material, the service built from the environment by its
 * createXxxFromEnv(), then the listener with graceful shutdown. A startup failure is one clear JSON log
 * line and exit code 1, never a raw stack.
 */
import { errorMessage } from '../../contracts/runtime/errors.js';
import { listen } from './listen.js';
import type { Service } from './service.js';
import { loadTls } from './tls-secret.js';

export interface ServiceEntry {
  name: string;
  create: (env: NodeJS.ProcessEnv) => Promise<Service>;
  /** Port when PORT is unset and the service terminates TLS itself (cost-monitor: 8443); 8080 otherwise. */
  tlsPort?: number;
}

export async function runService(entry: ServiceEntry, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  try {
    const tls = await loadTls(env);
    const service = await entry.create(env);
    await listen(service, env, tls, tls ? entry.tlsPort : undefined);
  } catch (error) {
    const message = errorMessage(error);
    process.stderr.write(
      `${JSON.stringify({ level: 'fatal', service: entry.name, message: `startup failed: ${message}` })}\n`,
    );
    process.exit(1);
  }
}
