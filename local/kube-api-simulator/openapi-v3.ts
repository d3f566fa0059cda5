// /openapi/v3: the discovery root (one entry per group-version, with a hash in its URL) and one OpenAPI
// 3.0 document per group-version, built from the same client-node models as the field checks
// (field-schema.ts). https://kubernetes.io/docs/concepts/overview/kubernetes-api/#openapi-v3
//
// Each resource's PATCH operation carries `x-kubernetes-group-version-kind` and a `fieldValidation`
// query parameter: that is what kubectl's QueryParamVerifierV3 looks for before it leaves field
// validation to the server (k8s.io/cli-runtime/pkg/resource/query_param_verifier_v3.go).
// components.schemas deliberately carry no x-kubernetes-group-version-kind: kubectl apply takes the
// strategic-merge-patch metadata from a GVK-tagged v3 schema, and these schemas have no patch
// strategies (the generated models do not carry them), so kubectl keeps using its compiled-in types.

import { createHash } from 'node:crypto';

import type { FieldNode, ObjectNode } from './field-schema.js';
import { schemaOf } from './field-schema.js';
import type { ResourceRegistry, ResourceType } from './registry.js';
import type { JsonRecord } from './types.js';

/** `api/v1` or `apis/batch/v1`, the key in the root document and the tail of the document's URL. */
function gvPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

/** Built-in kinds of one group-version that have a schema. */
function kindsOf(registry: ResourceRegistry, group: string, version: string): ResourceType[] {
  return registry.forGroupVersion(group, version).filter((t) => schemaOf(t, version) !== undefined);
}

function schemaRef(model: string): JsonRecord {
  return { $ref: `#/components/schemas/${model}` };
}

function fieldSchema(node: FieldNode, collect: (n: ObjectNode) => void): JsonRecord {
  switch (node.kind) {
    case 'object':
      collect(node);
      return schemaRef(node.model);
    case 'array':
      return { type: 'array', items: fieldSchema(node.items, collect) };
    case 'map':
      return { type: 'object', additionalProperties: fieldSchema(node.values, collect) };
    case 'any':
      return { 'x-kubernetes-preserve-unknown-fields': true };
    case 'scalar':
      switch (node.type) {
        case 'number':
          return node.format.startsWith('int')
            ? { type: 'integer', format: node.format }
            : { type: 'number', format: node.format || 'double' };
        case 'boolean':
          return { type: 'boolean' };
        case 'Date':
          return { type: 'string', format: 'date-time' };
        case 'IntOrString':
          return { 'x-kubernetes-int-or-string': true };
        default:
          return node.format ? { type: 'string', format: node.format } : { type: 'string' };
      }
  }
}

/** components.schemas: every model reachable from the kinds, each an object with its properties. */
function componentSchemas(roots: ObjectNode[]): JsonRecord {
  const schemas: Record<string, JsonRecord> = {};
  const pending = [...roots];
  const collect = (n: ObjectNode): void => {
    if (!(n.model in schemas)) pending.push(n);
  };
  for (let n = pending.pop(); n; n = pending.pop()) {
    if (n.model in schemas) continue;
    const entry: JsonRecord = { type: 'object' };
    schemas[n.model] = entry; // reserve before the properties: models may refer to themselves
    const properties: JsonRecord = {};
    for (const [name, child] of n.fields) properties[name] = fieldSchema(child, collect);
    entry.properties = properties;
  }
  return schemas;
}

function queryParameter(name: string, description: string, type = 'string'): JsonRecord {
  return { name, in: 'query', description, schema: { type, uniqueItems: true } };
}

function pathParameter(name: string): JsonRecord {
  return { name, in: 'path', required: true, schema: { type: 'string', uniqueItems: true } };
}

