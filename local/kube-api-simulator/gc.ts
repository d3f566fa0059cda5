// Garbage collection on delete: dependents (objects whose ownerReferences name the deleted uid) are
// deleted (Background/Foreground, done synchronously) or orphaned (their owner reference removed).
// Namespace deletion removes everything in the namespace at once (no Terminating phase lingers).

import type { SimContext } from './context.js';
import type { ResourceType } from './registry.js';
import { typeKey } from './registry.js';
import type { KubeObject } from './types.js';
import { arr, rec, uidOf } from './types.js';

export type Propagation = 'Orphan' | 'Background' | 'Foreground';

export function deleteWithDependents(
  ctx: SimContext,
  type: ResourceType,
  obj: KubeObject,
  policy: Propagation,
): void {
  ctx.store.delete(type, obj.metadata.namespace, obj.metadata.name);
  const uid = uidOf(obj);
  if (!uid) return;
  const stored = new Map(ctx.registry.stored().map((t) => [typeKey(t), t]));
  // A snapshot of the owner index (frozen objects; every change below writes a copy).
  for (const { type: indexed, object: dep } of ctx.store.dependents(uid)) {
    const depType = stored.get(typeKey(indexed));
    if (!depType) continue;
    const refs = arr(dep.metadata.ownerReferences).map(rec);
    // The scan works on a snapshot: a dependent may already be gone through another owner chain.
    if (!ctx.store.has(depType, dep.metadata.namespace, dep.metadata.name)) continue;
    const remaining = refs.filter((r) => r.uid !== uid);
    // A dependent with another live owner only loses this reference, as in the real collector.
    if (policy === 'Orphan' || remaining.length > 0) {
      const next = { ...dep, metadata: { ...dep.metadata } };
      if (remaining.length > 0) next.metadata.ownerReferences = remaining;
      else delete next.metadata.ownerReferences;
      ctx.store.update(depType, next, { keepGeneration: true });
    } else {
      deleteWithDependents(ctx, depType, dep, 'Background');
    }
  }
}

export function deleteNamespaceContents(ctx: SimContext, namespace: string): void {
  for (const type of ctx.registry.stored()) {
    if (!type.namespaced) continue;
    for (const obj of ctx.store.list(type, namespace)) ctx.store.delete(type, namespace, obj.metadata.name);
  }
}
