/**
 * CloudWatch Logs on 127.0.0.1 for the EMF publisher's tests: a real HTTP server that records every
 * request of the real SDK client (JSON 1.1 protocol, SigV4) and answers as the test says.
 */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';

export interface Received {
  target: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface Reply {
  status: number;
  /** `__type` of a JSON 1.1 error (also sent as x-amzn-errortype). */
  error?: string;
  body?: Record<string, unknown>;
}

export const SECRET_ACCESS_KEY = 'test-secret-key-never-logged';

/** CloudWatch Logs on 127.0.0.1: records every request and answers as `reply` says (default: success). */
export async function startFakeLogs(reply: (target: string) => Reply = () => ({ status: 200 })) {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '').replace('Logs_20140328.', '');
      received.push({
        target,
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>,
      });
      const answer = reply(target);
      const body = answer.error
        ? { __type: answer.error, message: `${answer.error} from the fake` }
        : (answer.body ?? {});
      res.writeHead(answer.status, {
        'content-type': 'application/x-amz-json-1.1',
        ...(answer.error ? { 'x-amzn-errortype': answer.error } : {}),
      });
      res.end(JSON.stringify(body));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const client = new CloudWatchLogsClient({
    region: 'eu-west-1',
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: SECRET_ACCESS_KEY },
    maxAttempts: 1,
  });
  return {
    received,
    client,
    endpoint: `http://127.0.0.1:${port}`,
    targets: () => received.map((r) => r.target),
    async close() {
      client.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** The EMF documents of one PutLogEvents request, parsed. */
export const emfMessagesOf = (request: Received): unknown[] =>
  (request.body.logEvents as { message: string }[]).map((e) => JSON.parse(e.message));
