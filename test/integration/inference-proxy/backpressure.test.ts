/**
 * The relay under a client that does not keep up: the proxy stops reading the model server instead of
 * buffering its answer (the caller's socket holds at most about RELAY_BUFFER_LIMIT plus one read), the
 * stream resumes intact once the client reads again, and a client that hangs up while the relay is paused
 * still takes the upstream request down. Also: a burst of small events that arrives in one read is relayed
 * complete and in order. No wall-clock budgets: only byte counts, order and content.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { RELAY_BUFFER_LIMIT } from '../../../cluster/inference-proxy/src/relay.js';
import { StaticEndpointSource } from '../../../cluster/inference-proxy/src/store.js';
import { signEnvelope } from '../../../contracts/envelope/envelope.js';
import { KEY } from '../../support/cluster-fixtures.js';
import { waitFor } from '../../support/wait-for.js';
import type { ModelServer, ProxyHarness } from './harness.js';
import { endpointRecord, send, startModelServer, startProxy, testCa } from './harness.js';

const CHUNK = 64 * 1024;
const TOTAL = 64 * 1024 * 1024;
const BURST_EVENTS = 2_000;

/** What the model server's bulk stream has done so far. */
interface Pump {
  written: number;
  waitingForDrain: boolean;
  hash: ReturnType<typeof createHash>;
}

describe('inference-proxy relay backpressure', () => {
  let model: ModelServer;
  let proxy: ProxyHarness;
  let pump: Pump;
  /** The proxy's responses to its callers, as its HTTP server created them. */
  let responses: ServerResponse[];

  beforeAll(async () => {
    testCa();
    model = await startModelServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path === '/v1/models/burst') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // All in one go: they reach the proxy in a few socket reads, many events per read.
        for (let i = 0; i < BURST_EVENTS; i++) res.write(`data: {"token":${i}}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const p = pump;
      let index = 0;
      const next = (): void => {
        p.waitingForDrain = false;
        while (p.written < TOTAL) {
          const chunk = Buffer.alloc(CHUNK, index++ % 251);
          p.hash.update(chunk);
          p.written += chunk.length;
          if (!res.write(chunk)) {
            p.waitingForDrain = true;
            res.once('drain', next);
            return;
          }
        }
        res.end();
      };
      next();
    });
    proxy = await startProxy({ endpoints: new StaticEndpointSource([endpointRecord('bulk', model.port)]) });
    proxy.proxy.app.server.on('request', (_req: IncomingMessage, res: ServerResponse) => responses.push(res));
  });

  afterAll(async () => {
    await proxy.close();
    await model.close();
  });

  beforeEach(() => {
    pump = { written: 0, waitingForDrain: false, hash: createHash('sha256') };
    responses = [];
  });

  /** Starts a bulk download and leaves the response unread (paused) until the test reads it. */
  async function startSlowDownload(): Promise<{ req: ClientRequest; res: IncomingMessage }> {
    const target = '/inference/bulk/v1/models/bulk';
    const url = new URL(proxy.base);
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path: target,
      headers: signEnvelope({ key: KEY, method: 'GET', target }),
      agent: false,
    });
    req.end();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    res.pause();
    return { req, res };
  }

  /** Waits until the model server has been blocked on 'drain' without progress for several polls. */
  async function waitForStall(): Promise<void> {
    let last = -1;
    let still = 0;
    await waitFor(() => {
      still = pump.waitingForDrain && pump.written === last ? still + 1 : 0;
      last = pump.written;
      return still >= 8;
    }, 30_000);
  }

  test('a client that does not read makes the proxy stop reading the model, not buffer its answer', async () => {
    const { res } = await startSlowDownload();
    await waitForStall();
    // The model could not send everything: the proxy stopped pulling while its caller was not reading.
    expect(pump.written).toBeLessThan(TOTAL);
    // What the proxy itself holds for the caller is bounded by the relay limit (plus one read).
    const held = responses.map((r) => r.socket?.writableLength ?? 0);
    expect(held).toHaveLength(1);
    expect(held[0]).toBeLessThanOrEqual(RELAY_BUFFER_LIMIT + CHUNK);

    // Reading again resumes the stream: every byte arrives, in order.
    const received = createHash('sha256');
    let bytes = 0;
    res.on('data', (chunk: Buffer) => {
      received.update(chunk);
      bytes += chunk.length;
    });
    res.resume();
    await once(res, 'end');
    expect(bytes).toBe(TOTAL);
    expect(received.digest('hex')).toBe(pump.hash.digest('hex'));
  });

  test('a client that hangs up while the relay is paused closes the model server request', async () => {
    const abortedBefore = model.aborted.length;
    const { req } = await startSlowDownload();
    await waitForStall();
    req.destroy();
    await waitFor(() => model.aborted.length === abortedBefore + 1);
    expect(model.aborted.at(-1)?.url).toBe('/v1/models/bulk');
  });

  test('a burst of small events that arrives in few reads is relayed complete and in order', async () => {
    const res = await send(proxy.base, '/inference/bulk/v1/models/burst');
    expect(res.status).toBe(200);
    const expected =
      Array.from({ length: BURST_EVENTS }, (_, i) => `data: {"token":${i}}\n\n`).join('') +
      'data: [DONE]\n\n';
    expect(res.text).toBe(expected);
  });
});
