// URL path → what is addressed, using the API server's path layout:
//   /api/v1[/namespaces/{ns}]/{resource}[/{name}[/{subresource}]]
//   /apis/{group}/{version}[/namespaces/{ns}]/{resource}[/{name}[/{subresource}]]

import type { ResourceRegistry, ResourceType } from './registry.js';

export type Route =
  | { kind: 'version' }
  | { kind: 'health' }
  | { kind: 'openapiV2' }
  | { kind: 'openapiV3Root' }
  | { kind: 'openapiV3'; group: string; version: string }
  | { kind: 'apiVersions' }
  | { kind: 'groupList' }
  | { kind: 'group'; group: string }
  | { kind: 'resourceList'; group: string; version: string }
  | {
      kind: 'resource';
      group: string;
      version: string;
      type: ResourceType;
      namespace?: string;
      name?: string;
      subresource?: string;
    }
  | { kind: 'unknownResource'; group: string; version: string; resource: string }
  | { kind: 'notFound' };

export function route(registry: ResourceRegistry, pathname: string): Route {
  let segs: string[];
  try {
    segs = pathname
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    return { kind: 'notFound' };
  }
  const [first] = segs;
  if (segs.length === 1 && first === 'version') return { kind: 'version' };
  if (segs.length === 2 && first === 'openapi' && segs[1] === 'v2') return { kind: 'openapiV2' };
  if (first === 'openapi' && segs[1] === 'v3') return openapiV3Route(segs.slice(2));
  if (segs.length === 1 && (first === 'healthz' || first === 'readyz' || first === 'livez'))
    return { kind: 'health' };
  let group: string;
  let version: string;
  let rest: string[];
  if (first === 'api') {
    if (segs.length === 1) return { kind: 'apiVersions' };
    group = '';
    version = segs[1] ?? '';
    rest = segs.slice(2);
  } else if (first === 'apis') {
    if (segs.length === 1) return { kind: 'groupList' };
    group = segs[1] ?? '';
    if (segs.length === 2) return { kind: 'group', group };
    version = segs[2] ?? '';
    rest = segs.slice(3);
  } else {
    return { kind: 'notFound' };
  }
  if (rest.length === 0) return { kind: 'resourceList', group, version };
  let namespace: string | undefined;
  // `namespaces/{ns}/{resource}…` addresses a namespaced resource, unless {resource} is a namespace
  // subresource (namespaces/{name}/status).
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const candidate = registry.lookup(group, version, rest[2] ?? '');
    if (candidate?.namespaced) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
  }
  if (rest.length > 3) return { kind: 'notFound' };
  const [resource = '', name, subresource] = rest;
  const type = registry.lookup(group, version, resource);
  if (!type) return { kind: 'unknownResource', group, version, resource };
  if (namespace !== undefined && !type.namespaced) return { kind: 'notFound' };
  const r: Route = { kind: 'resource', group, version, type };
  if (namespace !== undefined) r.namespace = namespace;
  if (name !== undefined) r.name = name;
  if (subresource !== undefined) r.subresource = subresource;
  return r;
}

/** `/openapi/v3`, `/openapi/v3/api/{version}`, `/openapi/v3/apis/{group}/{version}`. */
function openapiV3Route(rest: string[]): Route {
  const [first, second, third] = rest;
  if (rest.length === 0) return { kind: 'openapiV3Root' };
  if (rest.length === 2 && first === 'api' && second)
    return { kind: 'openapiV3', group: '', version: second };
  if (rest.length === 3 && first === 'apis' && second && third)
    return { kind: 'openapiV3', group: second, version: third };
  return { kind: 'notFound' };
}
