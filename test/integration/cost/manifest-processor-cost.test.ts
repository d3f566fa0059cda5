/**
 * manifest-processor's /api/v1/cost routes in front of a real cost-monitor over TLS (a throw-away CA):
 * signed requests pass, unsigned ones are refused, the certificate is verified, and cost-monitor being
 * down, untrusted or silent maps to 502/502/504.
 */
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import {
  COST_PREFIX,
  CostMonitorClient,
  costRoutes,
} from '../../../cluster/manifest-processor/src/cost/index.js';
import type { Service } from '../../../cluster/shared/service.js';
import { signEnvelope } from '../../../contracts/envelope/envelope.js';
import { createLocalCa, type LocalCa } from '../../../local/tls.js';
import { KEY } from '../../support/cluster-fixtures.js';
import { startPluginService, type PluginService } from '../../support/plugin-service.js';
import { waitFor } from '../../support/wait-for.js';
import { startCostEnv, TestClock, type CostEnv, type Reply, type RunningMonitor } from './harness.js';

let env: CostEnv;
let ca: LocalCa;
let costMonitor: RunningMonitor;
const fronts: Service[] = [];

/** A manifest-processor stand-in: the framework with envelope verification and only the cost routes. */
async function startFront(client: CostMonitorClient): Promise<PluginService> {
  const front = await startPluginService({
    description: 'cost routes under test',
    routes: async (app) => {
      await app.register(costRoutes, { prefix: COST_PREFIX, client });
    },
  });
  fronts.push(front.service);
  return front;
}

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  opts: { sign?: boolean } = {},
): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const signed =
    opts.sign === false
      ? {}
      : signEnvelope({ key: KEY, method, target: path, ...(payload === undefined ? {} : { body: payload }) });
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...signed, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(payload === undefined ? {} : { body: payload }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
}

let front: PluginService;
const clock = new TestClock(new Date('2024-05-01T10:07:30Z'));

beforeAll(async () => {
  env = await startCostEnv();
  ca = createLocalCa('cluster internal CA (test)');
  costMonitor = await env.startMonitor({
    clock,
    config: { region: 'tls-1' },
    https: ca.issue(['127.0.0.1', 'cost-monitor']),
  });
  front = await startFront(
    new CostMonitorClient({ baseUrl: costMonitor.base, ca: ca.cert, timeoutMs: 5_000 }),
  );
});

afterAll(async () => {
  for (const s of fronts) await s.app.close();
  await env?.close();
});

