/**
 * Model servers that fail: refused, reset, a certificate the internal CA did not issue or issued for
 * another name (502), and one that never answers (504 after the configured header timeout).
 */
import { createServer as createTcpServer, type Socket } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createLocalCa } from '../../../local/tls.js';
import {
  closedPort,
  endpointRecord,
  send,
  startModelServer,
  startProxy,
  testCa,
  type ProxyHarness,
} from './harness.js';
import { waitFor } from '../../support/wait-for.js';
import { StaticEndpointSource } from '../../../cluster/inference-proxy/src/store.js';

describe('inference-proxy upstream failures', () => {
  const endpoints = new StaticEndpointSource();
  let proxy: ProxyHarness;

  beforeAll(async () => {
    testCa();
    proxy = await startProxy({ endpoints });
  });

  afterAll(async () => {
    await proxy.close();
  });

  const detail = (text: string) => (JSON.parse(text) as { detail: string }).detail;

  test('connection refused is 502', async () => {
    endpoints.put(endpointRecord('refused', await closedPort()));
    const res = await send(proxy.base, '/inference/refused/v1/completions');
    expect(res.status).toBe(502);
    expect(detail(res.text)).toBe("Inference endpoint 'refused' is unreachable (connection refused)");
    expect(res.headers['x-gco-inference-target']).toBe('primary');
  });

  test('a canary promoted away while its record is cached: the request goes once to the current primary', async () => {
    const model = await startModelServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"text":"ok"}');
    });
    try {
      const gone = await closedPort();
      const path = '/inference/promoted/v1/completions';
      const post = {
        method: 'POST',
        body: '{"prompt":"a"}',
        headers: { 'content-type': 'application/json' },
      };
      endpoints.put(
        endpointRecord('promoted', model.port, { canary: { service: '127.0.0.1', port: gone, weight: 100 } }),
      );
      // The canary refuses and the record still names it: the answer is the 502 (nothing is sent twice).
      const refused = await send(proxy.base, path, post);
      expect([refused.status, refused.headers['x-gco-inference-target']]).toEqual([502, 'canary']);
      expect(model.seen).toHaveLength(0);

      // Promoted: the store drops the canary while the proxy still caches the record that names it.
      endpoints.put(endpointRecord('promoted', model.port));
      const res = await send(proxy.base, path, post);
      expect([res.status, res.headers['x-gco-inference-target'], res.text]).toEqual([
        200,
        'primary',
        '{"text":"ok"}',
      ]);
      expect(model.seen.map((seen) => seen.body.toString())).toEqual(['{"prompt":"a"}']);
    } finally {
      await model.close();
    }
  });

  test('a model server that resets the connection after reading the request is 502', async () => {
    const model = await startModelServer((req) => {
      req.socket.destroy();
    });
    try {
      endpoints.put(endpointRecord('reset', model.port));
      const res = await send(proxy.base, '/inference/reset/generate', { method: 'POST', body: '{}' });
      expect(res.status).toBe(502);
      expect(detail(res.text)).toBe("Inference endpoint 'reset' is unreachable (connection reset)");
    } finally {
      await model.close();
    }
  });

  test('a TCP server that resets during the TLS handshake is 502', async () => {
    const server = createTcpServer((socket: Socket) => socket.resetAndDestroy());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      endpoints.put(endpointRecord('rst', (server.address() as AddressInfo).port));
      const res = await send(proxy.base, '/inference/rst/generate');
      expect(res.status).toBe(502);
      expect(detail(res.text)).toMatch(/^Inference endpoint 'rst' is unreachable \(/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test('a certificate from another CA is 502 and the request never reaches the handler', async () => {
    const rogue = createLocalCa('rogue CA').issue(['127.0.0.1', 'model.svc']);
    const model = await startModelServer(() => undefined, rogue);
    try {
      endpoints.put(endpointRecord('wrong-ca', model.port));
      const res = await send(proxy.base, '/inference/wrong-ca/generate');
      expect(res.status).toBe(502);
      expect(detail(res.text)).toBe("Inference endpoint 'wrong-ca' is unreachable (TLS verification failed)");
      expect(model.seen).toHaveLength(0);
    } finally {
      await model.close();
    }
  });

  test('a certificate for another name is 502', async () => {
    const other = testCa().ca.issue(['other.svc']);
    const model = await startModelServer(() => undefined, other);
    try {
      endpoints.put(endpointRecord('wrong-name', model.port));
      const res = await send(proxy.base, '/inference/wrong-name/generate');
      expect(res.status).toBe(502);
      expect(detail(res.text)).toBe(
        "Inference endpoint 'wrong-name' is unreachable (TLS verification failed)",
      );
      expect(model.seen).toHaveLength(0);
    } finally {
      await model.close();
    }
  });

  test('a model server that never answers is 504 after the header timeout, and is hung up on', async () => {
    const model = await startModelServer(() => undefined);
    const strict = await startProxy({ endpoints, config: { upstreamTimeoutMs: 300 } });
    try {
      endpoints.put(endpointRecord('silent', model.port));
      const res = await send(strict.base, '/inference/silent/v1/completions', { method: 'POST', body: '{}' });
      expect(res.status).toBe(504);
      expect(detail(res.text)).toBe("Inference endpoint 'silent' did not answer within 300 ms");
      expect(res.headers['x-gco-inference-target']).toBe('primary');
      expect(model.seen).toHaveLength(1);
      await waitFor(() => model.aborted.length === 1);
    } finally {
      await strict.close();
      await model.close();
    }
  });

  test('an answer that starts before the header timeout streams on past it', async () => {
    const model = await startModelServer(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < 4; i++) {
        res.write(`data: ${i}\n\n`);
        await new Promise((r) => setTimeout(r, 500)); // 2 s in all, twice the header timeout
      }
      res.end();
    });
    const strict = await startProxy({ endpoints, config: { upstreamTimeoutMs: 1000 } });
    try {
      endpoints.put(endpointRecord('long', model.port));
      const res = await send(strict.base, '/inference/long/v1/completions', { method: 'POST', body: '{}' });
      expect(res.status).toBe(200);
      expect(res.text).toBe('data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\n');
    } finally {
      await strict.close();
      await model.close();
    }
  });

  test('a pooled connection the model server dropped is retried once on a fresh connection', async () => {
    const perSocket = new WeakMap<object, number>();
    const model = await startModelServer((req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      // The second request on a kept-alive connection finds it closed, as after a server's idle timeout.
      if (n > 1) {
        req.socket.destroy();
        return;
      }
      res.end('ok');
    });
    try {
      endpoints.put(endpointRecord('pooled', model.port));
      expect((await send(proxy.base, '/inference/pooled/generate')).text).toBe('ok');
      const again = await send(proxy.base, '/inference/pooled/generate');
      expect(again.status).toBe(200);
      expect(again.text).toBe('ok');
      expect(model.seen).toHaveLength(3);
    } finally {
      await model.close();
    }
  });
});
