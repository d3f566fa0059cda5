// CustomResourceDefinitions: creating one registers its served versions as a stored resource type
// (discovery, REST, selectors); deleting it unregisters the type and drops its objects.

import type { SimContext } from './context.js';
import { ResourceRegistry } from './registry.js';
import type { ResourceType } from './registry.js';
import type { Change } from './store.js';
import type { Causes } from './causes.js';
import type { KubeObject } from './types.js';
import { arr, deepEqual, nowIso, rec, str } from './types.js';

function typeFromCrd(crd: KubeObject): ResourceType | undefined {
  const spec = rec(crd.spec);
  const names = rec(spec.names);
  const group = str(spec.group);
  const plural = str(names.plural);
  const kind = str(names.kind);
  const versions = arr(spec.versions)
    .map(rec)
    .filter((v) => v.served !== false)
    .map((v) => str(v.name) ?? '')
    .filter((v) => v !== '');
  if (!group || !plural || !kind || versions.length === 0) return undefined;
  const withStatus = arr(spec.versions).some((v) => rec(rec(v).subresources).status !== undefined);
  return ResourceRegistry.custom({
    group,
    versions,
    plural,
    singular: str(names.singular) ?? kind.toLowerCase(),
    kind,
    namespaced: spec.scope !== 'Cluster',
    shortNames: arr(names.shortNames).map(String),
    categories: arr(names.categories).map(String),
    subresources: withStatus ? ['status'] : [],
  });
}

/** Checks the fields the simulator needs; names must be `<plural>.<group>` as on a real server. */
export function validateCrd(crd: KubeObject, c: Causes): void {
  const spec = rec(crd.spec);
  const names = rec(spec.names);
  if (!str(spec.group)) c.required('spec.group');
  if (!str(names.plural)) c.required('spec.names.plural');
  if (!str(names.kind)) c.required('spec.names.kind');
  if (arr(spec.versions).length === 0) c.required('spec.versions');
  const scope = spec.scope;
  if (scope !== 'Namespaced' && scope !== 'Cluster')
    c.unsupported('spec.scope', scope, ['Cluster', 'Namespaced']);
  const expected = `${str(names.plural) ?? ''}.${str(spec.group) ?? ''}`;
  if (crd.metadata.name && crd.metadata.name !== expected) {
    c.invalid('metadata.name', crd.metadata.name, `must be spec.names.plural+"."+spec.group`);
  }
}

export class CrdController {
  constructor(private readonly ctx: SimContext) {
    ctx.store.subscribe((c) => this.onChange(c));
  }

  private onChange(change: Change): void {
    if (
      change.resource.group !== 'apiextensions.k8s.io' ||
      change.resource.plural !== 'customresourcedefinitions'
    )
      return;
    const crd = change.object;
    const spec = rec(crd.spec);
    const group = str(spec.group) ?? '';
    const plural = str(rec(spec.names).plural) ?? '';
    if (change.type === 'DELETED') {
      const type = this.ctx.registry
        .all()
        .find((t) => t.group === group && t.plural === plural && !t.virtual);
      if (type)
        for (const o of this.ctx.store.list(type))
          this.ctx.store.delete(type, o.metadata.namespace, o.metadata.name);
      this.ctx.registry.unregister(group, plural);
      return;
    }
    const type = typeFromCrd(crd);
    if (!type) return;
    this.ctx.registry.register(type);
    const now = nowIso();
    const status = {
      conditions: [
        {
          type: 'NamesAccepted',
          status: 'True',
          reason: 'NoConflicts',
          message: 'no conflicts found',
          lastTransitionTime: now,
        },
        {
          type: 'Established',
          status: 'True',
          reason: 'InitialNamesAccepted',
          message: 'the initial names have been accepted',
          lastTransitionTime: now,
        },
      ],
      acceptedNames: rec(spec.names),
      storedVersions: type.versions.slice(0, 1),
    };
    const prev = rec(crd.status);
    if (deepEqual(prev.acceptedNames, status.acceptedNames) && arr(prev.conditions).length === 2) return;
    this.ctx.store.update(change.resource, { ...crd, status }, { keepGeneration: true });
  }
}
