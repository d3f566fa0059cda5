/**
 * Where endpoint records come from, and a short cache in front of it. A streaming client can open many
 * requests a second; the cache keeps that from becoming as many DynamoDB reads across regions, while a
 * state change (stopped, canary weight…) still takes effect within one TTL.
 */
import { GetItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** A stored endpoint document as plain JSON-like data, or undefined when there is none. */
export interface EndpointSource {
  fetch(name: string): Promise<unknown>;
}

export class EndpointStoreError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'EndpointStoreError';
  }
}

/** DynamoDB attribute values to plain data (numbers as JS numbers; binary values are not part of a record). */
export function fromAttribute(attr: AttributeValue | undefined): unknown {
  if (!attr) return undefined;
  if (attr.S !== undefined) return attr.S;
  if (attr.N !== undefined) return Number(attr.N);
  if (attr.BOOL !== undefined) return attr.BOOL;
  if (attr.NULL !== undefined) return null;
  if (attr.L !== undefined) return attr.L.map(fromAttribute);
  if (attr.M !== undefined) return fromItem(attr.M);
  if (attr.SS !== undefined) return [...attr.SS];
  if (attr.NS !== undefined) return attr.NS.map(Number);
  return undefined;
}

export function fromItem(item: Record<string, AttributeValue>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, attr] of Object.entries(item)) out[key] = fromAttribute(attr);
  return out;
}

/** The central table TABLES.inferenceEndpoints (pk `endpoint_name`). */
export class DynamoEndpointSource implements EndpointSource {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async fetch(name: string): Promise<unknown> {
    try {
      const out = await this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key: { endpoint_name: { S: name } } }),
      );
      return out.Item ? fromItem(out.Item) : undefined;
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