describe('through verified TLS with signed requests', () => {
  test('cost-monitor itself serves HTTPS only', async () => {
    expect(costMonitor.base).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    await expect(fetch(`${costMonitor.base.replace('https:', 'http:')}/healthz`)).rejects.toThrow();
  });

  test('GET /api/v1/cost/status → 200 with the cost-data source health', async () => {
    const res = await call(front.base, 'GET', '/api/v1/cost/status');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      service: 'cost-monitor',
      region: 'tls-1',
      cost_data_source: { type: 'opencost', healthy: true, probe: { data_returned: true } },
      scheduler: { running: true },
    });
  });

  test('POST /api/v1/cost/reports → 200 with the generated report (rows on request)', async () => {
    let res = await call(front.base, 'POST', '/api/v1/cost/reports', { window_hours: 3, include_rows: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      kind: 'adhoc',
      region: 'tls-1',
      window: { start: '2024-05-01T07:07:00Z', end: '2024-05-01T10:07:00Z', hours: 3 },
      row_count: 6,
    });
    expect(res.body.rows).toHaveLength(6);
    clock.set('2024-05-01T10:08:00Z');
    res = await call(front.base, 'POST', '/api/v1/cost/reports', {});
    expect(res.status).toBe(200);
    expect(res.body.window).toEqual({
      start: '2024-04-30T10:08:00Z',
      end: '2024-05-01T10:08:00Z',
      hours: 24,
    });
    expect(res.body.rows).toBeUndefined();
  });

  test('GET /api/v1/cost/reports lists ad-hoc or scheduled reports, newest first', async () => {
    let res = await call(front.base, 'GET', '/api/v1/cost/reports?adhoc=true&limit=1');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'adhoc', count: 1 });
    expect(res.body.reports[0].window.hours).toBe(24);
    res = await call(front.base, 'GET', '/api/v1/cost/reports?adhoc=true');
    expect(res.body.reports.map((r: { window: { hours: number } }) => r.window.hours)).toEqual([24, 3]);
    // The scheduled task of this cost-monitor wrote the last completed hour.
    await waitFor(() => costMonitor.monitor.scheduler.status().last_written !== null);
    res = await call(front.base, 'GET', '/api/v1/cost/reports');
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('scheduled');
    expect(res.body.reports.map((r: { window: { start: string } }) => r.window.start)).toEqual([
      '2024-05-01T09:00:00Z',
    ]);
  });

  test('forwards path, query, body and the request id to cost-monitor, never the envelope headers', async () => {
    const seen: { method?: string; url?: string; headers?: Record<string, unknown>; body?: string }[] = [];
    const capture = createHttpsServer(ca.issue(['127.0.0.1']), (req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true }));
      });
    });
    await new Promise<void>((resolve) => capture.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = capture.address() as AddressInfo;
      const f = await startFront(
        new CostMonitorClient({ baseUrl: `https://127.0.0.1:${port}`, ca: ca.cert }),
      );
      const list = await fetch(`${f.base}/api/v1/cost/reports?adhoc=true&limit=7`, {
        headers: {
          ...signEnvelope({ key: KEY, method: 'GET', target: '/api/v1/cost/reports?adhoc=true&limit=7' }),
          'x-request-id': 'trace-42',
        },
      });
      expect(list.status).toBe(200);
      expect(await list.json()).toEqual({ ok: true });
      const post = await call(f.base, 'POST', '/api/v1/cost/reports', { window_hours: 5 });
      expect(post).toEqual({ status: 200, body: { ok: true } });
      await call(f.base, 'GET', '/api/v1/cost/status');

      expect(seen.map((r) => `${r.method} ${r.url}`)).toEqual([
        'GET /internal/reports?adhoc=true&limit=7',
        'POST /internal/reports',
        'GET /internal/status',
      ]);
      expect(seen[0]!.headers!['x-request-id']).toBe('trace-42');
      // Defaults are applied at the front, so cost-monitor receives the complete request.
      expect(JSON.parse(seen[1]!.body!)).toEqual({ window_hours: 5, include_rows: false });
      for (const r of seen) expect(Object.keys(r.headers!).filter((h) => h.startsWith('x-svc-'))).toEqual([]);
    } finally {
      capture.closeAllConnections();
      await new Promise<void>((resolve) => capture.close(() => resolve()));
    }
  });

  test('unsigned or badly signed requests → 403 on every cost route', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/cost/reports'],
      ['POST', '/api/v1/cost/reports'],
      ['GET', '/api/v1/cost/status'],
    ] as const) {
      const body = method === 'POST' ? {} : undefined;
      const res = await call(front.base, method, path, body, { sign: false });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ detail: 'Forbidden' });
    }
    const forged = await fetch(`${front.base}/api/v1/cost/status`, {
      headers: signEnvelope({ key: 'not-the-key', method: 'GET', target: '/api/v1/cost/status' }),
    });
    expect(forged.status).toBe(403);
  });

  test.each([
    ['GET', '/api/v1/cost/reports?limit=0', undefined, ['query', 'limit']],
    ['GET', '/api/v1/cost/reports?limit=1001', undefined, ['query', 'limit']],
    ['GET', '/api/v1/cost/reports?adhoc=maybe', undefined, ['query', 'adhoc']],
    ['POST', '/api/v1/cost/reports', { window_hours: 0 }, ['body', 'window_hours']],
    ['POST', '/api/v1/cost/reports', { window_hours: 169 }, ['body', 'window_hours']],
  ])('%s %s %j → 422 at the front', async (method, path, body, loc) => {
    const res = await call(front.base, method, path, body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ loc })]);
  });

  test('the OpenAPI document carries the seed operation ids', async () => {
    const res = await call(front.base, 'GET', '/openapi.json');
    const paths = res.body.paths;
    expect(paths['/api/v1/cost/reports'].get.operationId).toBe('list_cost_reports_api_v1_cost_reports_get');
    expect(paths['/api/v1/cost/reports'].post.operationId).toBe(
      'generate_cost_report_api_v1_cost_reports_post',
    );
    expect(paths['/api/v1/cost/status'].get.operationId).toBe('get_cost_status_api_v1_cost_status_get');
    expect(JSON.stringify(paths['/api/v1/cost/reports'].post)).toContain('CostReportRequest');
  });

  test('a cost-monitor error (its data source down) → 502 carrying its reason', async () => {
    env.opencost.mode = 'http-error';
    try {
      const res = await call(front.base, 'POST', '/api/v1/cost/reports', {});
      expect(res.status).toBe(502);
      expect(res.body.detail).toMatch(
        /^cost-monitor: Cost data source unavailable: OpenCost answered HTTP 500/,
      );
    } finally {
      env.opencost.mode = 'ok';
    }
  });
});

