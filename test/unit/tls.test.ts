import { once } from 'node:events';
import { request, createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createLocalCa } from '../../local/tls.js';

function get(port: number, ca: string, servername?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/', ca, ...(servername ? { servername } : {}) },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.once('error', reject);
    req.end();
  });
}

test('a throw-away CA issues server certificates that verify, by IP and by SNI name', async () => {
  const ca = createLocalCa();
  const { key, cert } = ca.issue(['backend.gco.gco.internal', '127.0.0.1']);
  const server = createServer({ key, cert }, (_req, res) => res.end('ok'));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  try {
    expect(await get(port, ca.cert)).toBe(200);
    expect(await get(port, ca.cert, 'backend.gco.gco.internal')).toBe(200);
    await expect(get(port, ca.cert, 'other.example.com')).rejects.toThrow(/altnames|Hostname/i);
    await expect(get(port, createLocalCa().cert)).rejects.toThrow(/certificate/i);
  } finally {
    server.close();
  }
});
