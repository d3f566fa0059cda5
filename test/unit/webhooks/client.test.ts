import type { ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { postWebhook, type Lookup } from '../../../cluster/manifest-processor/src/webhooks/index.js';
import { createLocalCa, type LocalCa } from '../../../local/tls.js';

interface Seen {
  host: string | undefined;
  servername: string | false | null;
  path: string | undefined;
  body: string;
}

describe('webhook HTTP client', () => {
  let ca: LocalCa;
  let server: Server;
  let port: number;
  const seen: Seen[] = [];
  let answer: (res: ServerResponse) => void = (res) => res.end('ok');

  beforeAll(async () => {
    ca = createLocalCa();
    const { key, cert } = ca.issue(['hook.example.test', '127.0.0.1']);
    server = createServer({ key, cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({
          host: req.headers.host,
          servername: (req.socket as TLSSocket).servername,
          path: req.url,
          body: Buffer.concat(chunks).toString(),
        });
        answer(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen.length = 0;
    answer = (res) => res.end('ok');
  });

  const base = { body: '{"a":1}', headers: { 'Content-Type': 'application/json' }, timeoutMs: 3000 };

  test('connects to the vetted address, never asks DNS twice, and keeps SNI/Host = the hostname', async () => {
    let calls = 0;
    // A rebinding resolver: the first answer passes the check, any later one would be internal.
    const lookup: Lookup = async () => {
      calls += 1;
      return [{ address: calls === 1 ? '127.0.0.1' : '10.9.9.9', family: 4 }];
    };
    const result = await postWebhook({
      ...base,
      url: `https://hook.example.test:${port}/path?q=1`,
      allowPrivateTargets: true,
      lookup,
      ca: ca.cert,
    });
    expect(result).toMatchObject({ kind: 'response', statusCode: 200, body: 'ok', address: '127.0.0.1' });
    expect(calls).toBe(1);
    expect(seen).toEqual([
      {
        host: `hook.example.test:${port}`,
        servername: 'hook.example.test',
        path: '/path?q=1',
        body: '{"a":1}',
      },
    ]);
  });

  test('a delivery-time DNS change to a private address is refused before connecting', async () => {
    const lookup: Lookup = async () => [{ address: '10.0.0.7', family: 4 }];
    const result = await postWebhook({
      ...base,
      url: `https://hook.example.test:${port}/`,
      allowPrivateTargets: false,
      lookup,
      ca: ca.cert,
    });
    expect(result).toMatchObject({ kind: 'refused' });
    expect(result.kind === 'refused' && result.error).toMatch(/10\.0\.0\.7, a private address/);
    const loopback = await postWebhook({
      ...base,
      url: `https://hook.example.test:${port}/`,
      allowPrivateTargets: false,
      lookup: async () => [{ address: '::ffff:127.0.0.1', family: 6 }],
      ca: ca.cert,
    });
    expect(loopback.kind).toBe('refused');
    expect(seen).toEqual([]);
  });

  test('an untrusted certificate, a timeout and a refused connection are retryable errors', async () => {
    const untrusted = await postWebhook({
      ...base,
      url: `https://127.0.0.1:${port}/`,
      allowPrivateTargets: true,
    });
    expect(untrusted.kind).toBe('error');
    answer = () => undefined; // never answers
    const slow = await postWebhook({
      ...base,
      timeoutMs: 200,
      url: `https://127.0.0.1:${port}/`,
      allowPrivateTargets: true,
      ca: ca.cert,
    });
    expect(slow).toMatchObject({ kind: 'error', error: expect.stringMatching(/timed out after 200 ms/) });
    const hangingDns = await postWebhook({
      ...base,
      timeoutMs: 150,
      url: 'https://slow-dns.example/',
      allowPrivateTargets: false,
      lookup: () => new Promise(() => undefined),
    });
    expect(hangingDns).toMatchObject({
      kind: 'error',
      error: expect.stringMatching(/slow-dns\.example could not be resolved \(ETIMEOUT\)/),
    });
    const closed = await postWebhook({
      ...base,
      url: 'https://127.0.0.1:1/',
      allowPrivateTargets: true,
      ca: ca.cert,
    });
    expect(closed).toMatchObject({ kind: 'error', error: expect.stringMatching(/ECONNREFUSED/) });
  });

  test('redirects are reported, not followed; long answers are cut short', async () => {
    answer = (res) => {
      res.writeHead(302, { location: 'https://169.254.169.254/' });
      res.end();
    };
    const redirect = await postWebhook({
      ...base,
      url: `https://127.0.0.1:${port}/`,
      allowPrivateTargets: true,
      ca: ca.cert,
    });
    expect(redirect).toMatchObject({ kind: 'response', statusCode: 302 });
    expect(seen).toHaveLength(1);
    answer = (res) => {
      res.writeHead(500);
      res.end('e'.repeat(100_000));
    };
    const long = await postWebhook({
      ...base,
      url: `https://127.0.0.1:${port}/`,
      allowPrivateTargets: true,
      ca: ca.cert,
    });
    expect(long).toMatchObject({ kind: 'response', statusCode: 500 });
    expect(long.kind === 'response' && long.body.length).toBeLessThanOrEqual(1024);
  });
});
