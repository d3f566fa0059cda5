/**
 * Shell completion when the platform cannot answer: `gco completion __names` (what the completion script
 * runs on Tab) sends each request once — no retry, no backoff — prints nothing and exits 0. The real
 * executable against loopback TCP servers that count the connections made to them and fail each one
 * (reset, 503, silence); an ordinary command against the same server shows the counter does see retries.
 * No wall-clock assertion: the counts are the evidence that nothing waits for a second attempt.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from '@jest/globals';
import { DEFAULT_RETRY_POLICY } from '../../../cli/retry.js';
import { gco } from './support/gco-process.js';

/** Credentials for SigV4 (never checked: no server here answers with anything but a failure). */
const AWS_ENV = { AWS_ACCESS_KEY_ID: 'AKIACOMPLETIONTEST01', AWS_SECRET_ACCESS_KEY: 'completion-secret' };

interface CountingServer {
  readonly url: string;
  /** Connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

const open: Server[] = [];
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await Promise.all(open.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

/** A TCP server that counts connections and treats each as `behaviour` says. */
async function countingServer(behaviour: 'reset' | '503' | 'silent'): Promise<CountingServer> {
  const counter = { connections: 0 };
  const server = createServer((socket) => {
    counter.connections++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    if (behaviour === 'reset') {
      socket.resetAndDestroy();
    } else if (behaviour === '503') {
      socket.once('data', () =>
        socket.end(
          'HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}',
        ),
      );
    }
    // 'silent': accepted and never answered.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push(server);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get connections() {
      return counter.connections;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const names = (apiUrl: string, resource = 'job') =>
  gco(['--api-url', apiUrl, 'completion', '__names', resource], { env: AWS_ENV });

describe('completion names offline: one attempt, silent, exit 0', () => {
  test.each(['reset', '503'] as const)(
    'a server that answers each connection with a %s is asked once',
    async (behaviour) => {
      const server = await countingServer(behaviour);
      expect(await names(server.url)).toEqual({ code: 0, stdout: '', stderr: '' });
      expect(server.connections).toBe(1);
    },
  );

  test('a server that never answers: the budget ends the lookup, once, silently', async () => {
    const server = await countingServer('silent');
    expect(await names(server.url, 'endpoint')).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(server.connections).toBe(1);
  });

  test('discovery through CloudFormation is attempted once too', async () => {
    const cloudformation = await countingServer('reset');
    const result = await gco(['completion', '__names', 'template'], {
      env: { ...AWS_ENV, AWS_ENDPOINT_URL_CLOUDFORMATION: cloudformation.url },
    });
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(cloudformation.connections).toBe(1);
  });

  test('an ordinary command against the same server is retried (the counter sees every attempt)', async () => {
    const server = await countingServer('reset');
    const result = await gco(['--api-url', server.url, 'jobs', 'list'], { env: AWS_ENV });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^gco: Could not reach the global API at http:\/\/127\.0\.0\.1:\d+: ECONNRESET/,
    );
    expect(server.connections).toBe(DEFAULT_RETRY_POLICY.maxAttempts);
  });
});
