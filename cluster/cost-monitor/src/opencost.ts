/**
 * The in-cluster OpenCost allocation API (GET /allocation/compute) and the parsing of its documented
 * response: `{"code":200,"data":[{"<aggregate key>": Allocation, …}, …]}` — one map per step, each
 * Allocation carrying `properties`, `window`, usage (`cpuCoreHours`, `gpuHours`, `ramByteHours`,
 * `pvByteHours`, `networkTransferBytes`…) and costs (`cpuCost`, `gpuCost`, `ramCost`, `pvCost`,
 * `networkCost`, `loadBalancerCost`, `sharedCost`, `externalCost`, `totalCost`). OpenCost renders NaN and
 * infinite values as null, and wraps failures as `{"code":500,"message":"…"}` (sometimes with HTTP 200).
 */
import { PlatformError } from '../../../contracts/runtime/errors.js';

/** Names OpenCost gives to cost that belongs to no workload. */
export const IDLE = '__idle__';
export const UNALLOCATED = '__unallocated__';

interface AllocationProperties {
  cluster?: string;
  namespace?: string;
  controller?: string;
  controllerKind?: string;
}

/** The numeric fields of an Allocation the reports read (absent or null counts as 0). */
const ALLOCATION_NUMBERS = [
  'cpuCoreHours',
  'cpuCost',
  'cpuEfficiency',
  'gpuHours',
  'gpuCost',
  'ramByteHours',
  'ramCost',
  'ramEfficiency',
  'pvByteHours',
  'pvCost',
  'networkTransferBytes',
  'networkReceiveBytes',
  'networkCost',
  'loadBalancerCost',
  'sharedCost',
  'externalCost',
  'totalCost',
] as const;
type AllocationNumber = (typeof ALLOCATION_NUMBERS)[number];

export interface Allocation {
  /** The aggregate key OpenCost filed the allocation under, e.g. `svc-jobs/job:train` or `__idle__`. */
  key: string;
  properties: AllocationProperties;
  /** The allocation's own window (OpenCost may clip it to the data it has). */
  start: string | undefined;
  end: string | undefined;
  values: Record<AllocationNumber, number>;
}

export class OpenCostError extends PlatformError {
  override readonly name = 'OpenCostError';
  constructor(
    message: string,
    override readonly reason: 'unreachable' | 'timeout' | 'http' | 'api' | 'invalid',
  ) {
    super(message);
  }
}

export interface OpenCostClientOptions {
  /** Base URL, e.g. http://opencost.opencost:9003 */
  baseUrl: string;
  timeoutMs: number;
  fetch?: typeof fetch;
}

/** RFC 3339 without milliseconds, the form OpenCost's `window=<start>,<end>` expects. */
export function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function parseAllocation(key: string, raw: Record<string, unknown>): Allocation {
  const props = isRecord(raw.properties) ? raw.properties : {};
  const window = isRecord(raw.window) ? raw.window : {};
  const values = {} as Record<AllocationNumber, number>;
  for (const field of ALLOCATION_NUMBERS) {
    const v = raw[field];
    values[field] = typeof v === 'number' && Number.isFinite(v) ? v : 0;
  }
  const properties: AllocationProperties = {};
  for (const name of ['cluster', 'namespace', 'controller', 'controllerKind'] as const) {
    const value = str(props[name]);
    if (value !== undefined) properties[name] = value;
  }
  return {
    key,
    properties,
    start: str(raw.start) ?? str(window.start),
    end: str(raw.end) ?? str(window.end),
    values,
  };
}

/** Parses an allocation response body; every step's allocations are returned (same key may repeat). */
export function parseAllocationResponse(body: unknown): Allocation[] {
  if (!isRecord(body)) throw new OpenCostError('OpenCost answered with a non-object body', 'invalid');
  if (body.code !== 200) {
    const message = str(body.message) ?? `code ${String(body.code)}`;
    throw new OpenCostError(`OpenCost error: ${message}`, 'api');
  }
  if (body.data === null || body.data === undefined) return [];
  if (!Array.isArray(body.data)) throw new OpenCostError('OpenCost answered without a data array', 'invalid');
  const allocations: Allocation[] = [];
  for (const set of body.data) {
    if (set === null) continue; // a step without data
    if (!isRecord(set)) throw new OpenCostError('OpenCost allocation set is not an object', 'invalid');
    for (const [key, raw] of Object.entries(set)) {
      if (isRecord(raw)) allocations.push(parseAllocation(key, raw));
    }
  }
  return allocations;
}

export class OpenCostClient {
  private readonly fetch: typeof fetch;

  constructor(private readonly opts: OpenCostClientOptions) {
    this.fetch = opts.fetch ?? fetch;
  }

  /**
   * Allocations of [start, end) aggregated by `aggregate` (e.g. `namespace,controller`), accumulated into
   * one set, with the cluster's idle cost as its own `__idle__` allocation so the totals are the region's.
   */
  async allocations(window: { start: Date; end: Date }, aggregate: string): Promise<Allocation[]> {
    const query = new URLSearchParams({
      window: `${rfc3339(window.start)},${rfc3339(window.end)}`,
      aggregate,
      accumulate: 'true',
      includeIdle: 'true',
    });
    const url = `${this.opts.baseUrl.replace(/\/+$/, '')}/allocation/compute?${query.toString()}`;
    let res: Response;
    try {
      res = await this.fetch(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (error) {
      // Duck-typed: fetch's errors (DOMException, undici's TypeError) may come from another realm.
      const { name, cause } = (error ?? {}) as { name?: unknown; cause?: { message?: unknown } };
      if (name === 'TimeoutError' || name === 'AbortError') {
        throw new OpenCostError(`OpenCost did not answer within ${this.opts.timeoutMs} ms`, 'timeout');
      }
      const reason = typeof cause?.message === 'string' ? cause.message : String(error);
      throw new OpenCostError(`OpenCost unreachable: ${reason}`, 'unreachable');
    }
    const text = await res.text().catch(() => '');
    let body: unknown;
    try {
      body = text ? (JSON.parse(text) as unknown) : undefined;
    } catch {
      body = undefined;
    }
    if (!res.ok) {
      const message = isRecord(body) ? str(body.message) : undefined;
      throw new OpenCostError(`OpenCost answered HTTP ${res.status}${message ? `: ${message}` : ''}`, 'http');
    }
    return parseAllocationResponse(body);
  }
}
