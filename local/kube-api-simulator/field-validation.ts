// Server-side field validation: the `fieldValidation` query parameter (Strict / Warn / Ignore, Warn by
// default since Kubernetes 1.27) on create, update and patch, with the real API server's paths and
// messages for unknown and duplicate fields, and server-side apply's typed-conversion failure.
// https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation
// Messages as in upstream's test/integration/apiserver/field_validation_test.go (sigs.k8s.io/json's
// strict decoding: `unknown field "spec.x"`, `duplicate field "spec.x"`, list items as `[0]`).
// Only built-in kinds are checked (field-schema.ts); CRD-backed kinds keep their behaviour.

import type { FieldNode, ObjectNode } from './field-schema.js';
import { ANY_NODE, schemaOf } from './field-schema.js';
import type { PatchType } from './patch.js';
import type { ResourceType } from './registry.js';
import { apiVersionOf } from './registry.js';
import type { StatusBody } from './status.js';
import { badRequest, invalid, KubeError } from './status.js';
import type { JsonRecord } from './types.js';
import { isRecord } from './types.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions';

/**
 * `fieldValidation` of a request; absent or empty is Warn. Any other value is refused as upstream's
 * ValidateFieldValidation does (field.NotSupported inside an Invalid {Create,Update,Patch}Options).
 */
