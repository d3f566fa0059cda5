/**
 * Recognising the API server's refusals of a manifest's fields, so they can be answered as the caller's
 * mistake (4xx naming the field) rather than as a platform fault. Three answers of Kubernetes 1.34:
 *
 * 1. Strict field validation on POST/PUT and JSON/merge/strategic PATCH: 400 BadRequest,
 *    `Job in version "v1" cannot be handled as a Job: strict decoding error: unknown field
 *    "spec.backofLimit", unknown field "spec.template.spec.containers[0].comand"` (duplicate fields:
 *    `duplicate field "…"`). The handler decodes the body before anything else and lists every field.
 *    https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation
 *    https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go
 * 2. Server-side apply with an unknown field fails the conversion to a typed object REGARDLESS of
 *    fieldValidation: 500 InternalError, `failed to create typed patch object (ns/name; batch/v1,
 *    Kind=Job): .spec.backofLimit: field not declared in schema` (several: `errors:\n  .a: …\n  .b: …`).
 *    Paths are structured-merge-diff paths, list items by key: `.spec.template.spec.containers[name="main"].comand`.
 *    Upstream bug: https://github.com/kubernetes/kubernetes/issues/139253 (also #122480); fix proposed in
 *    https://github.com/kubernetes/kubernetes/pull/139255 (open). Until it lands this 500 means a bad manifest.
 * 3. A changed immutable field: 422 Invalid whose causes carry the path, e.g. {field: "spec.template",
 *    message: "Invalid value: …: field is immutable"} (apimachinery ValidateImmutableField:
 *    https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apimachinery/pkg/api/validation/generic.go);
 *    a Pod answers `spec: Forbidden: pod updates may not change fields other than …`
 *    (https://github.com/kubernetes/kubernetes/blob/v1.34.0/pkg/apis/core/validation/validation.go).
 */
import type { KubeStatus } from './kube-errors.js';

/** What the server said about the manifest's fields, with user-facing paths (`spec.template.spec.containers[0].comand`). */
export type FieldRefusal =
  | { kind: 'unknown_fields'; unknown: string[]; duplicate: string[] }
  | { kind: 'immutable_fields'; fields: string[] };

const STRICT_DECODING_MARKER = 'strict decoding error';
const STRICT_FIELD = /\b(unknown|duplicate) field "([^"]+)"/g;

const SSA_SCHEMA_MARKER = 'field not declared in schema';
/** One smd path per error line; a path holds no whitespace (keys of keyed lists are DNS labels, numbers). */
const SSA_UNKNOWN_FIELD = /(\.\S+): field not declared in schema/g;

const IMMUTABLE_MARKERS = ['field is immutable', 'may not change fields other than'];

function strictDecodingRefusal(status: KubeStatus): FieldRefusal | undefined {
  if (status.code !== 400 || !status.message.includes(STRICT_DECODING_MARKER)) return undefined;
  const unknown: string[] = [];
  const duplicate: string[] = [];
  for (const [, which, path] of status.message.matchAll(STRICT_FIELD))
    (which === 'unknown' ? unknown : duplicate).push(path!);
  return unknown.length + duplicate.length > 0 ? { kind: 'unknown_fields', unknown, duplicate } : undefined;
}

/** Server-side apply's 500 (kubernetes/kubernetes#139253), recognised by its code and its marker only. */
function ssaSchemaRefusal(status: KubeStatus, manifest: unknown): FieldRefusal | undefined {
  if (status.code !== 500 || !status.message.includes(SSA_SCHEMA_MARKER)) return undefined;
  const unknown = [...status.message.matchAll(SSA_UNKNOWN_FIELD)].map(([, path]) =>
    userPathOfSmdPath(path!, manifest),
  );
  return unknown.length > 0 ? { kind: 'unknown_fields', unknown, duplicate: [] } : undefined;
}

function immutableRefusal(status: KubeStatus): FieldRefusal | undefined {
  if (status.code !== 422) return undefined;
  const fields = (status.details?.causes ?? [])
    .filter((c) => IMMUTABLE_MARKERS.some((marker) => c.message?.includes(marker)))
    .map((c) => c.field ?? '')
    .filter((field) => field !== '');
  if (fields.length > 0) return { kind: 'immutable_fields', fields: [...new Set(fields)] };
  // A Status without causes still names the field in its message: `…: spec.template: Invalid value: …`.
  if (!IMMUTABLE_MARKERS.some((marker) => status.message.includes(marker))) return undefined;
  const named = /is invalid: ([\w.[\]-]+): /.exec(status.message)?.[1];
  return { kind: 'immutable_fields', fields: named ? [named] : [] };
}

/** The field refusal in a failed call's Status, or undefined when the failure is about something else. */
export function fieldRefusalOf(status: KubeStatus, manifest: unknown): FieldRefusal | undefined {
  return strictDecodingRefusal(status) ?? ssaSchemaRefusal(status, manifest) ?? immutableRefusal(status);
}

/**
 * `.spec.template.spec.containers[name="main"].comand` → `spec.template.spec.containers[0].comand`, the
 * index found in the submitted manifest (the form strict decoding and the service's own checks use).
 * A segment that cannot be resolved is kept as the server wrote it.
 */
export function userPathOfSmdPath(smdPath: string, manifest: unknown): string {
  let node: unknown = manifest;
  let out = '';
  for (const [, field, selector] of smdPath.matchAll(/\.([^.[]+)|\[([^\]]*)\]/g)) {
    if (field !== undefined) {
      out += out === '' ? field : `.${field}`;
      node = isObject(node) ? node[field] : undefined;
      continue;
    }
    const index = Array.isArray(node) ? indexOfSelector(node, selector ?? '') : -1;
    out += index >= 0 ? `[${index}]` : `[${selector}]`;
    node = index >= 0 ? (node as unknown[])[index] : undefined;
  }
  return out;
}

/** `[3]`, `[name="main"]`, `[containerPort=80,protocol="TCP"]`, `[="value"]` (a set item). */
function indexOfSelector(list: unknown[], selector: string): number {
  if (/^\d+$/.test(selector)) return Number(selector) < list.length ? Number(selector) : -1;
  const pairs = selector.split(',').map((pair) => {
    const at = pair.indexOf('=');
    return [pair.slice(0, at), parseJson(pair.slice(at + 1))] as const;
  });
  if (pairs.some(([, value]) => value === undefined)) return -1;
  return list.findIndex((item) =>
    pairs.every(([key, value]) => (key === '' ? item === value : isObject(item) && item[key] === value)),
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
