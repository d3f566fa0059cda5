// In-memory object storage: one map per resource type, a global monotonic resourceVersion, and
// synchronous change listeners for the simulated controllers (there is no watch endpoint).
// Everything handed out is a deep copy, so callers can never mutate stored state by accident.

import { randomUUID } from 'node:crypto';

import { objectKey } from './pagination.js';
import type { ResourceType } from './registry.js';
import { typeKey } from './registry.js';
import type { KubeObject } from './types.js';
import { clone, deepEqual, nowIso } from './types.js';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface Change {
  type: ChangeType;
  resource: ResourceType;
  object: KubeObject;
  /** The stored object before a MODIFIED change. */
  previous?: KubeObject;
}

export type Listener = (change: Change) => void;

export interface WriteOptions {
  /** Validate and compute the result without persisting (dryRun=All). */
  dryRun?: boolean;
  /** Controller writes (status, binding) do not bump metadata.generation. */
  keepGeneration?: boolean;
}

export class ObjectStore {
  private rv = 0;
  private readonly data = new Map<string, Map<string, KubeObject>>();
  private readonly listeners: Listener[] = [];

  resourceVersion(): string {
    return String(this.rv);
  }

  subscribe(listener: Listener): void {
    this.listeners.push(listener);
  }

  private bucket(type: ResourceType): Map<string, KubeObject> {
    const key = typeKey(type);
    let b = this.data.get(key);
    if (!b) {
      b = new Map();
      this.data.set(key, b);
    }
    return b;
  }

  private key(type: ResourceType, namespace: string | undefined, name: string): string {
    return type.namespaced ? `${namespace ?? ''}/${name}` : name;
  }

  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    const found = this.bucket(type).get(this.key(type, namespace, name));
    return found ? clone(found) : undefined;
  }

  has(type: ResourceType, namespace: string | undefined, name: string): boolean {
    return this.bucket(type).has(this.key(type, namespace, name));
  }

  /** All objects of a type (optionally in one namespace), sorted by namespace/name. */
  list(type: ResourceType, namespace?: string): KubeObject[] {
    const out: KubeObject[] = [];
    for (const o of this.bucket(type).values()) {
      if (namespace === undefined || !type.namespaced || o.metadata.namespace === namespace)
        out.push(clone(o));
    }
    return out.sort((a, b) => {
      const ka = objectKey(a);
      const kb = objectKey(b);
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
  }

  /** Inserts a new object: assigns uid (unless set), creationTimestamp, generation and resourceVersion. */
  create(type: ResourceType, obj: KubeObject, opts: WriteOptions = {}): KubeObject {
    const stored = clone(obj);
    const m = stored.metadata;
    m.uid = typeof m.uid === 'string' && m.uid ? m.uid : randomUUID();
    m.creationTimestamp = typeof m.creationTimestamp === 'string' ? m.creationTimestamp : nowIso();
    m.generation = 1;
    if (opts.dryRun) {
      delete m.resourceVersion;
      return stored;
    }
    m.resourceVersion = String(++this.rv);
    this.bucket(type).set(this.key(type, m.namespace, m.name), stored);
    this.emit({ type: 'ADDED', resource: type, object: clone(stored) });
    return clone(stored);
  }

  /**
   * Replaces an existing object (identity fields are kept from the stored one). Bumps generation when
   * anything outside metadata and status changed, like the registry strategies do.
   */
  update(type: ResourceType, obj: KubeObject, opts: WriteOptions = {}): KubeObject {
    const key = this.key(type, obj.metadata.namespace, obj.metadata.name);
    const current = this.bucket(type).get(key);
    if (!current) throw new Error(`update of missing object ${key}`);
    const next = clone(obj);
    const m = next.metadata;
    m.uid = current.metadata.uid;
    m.creationTimestamp = current.metadata.creationTimestamp;
    const gen = typeof current.metadata.generation === 'number' ? current.metadata.generation : 1;
    m.generation = !opts.keepGeneration && specChanged(current, next) ? gen + 1 : gen;
    if (opts.dryRun) {
      m.resourceVersion = current.metadata.resourceVersion;
      return next;
    }
    if (deepEqual(withoutRv(current), withoutRv(next))) return clone(current); // no-op writes keep the rv
    m.resourceVersion = String(++this.rv);
    this.bucket(type).set(key, next);
    this.emit({ type: 'MODIFIED', resource: type, object: clone(next), previous: clone(current) });
    return clone(next);
  }

  /** Create-or-replace for the direct (non-HTTP) control API. */
  put(type: ResourceType, obj: KubeObject): KubeObject {
    return this.has(type, obj.metadata.namespace, obj.metadata.name)
      ? this.update(type, obj)
      : this.create(type, obj);
  }

  delete(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    opts: WriteOptions = {},
  ): KubeObject | undefined {
    const key = this.key(type, namespace, name);
    const current = this.bucket(type).get(key);
    if (!current) return undefined;
    if (opts.dryRun) return clone(current);
    this.bucket(type).delete(key);
    // A deletion is a write: it advances the resourceVersion (the deleted object carries the new one).
    const gone = clone(current);
    gone.metadata.resourceVersion = String(++this.rv);
    this.emit({ type: 'DELETED', resource: type, object: clone(gone) });
    return gone;
  }

  /** Every stored object of every type (for garbage-collection scans). */
  *entries(types: ResourceType[]): Generator<{ type: ResourceType; object: KubeObject }> {
    for (const type of types) {
      for (const o of [...this.bucket(type).values()]) yield { type, object: clone(o) };
    }
  }

  private emit(change: Change): void {
    for (const l of this.listeners) {
      try {
        l(change);
      } catch (err) {
        // A controller bug must not fail the API request that triggered it.
        process.emitWarning(
          `kube-api-simulator listener failed: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
    }
  }
}

function withoutRv(o: KubeObject): unknown {
  return { ...o, metadata: { ...o.metadata, resourceVersion: undefined } };
}

function specChanged(a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject): unknown => {
    const { metadata: _m, status: _s, ...rest } = o;
    return rest;
  };
  return !deepEqual(strip(a), strip(b));
}
