// In-memory object storage: one map per resource type, a global monotonic resourceVersion, and
// synchronous change listeners for the simulated controllers (there is no watch endpoint).
//
// Stored objects are deep-frozen snapshots: a write stores a new object, never changes one in place.
// `get`/`list` hand out deep copies (callers may change them); the read-only views `view`, `scan` and
// `dependents` hand out the frozen snapshots themselves, so hot paths (lists, controllers, the
// scheduler) cost no copying, and a change through a view throws instead of corrupting the store.
// Each type keeps its keys sorted (lists and namespace ranges need no sort or full scan) and the store
// indexes objects by the uids in their ownerReferences (controllers and garbage collection find
// dependents without scanning every object).

import { errorMessage } from '../../contracts/runtime/errors.js';
import { randomUUID } from 'node:crypto';

import type { ResourceType } from './registry.js';
import { typeKey } from './registry.js';
import type { KubeObject } from './types.js';
import { clone, deepEqual, nowIso, rec } from './types.js';

type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface Change {
  type: ChangeType;
  resource: ResourceType;
  /** The stored object (frozen: listeners read it, never change it). */
  object: KubeObject;
  /** The stored object before a MODIFIED change (frozen). */
  previous?: KubeObject;
}

export type Listener = (change: Change) => void;

export interface WriteOptions {
  /** Validate and compute the result without persisting (dryRun=All). */
  dryRun?: boolean;
  /** Controller writes (status, binding) do not bump metadata.generation. */
  keepGeneration?: boolean;
}

interface Bucket {
  type: ResourceType;
  objects: Map<string, KubeObject>;
  /** The keys of `objects` in list order (namespace/name). */
  sorted: string[];
}

/** First index in sorted `keys` whose key is ≥ `key`. */
function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] ?? '') < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const child of Object.values(v)) deepFreeze(child);
  }
  return v;
}

function ownerUids(obj: KubeObject): string[] {
  const refs = obj.metadata.ownerReferences;
  if (!Array.isArray(refs)) return [];
  const out: string[] = [];
  for (const r of refs) {
    const uid = rec(r).uid;
    if (typeof uid === 'string' && uid) out.push(uid);
  }
  return out;
}

export class ObjectStore {
  private rv = 0;
  private readonly data = new Map<string, Bucket>();
  private readonly listeners: Listener[] = [];
  /** owner uid → dependents (bucket key → object keys). */
  private readonly owned = new Map<string, Map<string, Set<string>>>();

  resourceVersion(): string {
    return String(this.rv);
  }

  subscribe(listener: Listener): void {
    this.listeners.push(listener);
  }

  private bucket(type: ResourceType): Bucket {
    const key = typeKey(type);
    let b = this.data.get(key);
    if (!b) {
      b = { type, objects: new Map(), sorted: [] };
      this.data.set(key, b);
    }
    return b;
  }

  private key(type: ResourceType, namespace: string | undefined, name: string): string {
    return type.namespaced ? `${namespace ?? ''}/${name}` : name;
  }

  /** Stores a (new, frozen) object under `key`, keeping the sorted keys and the owner index. */
  private store(type: ResourceType, key: string, obj: KubeObject): void {
    const b = this.bucket(type);
    const previous = b.objects.get(key);
    if (previous) this.unindex(b, key, previous);
    else b.sorted.splice(lowerBound(b.sorted, key), 0, key);
    b.objects.set(key, deepFreeze(obj));
    for (const uid of ownerUids(obj)) {
      let byType = this.owned.get(uid);
      if (!byType) {
        byType = new Map();
        this.owned.set(uid, byType);
      }
      const bk = typeKey(type);
      let keys = byType.get(bk);
      if (!keys) {
        keys = new Set();
        byType.set(bk, keys);
      }
      keys.add(key);
    }
  }

  private remove(type: ResourceType, key: string): void {
    const b = this.bucket(type);
    const previous = b.objects.get(key);
    if (!previous) return;
    this.unindex(b, key, previous);
    b.objects.delete(key);
    const at = lowerBound(b.sorted, key);
    if (b.sorted[at] === key) b.sorted.splice(at, 1);
  }

  private unindex(b: Bucket, key: string, obj: KubeObject): void {
    const bk = typeKey(b.type);
    for (const uid of ownerUids(obj)) {
      const byType = this.owned.get(uid);
      const keys = byType?.get(bk);
      if (!byType || !keys) continue;
      keys.delete(key);
      if (keys.size === 0) byType.delete(bk);
      if (byType.size === 0) this.owned.delete(uid);
    }
  }

  get(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    const found = this.view(type, namespace, name);
    return found ? clone(found) : undefined;
  }

