/**
 * cost-monitor on loopback: dynalite (the cost-reports table), s3rver (the report bucket) and the OpenCost
 * fixture, plus monitors started against them with an injected clock.
 */
import {
  createCostMonitor,
  type CostMonitor,
  type CostMonitorDeps,
} from '../../../cluster/cost-monitor/src/app.js';
import type { CostMonitorConfig } from '../../../cluster/cost-monitor/src/config.js';
import { silentServiceLogger } from '../../../cluster/shared/logger.js';
import { startLocalDynamo, type LocalDynamo } from '../../../local/dynamodb.js';
import { startLocalS3, type LocalS3 } from '../../../local/s3.js';
import { TABLES } from '../../../contracts/tables.js';
import { startOpenCostStandIn, type OpenCostStandIn } from '../../../local/opencost-stand-in.js';

export const BUCKET = 'gco-cost-reports-us-east-1';

export interface Reply {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test-only JSON bodies
}

/** A settable clock shared by the monitors of a test. */
export class TestClock {
  constructor(public now: Date) {}
  readonly read = (): Date => new Date(this.now.getTime());
  set(iso: string): void {
    this.now = new Date(iso);
  }
}

export interface RunningMonitor {
  monitor: CostMonitor;
  base: string;
  call(method: string, path: string, body?: unknown): Promise<Reply>;
  close(): Promise<void>;
}

interface MonitorOptions {
  config?: Partial<CostMonitorConfig>;
  clock?: TestClock;
  instanceId?: string;
  scheduler?: CostMonitorDeps['scheduler'];
  https?: CostMonitorDeps['https'];
}

export interface CostEnv {
  dynamo: LocalDynamo;
  s3: LocalS3;
  opencost: OpenCostStandIn;
  table: string;
  config(overrides?: Partial<CostMonitorConfig>): CostMonitorConfig;
  startMonitor(opts?: MonitorOptions): Promise<RunningMonitor>;
  close(): Promise<void>;
}

export async function startCostEnv(): Promise<CostEnv> {
  const dynamo = await startLocalDynamo({ region: 'us-east-1', tables: [TABLES.costReports] });
  const s3 = await startLocalS3({ buckets: [BUCKET] });
  const opencost = await startOpenCostStandIn();
  const table = dynamo.env[TABLES.costReports.envVar] ?? '';
  const running: RunningMonitor[] = [];

  const config = (overrides: Partial<CostMonitorConfig> = {}): CostMonitorConfig => ({
    region: 'us-east-1',
    clusterName: 'gco-us-east-1',
    opencostUrl: opencost.url,
    opencostTimeoutMs: 2_000,
    bucket: BUCKET,
    table,
    intervalMinutes: 60,
    settleMinutes: 5,
    ...overrides,
  });

  return {
    dynamo,
    s3,
    opencost,
    table,
    config,
    async startMonitor(opts = {}) {
      const clock = opts.clock ?? new TestClock(new Date('2024-05-01T10:07:00Z'));
      const monitor = await createCostMonitor({
        config: config(opts.config),
        s3: s3.client(),
        dynamo: dynamo.client(),
        clock: clock.read,
        logger: silentServiceLogger(),
        ...(opts.instanceId ? { instanceId: opts.instanceId } : {}),
        ...(opts.https ? { https: opts.https } : {}),
        scheduler: { tickMs: 50, ...opts.scheduler },
      });
      const address = await monitor.app.listen({ host: '127.0.0.1', port: 0 });
      const port = new URL(address).port;
      const base = `${opts.https ? 'https' : 'http'}://127.0.0.1:${port}`;
      let closed = false;
      const handle: RunningMonitor = {
        monitor,
        base,
        async call(method, path, body) {
          const payload = body === undefined ? undefined : JSON.stringify(body);
          const res = await fetch(`${base}${path}`, {
            method,
            ...(payload === undefined
              ? {}
              : { body: payload, headers: { 'content-type': 'application/json' } }),
          });
          const text = await res.text();
          return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
        },
        async close() {
          if (closed) return;
          closed = true;
          await monitor.app.close();
        },
      };
      running.push(handle);
      return handle;
    },
    async close() {
      for (const m of running) await m.close();
      await opencost.close();
      await s3.close();
      await dynamo.close();
    },
  };
}
