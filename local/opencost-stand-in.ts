/**
 * A local stand-in for the in-cluster OpenCost API: GET /allocation/compute answers in OpenCost's
 * documented format (`{"code":200,"status":"success","data":[{"<key>": Allocation}]}`), for the
 * `namespace,controller` and `cluster` aggregations, with costs proportional to the requested window.
 * Three namespaces (svc-jobs with two jobs, inference with a deployment and a bare pod, kube-system with a
 * daemonset) plus the cluster's `__idle__` allocation (whose efficiency is null, as OpenCost renders NaN).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

type FixtureMode = 'ok' | 'empty' | 'api-error' | 'http-error' | 'hang';

export interface OpenCostStandIn {
  readonly url: string;
  mode: FixtureMode;
  /** Every request URL (path + query) received. */
  readonly requests: URL[];
  close(): Promise<void>;
}

export const CLUSTER = 'gco-us-east-1';

interface Workload {
  namespace: string;
  controller?: string;
  controllerKind?: string;
  /** Hourly rates (cost units per hour) and usage. */
  cpuCores: number;
  cpuPerHour: number;
  gpus: number;
  gpuPerHour: number;
  ramBytes: number;
  ramPerHour: number;
  pvBytes: number;
  pvPerHour: number;
  networkPerHour: number;
  networkBytesPerHour: number;
  lbPerHour: number;
  cpuEfficiency: number | null;
  ramEfficiency: number | null;
}

const GIB = 1024 ** 3;

/** Hourly figures per (namespace, controller). */
export const WORKLOADS: Workload[] = [
  {
    namespace: 'svc-jobs',
    controller: 'train-resnet',
    controllerKind: 'job',
    cpuCores: 8,
    cpuPerHour: 0.25,
    gpus: 1,
    gpuPerHour: 3.06,
    ramBytes: 32 * GIB,
    ramPerHour: 0.1,
    pvBytes: 100 * GIB,
    pvPerHour: 0.0137,
    networkPerHour: 0.002,
    networkBytesPerHour: 2_000_000_000,
    lbPerHour: 0,
    cpuEfficiency: 0.82,
    ramEfficiency: 0.64,
  },
  {
    namespace: 'svc-jobs',
    controller: 'etl-nightly',
    controllerKind: 'job',
    cpuCores: 2,
    cpuPerHour: 0.0625,
    gpus: 0,
    gpuPerHour: 0,
    ramBytes: 4 * GIB,
    ramPerHour: 0.0125,
    pvBytes: 0,
    pvPerHour: 0,
    networkPerHour: 0.0005,
    networkBytesPerHour: 500_000_000,
    lbPerHour: 0,
    cpuEfficiency: 0.4,
    ramEfficiency: 0.5,
  },
  {
    namespace: 'inference',
    controller: 'llm-server',
    controllerKind: 'deployment',
    cpuCores: 4,
    cpuPerHour: 0.125,
    gpus: 2,
    gpuPerHour: 6.12,
    ramBytes: 64 * GIB,
    ramPerHour: 0.2,
    pvBytes: 200 * GIB,
    pvPerHour: 0.0274,
    networkPerHour: 0.01,
    networkBytesPerHour: 10_000_000_000,
    lbPerHour: 0.0225,
    cpuEfficiency: 0.55,
    ramEfficiency: 0.71,
  },
  {
    // A pod without a controller: OpenCost files it under `__unallocated__`.
    namespace: 'inference',
    cpuCores: 0.5,
    cpuPerHour: 0.015625,
    gpus: 0,
    gpuPerHour: 0,
    ramBytes: 1 * GIB,
    ramPerHour: 0.003125,
    pvBytes: 0,
    pvPerHour: 0,
    networkPerHour: 0,
    networkBytesPerHour: 0,
    lbPerHour: 0,
    cpuEfficiency: 0.1,
    ramEfficiency: 0.2,
  },
  {
    namespace: 'kube-system',
    controller: 'aws-node',
    controllerKind: 'daemonset',
    cpuCores: 0.75,
    cpuPerHour: 0.0234375,
    gpus: 0,
    gpuPerHour: 0,
    ramBytes: 0.5 * GIB,
    ramPerHour: 0.0015625,
    pvBytes: 0,
    pvPerHour: 0,
    networkPerHour: 0.0001,
    networkBytesPerHour: 100_000_000,
    lbPerHour: 0,
    cpuEfficiency: 0.3,
    ramEfficiency: 0.6,
  },
];

/** The cluster's unused capacity, reported as `__idle__`. */
export const IDLE_PER_HOUR = { cpu: 0.5, gpu: 3.06, ram: 0.2 };

const round = (n: number) => Math.round(n * 1e5) / 1e5; // OpenCost's own response rounding

