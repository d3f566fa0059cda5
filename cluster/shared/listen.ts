/** Starts a service from its environment: host/port, then graceful shutdown on SIGTERM/SIGINT. */
import type { Service } from './service.js';
import { onShutdownSignals } from './shutdown.js';

export async function listen(service: Service, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const port = Number(env.PORT ?? 8080);
  const host = env.HOST ?? '0.0.0.0';
  const address = await service.app.listen({ port, host });
  onShutdownSignals([{ startDraining: () => service.startDraining(), close: () => service.app.close() }]);
  return address;
}
