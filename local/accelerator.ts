/**
 * The Global Accelerator hop, locally: a TCP pass-through listener (TLS is not terminated here, it ends
 * at the regional ALB, as with the real accelerator's TCP/443 listener) that sends each connection to
 * the first regional endpoint, in configured order, that accepts it — so a region whose ALB is down is
 * skipped, as the accelerator's health checks would.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface AcceleratorEndpoint {
  region: string;
  host: string;
  port: number;
}

export interface LocalAccelerator {
  readonly port: number;
  close(): Promise<void>;
}

function tryConnect(endpoint: AcceleratorEndpoint): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: endpoint.host, port: endpoint.port });
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', () => resolve(undefined));
  });
}

export async function startAccelerator(opts: {
  endpoints: () => readonly AcceleratorEndpoint[];
  host?: string;
}): Promise<LocalAccelerator> {
  const sockets = new Set<Socket>();
  const server = createServer({ pauseOnConnect: true }, (client) => {
    sockets.add(client);
    client.once('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    void (async () => {
      for (const endpoint of opts.endpoints()) {
        const upstream = await tryConnect(endpoint);
        if (upstream === undefined) continue;
        sockets.add(upstream);
        upstream.once('close', () => sockets.delete(upstream));
        upstream.on('error', () => client.destroy());
        client.once('close', () => upstream.destroy());
        upstream.once('close', () => client.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
        return;
      }
      // No healthy endpoint anywhere: the connection is refused.
      client.destroy();
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, opts.host ?? '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
