// The known fields of every built-in kind, taken from the models @kubernetes/client-node generates from
// the upstream Kubernetes OpenAPI spec (their headers: "OpenAPI spec version: v1.34.0"), not hand-written.
// Each model class has a static getAttributeTypeMap() of {baseName (the JSON field), type}; the types
// resolve here into a field tree that the strict field checks (field-validation.ts) and /openapi/v3
// (openapi-v3.ts) walk. CRD-backed kinds have no model: they get no tree and keep their behaviour.

import * as clientNode from '@kubernetes/client-node';

import type { ResourceType } from './registry.js';

/** A field's value: a typed object, a list, a string-keyed map, a scalar, or free-form JSON. */
export type FieldNode =
  | ObjectNode
  | { kind: 'array'; items: FieldNode }
  | { kind: 'map'; values: FieldNode }
  | { kind: 'scalar'; type: ScalarType; format: string }
  | { kind: 'any' };

type ScalarType = 'string' | 'number' | 'boolean' | 'Date' | 'IntOrString';

export interface ObjectNode {
  kind: 'object';
  /** The client-node model name (V1JobSpec), also the schema name in /openapi/v3. */
  model: string;
  /** JSON field name → value; filled after creation so that recursive models (JSONSchemaProps) resolve. */
  fields: Map<string, FieldNode>;
}

interface AttributeType {
  baseName: string;
  type: string;
  format: string;
}

interface ModelClass {
  getAttributeTypeMap(): AttributeType[];
}

/** Free-form JSON in the generated types (RawExtension, JSON, fieldsV1): anything is accepted below it. */
export const ANY_NODE: FieldNode = { kind: 'any' };

const SCALARS = new Set<string>(['string', 'number', 'boolean', 'Date', 'IntOrString']);

function modelClass(name: string): ModelClass | undefined {
  const candidate: unknown = (clientNode as Record<string, unknown>)[name];
  if (typeof candidate !== 'function') return undefined;
  const getter: unknown = (candidate as unknown as Record<string, unknown>).getAttributeTypeMap;
  return typeof getter === 'function' ? (candidate as unknown as ModelClass) : undefined;
}

const objectCache = new Map<string, ObjectNode>();

function resolveType(type: string, format: string): FieldNode {
  const array = /^Array<(.+)>$/.exec(type);
  if (array?.[1]) return { kind: 'array', items: resolveType(array[1], format) };
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map?.[1]) return { kind: 'map', values: resolveType(map[1], format) };
  if (SCALARS.has(type)) return { kind: 'scalar', type: type as ScalarType, format };
  return objectNode(type) ?? ANY_NODE; // 'any', 'object' and anything without a model are free-form
}

/** The field tree of one model, built once (lazily) and shared. */
function objectNode(model: string): ObjectNode | undefined {
  const cached = objectCache.get(model);
  if (cached) return cached;
  const cls = modelClass(model);
  if (!cls) return undefined;
  const node: ObjectNode = { kind: 'object', model, fields: new Map() };
  objectCache.set(model, node); // before the fields, so a model that contains itself terminates
  for (const attr of cls.getAttributeTypeMap())
    node.fields.set(attr.baseName, resolveType(attr.type, attr.format));
  return node;
}

/**
 * The client-node model of a kind at a version: `V1` + `Job`, `V2` + `HorizontalPodAutoscaler`, and the
 * core Event, which the generator names CoreV1Event (events.k8s.io has EventsV1Event).
 */
function modelNameOf(type: ResourceType, version: string): string | undefined {
  const prefix = version.charAt(0).toUpperCase() + version.slice(1);
  const candidates =
    type.group === '' ? [`Core${prefix}${type.kind}`, `${prefix}${type.kind}`] : [`${prefix}${type.kind}`];
  return candidates.find((name) => {
    const node = objectNode(name);
    // A model of the kind itself has apiVersion/kind/metadata (V1Event in client-node is not the core one).
    return node?.fields.has('apiVersion') && node.fields.has('kind');
  });
}

/** API groups whose kinds are built in (a CRD's kind in its own group never borrows a built-in model). */
const BUILT_IN_GROUPS = new Set([
  '',
  'apps',
  'batch',
  'networking.k8s.io',
  'rbac.authorization.k8s.io',
  'policy',
  'autoscaling',
  'coordination.k8s.io',
  'storage.k8s.io',
  'scheduling.k8s.io',
  'apiextensions.k8s.io',
]);

/** The field tree of a served kind, or undefined for kinds without an upstream model (CRDs, metrics). */
export function schemaOf(type: ResourceType, version: string): ObjectNode | undefined {
  if (type.virtual || !BUILT_IN_GROUPS.has(type.group)) return undefined;
  const name = modelNameOf(type, version);
  return name ? objectNode(name) : undefined;
}
