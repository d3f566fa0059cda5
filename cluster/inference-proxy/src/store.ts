/**
 * Where endpoint records come from, and a short cache in front of it. A streaming client can open many
 * requests a second; the cache keeps that from becoming as many DynamoDB reads across regions, while a
 * state change (stopped, canary weight…) still takes effect within one TTL.
 */
import { PlatformError } from '../../../contracts/runtime/errors.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { TableStore } from '../../shared/dynamo.js';

/** A stored endpoint document as plain JSON-like data, or undefined when there is none. */
export interface EndpointSource {
  fetch(name: string): Promise<unknown>;
}

class EndpointStoreError extends PlatformError {
  override readonly name = 'EndpointStoreError';
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
  }
}

/**
 * A record as JSON-like data: string and number sets become lists (docs/inference-proxy.md accepts string
 * sets for lists); binary values are not part of a record and read as absent.
 */
function recordData(value: unknown): unknown {
  if (value instanceof Set) return [...(value as Set<unknown>)];
  if (value instanceof Uint8Array) return undefined;
  if (Array.isArray(value)) return value.map(recordData);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, recordData(field)]));
  }
  return value;
}

/** The central table TABLES.inferenceEndpoints (pk `endpoint_name`). */
export class DynamoEndpointSource extends TableStore implements EndpointSource {
  async fetch(name: string): Promise<unknown> {
    try {
      const out = await this.doc.send(
        new GetCommand({ TableName: this.tableName, Key: { endpoint_name: name } }),
      );
      return out.Item ? recordData(out.Item) : undefined;
    } catch (error) {
      throw new EndpointStoreError(`endpoint lookup failed: ${(error as Error).message}`, { cause: error });
    }
  }
}

/** Records held in memory (tests, benchmarks, local experiments). */
export class StaticEndpointSource implements EndpointSource {
  private readonly records = new Map<string, unknown>();

  constructor(records: Iterable<Record<string, unknown>> = []) {
    for (const record of records) this.put(record);
  }

  put(record: Record<string, unknown>): void {
    this.records.set(String(record.endpoint_name), structuredClone(record));
  }

  delete(name: string): void {
    this.records.delete(name);
  }

  async fetch(name: string): Promise<unknown> {
    const record = this.records.get(name);
    return record === undefined ? undefined : structuredClone(record);
  }
}

export interface EndpointCacheOptions {
  ttlMs: number;
  /** Bound on cached names, so a caller probing random names cannot grow memory without limit. */
  maxEntries?: number;
  now?: () => number;
}

interface Entry {
  value: unknown;
  expiresAt: number;
}

/**
 * Caches hits and misses (an unknown name is cached too, so probing it does not reach DynamoDB each
 * time) for `ttlMs`; failures are not cached. Concurrent lookups of one name share a single read.
 */
export class EndpointCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<unknown>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(
    private readonly source: EndpointSource,
    opts: EndpointCacheOptions,
  ) {
    this.ttlMs = opts.ttlMs;
    this.maxEntries = opts.maxEntries ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  /** The fresh cached entry for `name` (its `value` may be undefined: a cached miss), without waiting. */
  cached(name: string): { readonly value: unknown } | undefined {
    const cached = this.entries.get(name);
    return cached && cached.expiresAt > this.now() ? cached : undefined;
  }

  async get(name: string): Promise<unknown> {
    const cached = this.entries.get(name);
    if (cached && cached.expiresAt > this.now()) return cached.value;
    const pending = this.inflight.get(name);
    if (pending) return pending;
    const read = this.source
      .fetch(name)
      .then((value) => {
        if (this.ttlMs > 0) this.remember(name, value);
        return value;
      })
      .finally(() => this.inflight.delete(name));
    this.inflight.set(name, read);
    return read;
  }

  invalidate(name?: string): void {
    if (name === undefined) this.entries.clear();
    else this.entries.delete(name);
  }

  get size(): number {
    return this.entries.size;
  }

  private remember(name: string, value: unknown): void {
    this.entries.delete(name);
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: the first key is the oldest entry.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(name, { value, expiresAt: this.now() + this.ttlMs });
  }
}