export function fieldValidationOf(query: URLSearchParams, options: OptionsKind): FieldValidation {
  const raw = query.get('fieldValidation') ?? '';
  if (raw === '') return 'Warn';
  if (raw === 'Strict' || raw === 'Warn' || raw === 'Ignore') return raw;
  throw invalid(options, 'meta.k8s.io', '', [
    {
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: "${raw}": supported values: "", "Ignore", "Strict", "Warn"`,
      field: 'fieldValidation',
    },
  ]);
}

// ---- the raw body: duplicates (JSON.parse keeps only the last) and unknown fields in document order ----

interface RawIssue {
  kind: 'unknown' | 'duplicate';
  path: string;
  key: string;
  /** 1-based line of the key (yaml.v2 reports duplicate keys by line). */
  line: number;
}

const SKIP: unique symbol = Symbol('skip');

/** Recursive descent over JSON text that JSON.parse already accepted, reporting what a strict decoder would. */
class RawScanner {
  private i = 0;
  readonly issues: RawIssue[] = [];

  constructor(private readonly text: string) {}

  private ws(): void {
    while (this.i < this.text.length && /\s/.test(this.text.charAt(this.i))) this.i++;
  }

  private lineAt(pos: number): number {
    let line = 1;
    for (let p = 0; p < pos; p++) if (this.text.charCodeAt(p) === 0x0a) line++;
    return line;
  }

  private string(): string {
    const start = this.i;
    this.i++; // opening quote
    while (this.i < this.text.length && this.text.charAt(this.i) !== '"') {
      this.i += this.text.charAt(this.i) === '\\' ? 2 : 1;
    }
    this.i++; // closing quote
    return JSON.parse(this.text.slice(start, this.i)) as string;
  }

  value(node: FieldNode | typeof SKIP, path: string): void {
    this.ws();
    const c = this.text.charAt(this.i);
    if (c === '{') this.object(node, path);
    else if (c === '[') this.array(node, path);
    else if (c === '"') this.string();
    else while (this.i < this.text.length && !/[\s,\]}]/.test(this.text.charAt(this.i))) this.i++;
  }

  private object(node: FieldNode | typeof SKIP, path: string): void {
    this.i++;
    const seen = new Set<string>();
    this.ws();
    if (this.text.charAt(this.i) === '}') {
      this.i++;
      return;
    }
    for (;;) {
      this.ws();
      const keyAt = this.i;
      const key = this.string();
      const childPath = path ? `${path}.${key}` : key;
      let child: FieldNode | typeof SKIP = SKIP;
      if (node !== SKIP) {
        if (node.kind === 'object') {
          const known = node.fields.get(key);
          if (known) child = known;
          else this.issues.push({ kind: 'unknown', path: childPath, key, line: this.lineAt(keyAt) });
        } else if (node.kind === 'map') child = node.values;
        else if (node.kind === 'any') child = ANY_NODE;
        // Fields both unknown and duplicated are reported as unknown only (upstream test, typed objects).
        if (seen.has(key) && child !== SKIP)
          this.issues.push({ kind: 'duplicate', path: childPath, key, line: this.lineAt(keyAt) });
      }
      seen.add(key);
      this.ws();
      this.i++; // ':'
      this.value(child, childPath);
      this.ws();
      const sep = this.text.charAt(this.i++);
      if (sep !== ',') return;
    }
  }

  private array(node: FieldNode | typeof SKIP, path: string): void {
    this.i++;
    this.ws();
    if (this.text.charAt(this.i) === ']') {
      this.i++;
      return;
    }
    const items =
      node === SKIP ? SKIP : node.kind === 'array' ? node.items : node.kind === 'any' ? ANY_NODE : SKIP;
    for (let index = 0; ; index++) {
      this.value(items, `${path}[${index}]`);
      this.ws();
      const sep = this.text.charAt(this.i++);
      if (sep !== ',') return;
    }
  }
}

function scanRaw(text: string, root: FieldNode): RawIssue[] {
  const scanner = new RawScanner(text);
  scanner.value(root, '');
  return scanner.issues;
}

function strictText(issue: { kind: 'unknown' | 'duplicate'; path: string }): string {
  return `${issue.kind} field "${issue.path}"`;
}

/** One message per issue, deduplicated as sigs.k8s.io/json's saveStrictError does. */
function uniqueTexts(texts: string[]): string[] {
  return [...new Set(texts)];
}

// ---- unknown fields of a parsed object ----

interface UnknownField {
  /** Strict-decoding path: spec.template.spec.containers[0].comand */
  path: string;
  /** structured-merge-diff path: .spec.template.spec.containers[name="main"].comand */
  typedPath: string;
  parent: JsonRecord;
  key: string;
}

/**
 * Lists whose items server-side apply addresses by key (`+listType=map` in the upstream Go types); the
 * client-node models do not carry these markers, so the few the platform's kinds use are listed here.
 */
const LIST_MAP_KEYS: Record<string, Record<string, string[]>> = {
  V1PodSpec: {
    containers: ['name'],
    initContainers: ['name'],
    ephemeralContainers: ['name'],
    volumes: ['name'],
  },
  V1Container: { env: ['name'], ports: ['containerPort', 'protocol'] },
  V1EphemeralContainer: { env: ['name'], ports: ['containerPort', 'protocol'] },
  V1ServiceSpec: { ports: ['port', 'protocol'] },
  V1ObjectMeta: { ownerReferences: ['uid'] },
};

function typedItem(keys: string[] | undefined, item: unknown, index: number): string {
  if (!keys || !isRecord(item)) return `[${index}]`;
  // `protocol` is defaulted to TCP in the schema's list-map key defaults.
  const parts = keys.map((k) => {
    const v = item[k] ?? (k === 'protocol' ? 'TCP' : undefined);
    return `${k}=${JSON.stringify(v ?? null)}`;
  });
  return `[${parts.join(',')}]`;
}

function collectUnknown(
  value: unknown,
  node: FieldNode,
  sorted: boolean,
  path: string,
  typedPath: string,
  out: UnknownField[],
): void {
  if (node.kind === 'scalar' || node.kind === 'any') return;
  if (node.kind === 'array') {
    if (!Array.isArray(value)) return;
    value.forEach((item, i) =>
      collectUnknown(item, node.items, sorted, `${path}[${i}]`, `${typedPath}[${i}]`, out),
    );
    return;
  }
  if (!isRecord(value)) return;
  const keys = sorted ? Object.keys(value).sort() : Object.keys(value);
  for (const key of keys) {
    const childPath = path ? `${path}.${key}` : key;
    const childTyped = `${typedPath}.${key}`;
    if (node.kind === 'map') {
      collectUnknown(value[key], node.values, sorted, childPath, childTyped, out);
      continue;
    }
    const child = node.fields.get(key);
    if (!child) {
      out.push({ path: childPath, typedPath: childTyped, parent: value, key });
      continue;
    }
    const listKeys = LIST_MAP_KEYS[node.model]?.[key];
    const items = value[key];
    if (child.kind === 'array' && listKeys && Array.isArray(items)) {
      items.forEach((item, i) =>
        collectUnknown(
          item,
          child.items,
          sorted,
          `${childPath}[${i}]`,
          `${childTyped}${typedItem(listKeys, item, i)}`,
          out,
        ),
      );
    } else {
      collectUnknown(items, child, sorted, childPath, childTyped, out);
    }
  }
}

function unknownFields(value: unknown, schema: ObjectNode, sorted: boolean): UnknownField[] {
  const out: UnknownField[] = [];
  collectUnknown(value, schema, sorted, '', '', out);
  return out;
}

/** Unknown-field paths the stored object already has (written by the simulator itself): never reported. */
function alreadyStored(current: unknown, schema: ObjectNode): Set<string> {
  return new Set(current === undefined ? [] : unknownFields(current, schema, false).map((u) => u.path));
}

function drop(fields: UnknownField[]): void {
  for (const f of fields) delete f.parent[f.key];
}

/** `Warning: 299 - "unknown field \"spec.x\""`, one header value per warning. */
function warningHeader(text: string): string {
  return `299 - "${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function warningHeaders(texts: string[]): string[] {
  return texts.map(warningHeader);
}

// ---- create / update ----

/**
 * POST and PUT: unknown and duplicate fields of the raw body, in document order. Strict refuses them
 * (400); Warn and Ignore drop unknown fields from `obj` (the decoded body) and Warn returns the warnings.
 */
export function checkBodyFields(
  type: ResourceType,
  version: string,
  raw: string,
  obj: JsonRecord,
  directive: FieldValidation,
  current?: unknown,
): string[] {
  const schema = schemaOf(type, version);
  if (!schema || raw === '') return [];
  const stored = alreadyStored(current, schema);
  const issues = scanRaw(raw, schema).filter((i) => i.kind === 'duplicate' || !stored.has(i.path));
  const texts = uniqueTexts(issues.map(strictText));
  if (directive === 'Strict' && texts.length > 0) {
    throw badRequest(
      `${type.kind} in version "${version}" cannot be handled as a ${type.kind}: strict decoding error: ${texts.join(', ')}`,
    );
  }
  drop(unknownFields(obj, schema, false).filter((u) => !stored.has(u.path)));
  return directive === 'Warn' ? texts : [];
}

// ---- patch ----

const JSON_PATCH_OP_FIELDS = new Set(['op', 'path', 'value', 'from']);

/** `json patch unknown field "[0].foo"` / `json patch duplicate field "[1].path"` for the operations. */
function jsonPatchOpIssues(raw: string): string[] {
  const opSchema: ObjectNode = { kind: 'object', model: 'JsonPatchOperation', fields: new Map() };
  for (const f of JSON_PATCH_OP_FIELDS) opSchema.fields.set(f, ANY_NODE);
  const issues = scanRaw(raw, { kind: 'array', items: opSchema }).filter(
    (i) => i.kind === 'unknown' || /^\[\d+\]\.[^.[]+$/.test(i.path),
  );
  return issues.map((i) => `json patch ${strictText(i)}`);
}

/**
 * JSON, merge and strategic-merge patches: duplicates in the patch body (document order), then the
 * unknown fields of the patched object (sorted key order: upstream re-encodes the patched map and
 * strict-decodes it). Strict refuses them; Warn and Ignore drop the unknown fields from `patched`.
 */
export function checkPatchFields(
  type: ResourceType,
  version: string,
  patchType: Exclude<PatchType, 'apply'>,
  raw: string,
  current: unknown,
  patched: unknown,
  directive: FieldValidation,
): string[] {
  const schema = schemaOf(type, version);
  if (!schema || raw === '') return [];
  const bodyIssues = patchType === 'json' ? jsonPatchOpIssues(raw) : scanRaw(raw, ANY_NODE).map(strictText);
  const stored = alreadyStored(current, schema);
  const unknown = unknownFields(patched, schema, true).filter((u) => !stored.has(u.path));
  const texts = uniqueTexts([
    ...bodyIssues,
    ...unknown.map((u) => strictText({ kind: 'unknown', path: u.path })),
  ]);
  if (directive === 'Strict' && texts.length > 0)
    throw badRequest(`strict decoding error: ${texts.join(', ')}`);
  drop(unknown);
  return directive === 'Warn' ? texts : [];
}

// ---- server-side apply ----

/** A failure the real server answers without a `reason` (a plain Go error turned into a 500 Status). */
class ReasonlessError extends KubeError {
  override toStatus(): StatusBody {
    const body = super.toStatus();
    delete body.reason;
    return body;
  }
}

/**
 * Server-side apply: duplicate keys fail YAML strict decoding (400 under Strict, warnings under Warn);
 * then an unknown field fails the typed conversion of the patch whatever fieldValidation says, as an
 * HTTP 500 without a reason: a known upstream bug (structuredmerge.go returns a plain error),
 * https://github.com/kubernetes/kubernetes/issues/122480 and
 * https://github.com/kubernetes/kubernetes/issues/139253.
 */
export function checkApplyFields(
  type: ResourceType,
  version: string,
  raw: string,
  applied: JsonRecord,
  directive: FieldValidation,
  namespace: string | undefined,
  name: string,
): string[] {
  const schema = schemaOf(type, version);
  if (!schema || raw === '') return [];
  const duplicates = scanRaw(raw, ANY_NODE).map((i) => `line ${i.line}: key "${i.key}" already set in map`);
  if (directive === 'Strict' && duplicates.length > 0) {
    throw badRequest(
      `error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  ${duplicates.join('\n  ')}`,
    );
  }
  const unknown = unknownFields(applied, schema, true);
  if (unknown.length > 0) {
    const errors = unknown.map((u) => `${u.typedPath}: field not declared in schema`);
    const joined = errors.length === 1 ? (errors[0] ?? '') : ['errors:', ...errors].join('\n  ');
    const gvk = `${type.group ? apiVersionOf(type.group, version) : `/${version}`}, Kind=${type.kind}`;
    throw new ReasonlessError(
      500,
      '',
      `failed to create typed patch object (${namespace ?? ''}/${name}; ${gvk}): ${joined}`,
    );
  }
  return directive === 'Warn' ? duplicates : [];
}
