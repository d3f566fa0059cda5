// PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and an approximation of strategic
// merge patch (merge patch plus merge-by-key for the well-known lists such as containers and env).
// Server-side apply reuses the strategic merge (no managed-fields tracking).

import { badRequest, KubeError } from './status.js';
import { arr, clone, deepEqual, isRecord } from './types.js';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export function patchTypeOf(contentType: string): PatchType | undefined {
  const base = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  switch (base) {
    case 'application/json-patch+json':
      return 'json';
    case 'application/merge-patch+json':
      return 'merge';
    case 'application/strategic-merge-patch+json':
      return 'strategic';
    case 'application/apply-patch+yaml':
      return 'apply';
    default:
      return undefined;
  }
}

function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return clone(patch);
  const out: Record<string, unknown> = isRecord(target) ? clone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** List fields merged by key in strategic merge patch (field name → candidate merge keys). */
const MERGE_KEYS: Record<string, string[]> = {
  containers: ['name'],
  initContainers: ['name'],
  ephemeralContainers: ['name'],
  env: ['name'],
  volumes: ['name'],
  volumeMounts: ['mountPath'],
  volumeDevices: ['devicePath'],
  imagePullSecrets: ['name'],
  hostAliases: ['ip'],
  ports: ['containerPort', 'port'],
  conditions: ['type'],
  ownerReferences: ['uid'],
  readinessGates: ['conditionType'],
  topologySpreadConstraints: ['topologyKey'],
  resourceClaims: ['name'],
};

/** Primitive lists whose strategy is "merge" (set union) rather than replace. */
const MERGED_PRIMITIVE_LISTS = new Set(['finalizers']);

function mergeKeyFor(field: string, items: unknown[]): string | undefined {
  const candidates = MERGE_KEYS[field];
  if (!candidates) return undefined;
  return candidates.find((k) => items.some((i) => isRecord(i) && i[k] !== undefined));
}

function strategicList(field: string, target: unknown, patch: unknown[]): unknown[] {
  const current = arr(target);
  if (patch.some((p) => isRecord(p) && p.$patch === 'replace')) {
    return patch.filter((p) => !(isRecord(p) && p.$patch === 'replace')).map(stripDirectives);
  }
  if (MERGED_PRIMITIVE_LISTS.has(field) && patch.every((p) => !isRecord(p))) {
    const out = [...current];
    for (const p of patch) if (!out.some((c) => deepEqual(c, p))) out.push(p);
    return out;
  }
  const key = mergeKeyFor(field, [...current, ...patch]);
  if (!key) return patch.map(stripDirectives);
  const out: unknown[] = clone(current);
  for (const p of patch) {
    if (!isRecord(p)) continue;
    const idx = out.findIndex((c) => isRecord(c) && deepEqual(c[key], p[key]));
    if (p.$patch === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
    } else if (idx >= 0) {
      out[idx] = strategicMerge(out[idx], p);
    } else {
      out.push(stripDirectives(p));
    }
  }
  return out;
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isRecord(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(v)) {
    if (k.startsWith('$')) continue;
    if (val === null) continue;
    out[k] = stripDirectives(val);
  }
  return out;
}

function strategicMerge(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return clone(patch);
  if (patch.$patch === 'replace') return stripDirectives(patch);
  if (patch.$patch === 'delete') return undefined;
  const out: Record<string, unknown> = isRecord(target) ? clone(target) : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$')) continue; // $setElementOrder, $retainKeys, $deleteFromPrimitiveList: ignored
    if (v === null) delete out[k];
    else if (Array.isArray(v)) out[k] = strategicList(k, out[k], v);
    else {
      const merged = strategicMerge(out[k], v);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    }
  }
  return out;
}

// ---- RFC 6902 JSON patch ----

function patchFailure(message: string): KubeError {
  // The real server reports a JSON patch that cannot be applied as 422 with an empty reason.
  return new KubeError(422, 'Invalid', message);
}

function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw badRequest(`json patch path "${path}" must start with "/"`);
  return path
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function resolveParent(doc: unknown, tokens: string[], path: string): { parent: unknown; key: string } {
  let cur = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) {
      const i = Number(t);
      if (!/^\d+$/.test(t) || i >= cur.length) throw patchFailure(`jsonpatch: path "${path}" does not exist`);
      cur = cur[i];
    } else if (isRecord(cur) && Object.prototype.hasOwnProperty.call(cur, t)) {
      cur = cur[t];
    } else {
      throw patchFailure(`jsonpatch: path "${path}" does not exist`);
    }
  }
  return { parent: cur, key: tokens[tokens.length - 1] ?? '' };
}