function allocation(name: string, w: Workload | undefined, start: string, end: string, hours: number) {
  const minutes = hours * 60;
  if (!w) {
    const cpuCost = round(IDLE_PER_HOUR.cpu * hours);
    const gpuCost = round(IDLE_PER_HOUR.gpu * hours);
    const ramCost = round(IDLE_PER_HOUR.ram * hours);
    return {
      name,
      properties: { cluster: CLUSTER },
      window: { start, end },
      start,
      end,
      minutes,
      cpuCores: 0,
      cpuCoreHours: 0,
      cpuCost,
      cpuCostAdjustment: 0,
      cpuEfficiency: null,
      gpuCount: 0,
      gpuHours: 0,
      gpuCost,
      gpuCostAdjustment: 0,
      networkTransferBytes: 0,
      networkReceiveBytes: 0,
      networkCost: 0,
      loadBalancerCost: 0,
      pvBytes: 0,
      pvByteHours: 0,
      pvCost: 0,
      pvs: null,
      ramBytes: 0,
      ramByteHours: 0,
      ramCost,
      ramEfficiency: null,
      sharedCost: 0,
      externalCost: 0,
      totalCost: round(cpuCost + gpuCost + ramCost),
      totalEfficiency: null,
      lbAllocations: null,
    };
  }
  const cpuCost = round(w.cpuPerHour * hours);
  const gpuCost = round(w.gpuPerHour * hours);
  const ramCost = round(w.ramPerHour * hours);
  const pvCost = round(w.pvPerHour * hours);
  const networkCost = round(w.networkPerHour * hours);
  const loadBalancerCost = round(w.lbPerHour * hours);
  return {
    name,
    properties: {
      cluster: CLUSTER,
      node: 'ip-10-0-12-34.ec2.internal',
      namespace: w.namespace,
      ...(w.controller ? { controller: w.controller, controllerKind: w.controllerKind } : {}),
      providerID: 'i-0123456789abcdef0',
    },
    window: { start, end },
    start,
    end,
    minutes,
    cpuCores: w.cpuCores,
    cpuCoreRequestAverage: w.cpuCores,
    cpuCoreUsageAverage: round(w.cpuCores * (w.cpuEfficiency ?? 0)),
    cpuCoreHours: round(w.cpuCores * hours),
    cpuCost,
    cpuCostAdjustment: 0,
    cpuEfficiency: w.cpuEfficiency,
    gpuCount: w.gpus,
    gpuHours: round(w.gpus * hours),
    gpuCost,
    gpuCostAdjustment: 0,
    networkTransferBytes: round(w.networkBytesPerHour * hours),
    networkReceiveBytes: round((w.networkBytesPerHour / 2) * hours),
    networkCost,
    networkCrossZoneCost: 0,
    networkCrossRegionCost: 0,
    networkInternetCost: networkCost,
    loadBalancerCost,
    pvBytes: w.pvBytes,
    pvByteHours: round(w.pvBytes * hours),
    pvCost,
    pvs: null,
    ramBytes: w.ramBytes,
    ramByteRequestAverage: w.ramBytes,
    ramByteUsageAverage: round(w.ramBytes * (w.ramEfficiency ?? 0)),
    ramByteHours: round(w.ramBytes * hours),
    ramCost,
    ramEfficiency: w.ramEfficiency,
    sharedCost: 0,
    externalCost: 0,
    totalCost: round(cpuCost + gpuCost + ramCost + pvCost + networkCost + loadBalancerCost),
    totalEfficiency: w.cpuEfficiency,
    lbAllocations: null,
  };
}

/** Workload key as OpenCost builds it for `aggregate=namespace,controller`. */
function workloadKey(w: Workload): string {
  return `${w.namespace}/${w.controller ? `${w.controllerKind}:${w.controller}` : '__unallocated__'}`;
}

function allocationSet(aggregate: string, start: string, end: string): Record<string, unknown> {
  const hours = (Date.parse(end) - Date.parse(start)) / 3_600_000;
  const set: Record<string, unknown> = { __idle__: allocation('__idle__', undefined, start, end, hours) };
  if (aggregate === 'cluster') {
    // Cluster aggregation: one allocation holding every workload's cost.
    const parts = WORKLOADS.map((w) => allocation(CLUSTER, w, start, end, hours));
    const sum = (field: 'cpuCost' | 'gpuCost' | 'ramCost' | 'totalCost') =>
      round(parts.reduce((acc, a) => acc + a[field], 0));
    set[CLUSTER] = {
      name: CLUSTER,
      properties: { cluster: CLUSTER },
      window: { start, end },
      start,
      end,
      minutes: hours * 60,
      cpuCost: sum('cpuCost'),
      gpuCost: sum('gpuCost'),
      ramCost: sum('ramCost'),
      totalCost: sum('totalCost'),
    };
    return set;
  }
  for (const w of WORKLOADS) set[workloadKey(w)] = allocation(workloadKey(w), w, start, end, hours);
  return set;
}

export async function startOpenCostStandIn(): Promise<OpenCostStandIn> {
  const requests: URL[] = [];
  const fixture = { mode: 'ok' as FixtureMode };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://opencost');
    requests.push(url);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname !== '/allocation/compute') return send(404, { code: 404, message: 'not found' });
    const [start, end] = (url.searchParams.get('window') ?? '').split(',');
    if (!start || !end || Number.isNaN(Date.parse(start)) || Number.isNaN(Date.parse(end))) {
      return send(400, { code: 400, status: 'error', message: 'invalid window' });
    }
    switch (fixture.mode) {
      case 'hang':
        return; // never answers
      case 'http-error':
        return send(500, { code: 500, status: 'error', message: 'prometheus query failed' });
      case 'api-error':
        // OpenCost wraps some failures in a 200 response with an error code.
        return send(200, { code: 500, status: 'error', message: 'error computing allocation' });
      case 'empty':
        return send(200, { code: 200, status: 'success', data: [{}] });
      default:
        return send(200, {
          code: 200,
          status: 'success',
          data: [allocationSet(url.searchParams.get('aggregate') ?? 'namespace', start, end)],
        });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(fixture, {
    url,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

/** A loopback URL nothing listens on (connection refused). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