  /** The stored object itself (frozen: read it, never change it), or undefined. */
  view(type: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.bucket(type).objects.get(this.key(type, namespace, name));
  }

  has(type: ResourceType, namespace: string | undefined, name: string): boolean {
    return this.bucket(type).objects.has(this.key(type, namespace, name));
  }

  /** All objects of a type (optionally in one namespace), sorted by namespace/name: deep copies. */
  list(type: ResourceType, namespace?: string): KubeObject[] {
    return this.scan(type, namespace).map((o) => clone(o));
  }

  /** Like list(), but the stored (frozen) objects themselves: for reading only. */
  scan(type: ResourceType, namespace?: string): KubeObject[] {
    const b = this.bucket(type);
    let from = 0;
    let to = b.sorted.length;
    if (namespace !== undefined && type.namespaced) {
      // Keys are `namespace/name`: one namespace is one contiguous range of the sorted keys.
      from = lowerBound(b.sorted, `${namespace}/`);
      to = lowerBound(b.sorted, `${namespace}0`); // '0' is the character after '/'
    }
    const out: KubeObject[] = [];
    for (let i = from; i < to; i++) {
      const o = b.objects.get(b.sorted[i] ?? '');
      if (o) out.push(o);
    }
    return out;
  }

  /** Number of objects of a type (optionally in one namespace), without copying any. */
  count(type: ResourceType, namespace?: string): number {
    if (namespace === undefined || !type.namespaced) return this.bucket(type).objects.size;
    const b = this.bucket(type);
    return lowerBound(b.sorted, `${namespace}0`) - lowerBound(b.sorted, `${namespace}/`);
  }

  /**
   * The stored (frozen) objects whose ownerReferences name `ownerUid`, optionally of one type: for
   * reading only. In creation order per type.
   */
  dependents(ownerUid: string, type?: ResourceType): { type: ResourceType; object: KubeObject }[] {
    const byType = this.owned.get(ownerUid);
    if (!byType) return [];
    const out: { type: ResourceType; object: KubeObject }[] = [];
    for (const [bk, keys] of byType) {
      const b = this.data.get(bk);
      if (!b || (type && typeKey(type) !== bk)) continue;
      for (const key of keys) {
        const object = b.objects.get(key);
        if (object) out.push({ type: b.type, object });
      }
    }
    return out;
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
    this.store(type, this.key(type, m.namespace, m.name), stored);
    this.emit({ type: 'ADDED', resource: type, object: stored });
    return clone(stored);
  }

  /**
   * Replaces an existing object (identity fields are kept from the stored one). Bumps generation when
   * anything outside metadata and status changed, like the registry strategies do.
   */
  update(type: ResourceType, obj: KubeObject, opts: WriteOptions = {}): KubeObject {
    const key = this.key(type, obj.metadata.namespace, obj.metadata.name);
    const current = this.bucket(type).objects.get(key);
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
    this.store(type, key, next);
    this.emit({ type: 'MODIFIED', resource: type, object: next, previous: current });
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
    const current = this.bucket(type).objects.get(key);
    if (!current) return undefined;
    if (opts.dryRun) return clone(current);
    this.remove(type, key);
    // A deletion is a write: it advances the resourceVersion (the deleted object carries the new one).
    const gone = clone(current);
    gone.metadata.resourceVersion = String(++this.rv);
    this.emit({ type: 'DELETED', resource: type, object: deepFreeze(clone(gone)) });
    return gone;
  }

  /** Raises the resourceVersion counter to at least `rv` (a restore: versions never go back). */
  restoreVersion(rv: number): void {
    this.rv = Math.max(this.rv, rv);
  }

  /** Stores a persisted object as it was saved (resourceVersion included), telling no listener. */
  restore(type: ResourceType, obj: KubeObject): void {
    const m = obj.metadata;
    this.rv = Math.max(this.rv, Number(m.resourceVersion ?? 0));
    this.store(type, this.key(type, m.namespace, m.name), clone(obj));
  }

  /** Tells every listener about a stored object as ADDED, as an informer's initial list does. */
  announce(type: ResourceType, namespace: string | undefined, name: string): void {
    const object = this.view(type, namespace, name);
    if (object) this.emit({ type: 'ADDED', resource: type, object });
  }

  /** Every stored object of the given types: deep copies. */
  *entries(types: ResourceType[]): Generator<{ type: ResourceType; object: KubeObject }> {
    for (const type of types) {
      for (const o of [...this.bucket(type).objects.values()]) yield { type, object: clone(o) };
    }
  }

  private emit(change: Change): void {
    for (const l of this.listeners) {
      try {
        l(change);
      } catch (err) {
        // A controller bug must not fail the API request that triggered it.
        process.emitWarning(`kube-api-simulator listener failed: ${errorMessage(err)}`);
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