describe('failures of the hop', () => {
  test('a certificate from another CA → 502 (verification fails; nothing is sent)', async () => {
    const other = createLocalCa('some other CA');
    const before = env.opencost.requests.length;
    const f = await startFront(
      new CostMonitorClient({ baseUrl: costMonitor.base, ca: other.cert, timeoutMs: 5_000 }),
    );
    const res = await call(f.base, 'POST', '/api/v1/cost/reports', {});
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ detail: 'cost-monitor unavailable' });
    expect(env.opencost.requests.length).toBe(before);
  });

  test('a certificate for another name → 502', async () => {
    const f = await startFront(
      new CostMonitorClient({
        baseUrl: costMonitor.base,
        ca: ca.cert,
        servername: 'not-cost-monitor',
        timeoutMs: 5_000,
      }),
    );
    const res = await call(f.base, 'GET', '/api/v1/cost/status');
    expect(res.status).toBe(502);
  });

  test('the certificate name is checked against COST_MONITOR_SERVERNAME when it differs from the host', async () => {
    const f = await startFront(
      new CostMonitorClient({
        baseUrl: costMonitor.base,
        ca: ca.cert,
        servername: 'cost-monitor',
        timeoutMs: 5_000,
      }),
    );
    expect((await call(f.base, 'GET', '/api/v1/cost/status')).status).toBe(200);
  });

  test('cost-monitor down (connection refused) → 502', async () => {
    const server = createHttpsServer(ca.issue(['127.0.0.1']));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const f = await startFront(new CostMonitorClient({ baseUrl: `https://127.0.0.1:${port}`, ca: ca.cert }));
    const res = await call(f.base, 'GET', '/api/v1/cost/reports');
    expect(res.status).toBe(502);
    expect(res.body).toEqual({ detail: 'cost-monitor unavailable' });
  });

  test('cost-monitor not answering in time → 504', async () => {
    let silent: HttpsServer | undefined;
    try {
      silent = createHttpsServer(ca.issue(['127.0.0.1']), () => undefined); // accepts, never answers
      await new Promise<void>((resolve) => silent!.listen(0, '127.0.0.1', resolve));
      const { port } = silent.address() as AddressInfo;
      const f = await startFront(
        new CostMonitorClient({ baseUrl: `https://127.0.0.1:${port}`, ca: ca.cert, timeoutMs: 300 }),
      );
      const started = Date.now();
      const res = await call(f.base, 'GET', '/api/v1/cost/status');
      expect(res.status).toBe(504);
      expect(res.body).toEqual({ detail: 'cost-monitor did not answer in time' });
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      silent?.closeAllConnections();
      await new Promise<void>((resolve) => (silent ? silent.close(() => resolve()) : resolve()));
    }
  });

  test('cost-monitor answering something that is not JSON → 502', async () => {
    const odd = createHttpsServer(ca.issue(['127.0.0.1']), (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>hello</html>');
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = odd.address() as AddressInfo;
      const f = await startFront(
        new CostMonitorClient({ baseUrl: `https://127.0.0.1:${port}`, ca: ca.cert }),
      );
      const res = await call(f.base, 'GET', '/api/v1/cost/status');
      expect(res.status).toBe(502);
    } finally {
      odd.closeAllConnections();
      await new Promise<void>((resolve) => odd.close(() => resolve()));
    }
  });

  test('the client refuses plain HTTP and an empty CA', () => {
    expect(() => new CostMonitorClient({ baseUrl: 'http://cost-monitor:8443', ca: ca.cert })).toThrow(
      /must be https/,
    );
    expect(() => new CostMonitorClient({ baseUrl: 'https://cost-monitor:8443', ca: '' })).toThrow(
      /CA bundle/,
    );
  });
});