const DRY_RUN = queryParameter('dryRun', 'When present, modifications are not persisted ("All").');
const FIELD_MANAGER = queryParameter('fieldManager', 'The name of the actor making these changes.');
const FIELD_VALIDATION = queryParameter(
  'fieldValidation',
  'How the server handles unknown or duplicate fields: Ignore, Warn (the default) or Strict.',
);
const PATCH_TYPES = [
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

function responses(code: string, model: string): JsonRecord {
  return { [code]: { description: 'OK', content: { 'application/json': { schema: schemaRef(model) } } } };
}

/** The collection and item paths of one resource: create, get, replace and patch operations. */
function resourcePaths(type: ResourceType, version: string, model: string): Record<string, JsonRecord> {
  const gvk = { group: type.group, version, kind: type.kind };
  const base = `/${gvPath(type.group, version)}${type.namespaced ? '/namespaces/{namespace}' : ''}/${type.plural}`;
  const scope = type.namespaced ? [pathParameter('namespace')] : [];
  const body = (types: string[]): JsonRecord => ({
    required: true,
    content: Object.fromEntries(types.map((t) => [t, { schema: schemaRef(model) }])),
  });
  const op = (action: string, extra: JsonRecord): JsonRecord => ({
    ...extra,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk,
  });
  return {
    [base]: {
      parameters: scope,
      post: op('post', {
        parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
        requestBody: body(['application/json']),
        responses: responses('201', model),
      }),
    },
    [`${base}/{name}`]: {
      parameters: [pathParameter('name'), ...scope],
      get: op('get', { responses: responses('200', model) }),
      put: op('put', {
        parameters: [DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION],
        requestBody: body(['application/json']),
        responses: responses('200', model),
      }),
      patch: op('patch', {
        parameters: [
          DRY_RUN,
          FIELD_MANAGER,
          FIELD_VALIDATION,
          queryParameter('force', 'Force apply.', 'boolean'),
        ],
        requestBody: body(PATCH_TYPES),
        responses: responses('200', model),
      }),
    },
  };
}

const documents = new Map<string, { json: string; hash: string }>();

function document(
  registry: ResourceRegistry,
  group: string,
  version: string,
): { json: string; hash: string } {
  const key = gvPath(group, version);
  const cached = documents.get(key);
  if (cached) return cached;
  const kinds = kindsOf(registry, group, version);
  const roots: ObjectNode[] = [];
  let paths: Record<string, JsonRecord> = {};
  for (const t of kinds) {
    const schema = schemaOf(t, version);
    if (!schema) continue;
    roots.push(schema);
    paths = { ...paths, ...resourcePaths(t, version, schema.model) };
  }
  const doc = {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.34.0' },
    paths,
    components: { schemas: componentSchemas(roots) },
  };
  const json = JSON.stringify(doc);
  // The real server's hash is the uppercase hex SHA-512 of the document.
  const entry = { json, hash: createHash('sha512').update(json).digest('hex').toUpperCase() };
  documents.set(key, entry);
  return entry;
}

/** Group-versions of built-in kinds, core first, in registration order. */
function groupVersions(registry: ResourceRegistry): { group: string; version: string }[] {
  const out: { group: string; version: string }[] = [];
  for (const t of registry.all()) {
    for (const version of t.versions) {
      if (schemaOf(t, version) === undefined) continue;
      if (!out.some((gv) => gv.group === t.group && gv.version === version))
        out.push({ group: t.group, version });
    }
  }
  return out;
}

/** GET /openapi/v3 */
export function openapiV3Root(registry: ResourceRegistry): JsonRecord {
  const paths: JsonRecord = {};
  for (const { group, version } of groupVersions(registry)) {
    const key = gvPath(group, version);
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${document(registry, group, version).hash}` };
  }
  return { paths };
}

/** GET /openapi/v3/api/v1, /openapi/v3/apis/{group}/{version}: the document's JSON, or undefined. */
export function openapiV3Document(
  registry: ResourceRegistry,
  group: string,
  version: string,
): string | undefined {
  if (kindsOf(registry, group, version).length === 0) return undefined;
  return document(registry, group, version).json;
}