function getAt(doc: unknown, path: string): unknown {
  const tokens = pointer(path);
  if (tokens.length === 0) return doc;
  const { parent, key } = resolveParent(doc, tokens, path);
  if (Array.isArray(parent) && /^\d+$/.test(key) && Number(key) < parent.length) return parent[Number(key)];
  if (isRecord(parent) && Object.prototype.hasOwnProperty.call(parent, key)) return parent[key];
  throw patchFailure(`jsonpatch: path "${path}" does not exist`);
}

function removeAt(doc: unknown, path: string): unknown {
  const tokens = pointer(path);
  const { parent, key } = resolveParent(doc, tokens, path);
  if (Array.isArray(parent) && /^\d+$/.test(key) && Number(key) < parent.length) {
    return parent.splice(Number(key), 1)[0];
  }
  if (isRecord(parent) && Object.prototype.hasOwnProperty.call(parent, key)) {
    const v = parent[key];
    delete parent[key];
    return v;
  }
  throw patchFailure(`jsonpatch remove operation does not apply: doc is missing path: "${path}"`);
}

function addAt(doc: unknown, path: string, value: unknown, replace: boolean): unknown {
  const tokens = pointer(path);
  if (tokens.length === 0) return clone(value);
  const { parent, key } = resolveParent(doc, tokens, path);
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : Number(key);
    if (!/^\d+$/.test(key) && key !== '-') throw patchFailure(`jsonpatch: invalid array index "${key}"`);
    if (replace) {
      if (i >= parent.length)
        throw patchFailure(`jsonpatch replace operation does not apply: doc is missing key: ${path}`);
      parent[i] = clone(value);
    } else {
      if (i > parent.length)
        throw patchFailure(`jsonpatch add operation does not apply: index out of bounds: ${path}`);
      parent.splice(i, 0, clone(value));
    }
  } else if (isRecord(parent)) {
    if (replace && !Object.prototype.hasOwnProperty.call(parent, key)) {
      throw patchFailure(`jsonpatch replace operation does not apply: doc is missing key: ${path}`);
    }
    parent[key] = clone(value);
  } else {
    throw patchFailure(`jsonpatch: path "${path}" does not exist`);
  }
  return doc;
}

function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest('json patch must be an array of operations');
  let doc = clone(target);
  for (const op of ops) {
    if (!isRecord(op) || typeof op.op !== 'string' || typeof op.path !== 'string') {
      throw badRequest('json patch operation must have string "op" and "path"');
    }
    const path = op.path;
    switch (op.op) {
      case 'add':
        if (!('value' in op)) throw badRequest('json patch "add" needs a value');
        doc = addAt(doc, path, op.value, false);
        break;
      case 'replace':
        if (!('value' in op)) throw badRequest('json patch "replace" needs a value');
        doc = addAt(doc, path, op.value, true);
        break;
      case 'remove':
        removeAt(doc, path);
        break;
      case 'move':
      case 'copy': {
        if (typeof op.from !== 'string') throw badRequest(`json patch "${op.op}" needs "from"`);
        const v = op.op === 'move' ? removeAt(doc, op.from) : clone(getAt(doc, op.from));
        doc = addAt(doc, path, v, false);
        break;
      }
      case 'test':
        if (!deepEqual(getAt(doc, path), op.value))
          throw patchFailure(`jsonpatch: testing value ${path} failed`);
        break;
      default:
        throw badRequest(`json patch: unknown operation "${op.op}"`);
    }
  }
  return doc;
}

/** Applies a patch body of the given type to the current object (apply = strategic merge). */
export function applyPatch(type: PatchType, current: unknown, body: unknown): unknown {
  switch (type) {
    case 'json':
      return jsonPatch(current, body);
    case 'merge':
      if (!isRecord(body)) throw badRequest('merge patch body must be a JSON object');
      return mergePatch(current, body);
    case 'strategic':
    case 'apply':
      if (!isRecord(body)) throw badRequest('patch body must be a JSON object');
      return strategicMerge(current, body);
  }
}
