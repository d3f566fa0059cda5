// Discovery documents: /version, /api (APIVersions), /api/v1 and /apis/<g>/<v> (APIResourceList),
// /apis (APIGroupList) and /apis/<g> (APIGroup). Served as legacy JSON discovery; kubectl ≥ 1.26 asks
// for aggregated discovery first and falls back to these when the response is plain application/json.
// Resources or groups marked unavailable with 404 disappear from discovery (a missing API).

import type { SimContext } from './context.js';
import type { ResourceType } from './registry.js';
import { apiVersionOf } from './registry.js';

export const SERVER_VERSION = {
  major: '1',
  minor: '31',
  gitVersion: 'v1.31.0-gco-sim',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2024-08-13T00:00:00Z',
  goVersion: 'go1.22.5',
  compiler: 'gc',
  platform: 'linux/amd64',
};

function hidden(ctx: SimContext, t: ResourceType): boolean {
  const keys = [t.plural, t.group, `${t.plural}.${t.group}`, `${t.group}/${t.plural}`];
  return keys.some((k) => k !== '' && ctx.unavailable.get(k) === 404);
}

function visible(ctx: SimContext): ResourceType[] {
  return ctx.registry.all().filter((t) => !hidden(ctx, t));
}

export function apiVersions(serverAddress: string): unknown {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupEntry(name: string, versions: string[]): Record<string, unknown> {
  const vs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: vs, preferredVersion: vs[0] };
}

export function apiGroupList(ctx: SimContext): unknown {
  const groups = new Map<string, string[]>();
  for (const t of visible(ctx)) {
    if (!t.group) continue;
    const vs = groups.get(t.group) ?? [];
    for (const v of t.versions) if (!vs.includes(v)) vs.push(v);
    groups.set(t.group, vs);
  }
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...groups].map(([name, vs]) => groupEntry(name, vs)),
  };
}

export function apiGroup(ctx: SimContext, group: string): unknown {
  const versions: string[] = [];
  for (const t of visible(ctx))
    if (t.group === group) for (const v of t.versions) if (!versions.includes(v)) versions.push(v);
  if (versions.length === 0) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(group, versions) };
}

export function apiResourceList(ctx: SimContext, group: string, version: string): unknown {
  const types = visible(ctx).filter((t) => t.group === group && t.versions.includes(version));
  if (types.length === 0) return undefined;
  const resources: unknown[] = [];
  for (const t of types) {
    const entry: Record<string, unknown> = {
      name: t.plural,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: t.verbs,
    };
    if (t.shortNames.length > 0) entry.shortNames = t.shortNames;
    if (t.categories.length > 0) entry.categories = t.categories;
    resources.push(entry);
    // Subresources follow their resource so kind lookups (which take the first match) find the resource.
    for (const sub of t.subresources) {
      const verbs = sub === 'log' ? ['get'] : ['get', 'patch', 'update'];
      resources.push({
        name: `${t.plural}/${sub}`,
        singularName: '',
        namespaced: t.namespaced,
        kind: sub === 'log' ? 'Pod' : t.kind,
        verbs,
      });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf(group, version), resources };
}
