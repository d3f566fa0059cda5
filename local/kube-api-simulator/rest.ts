// The REST verbs for stored resources: create, get, list, replace (PUT), patch, delete and
// deletecollection, including the status subresource, dryRun=All, preconditions, optimistic
// concurrency and propagation policies, with the API server's status codes and messages.

import { randomUUID } from 'node:crypto';

import { admitCreate } from './admission.js';
import type { SimContext } from './context.js';
import { applyDefaults, qosClass } from './defaults.js';
import {
  checkApplyFields,
  checkBodyFields,
  checkPatchFields,
  fieldValidationOf,
  warningHeaders,
} from './field-validation.js';
import type { Propagation } from './gc.js';
import { deleteNamespaceContents, deleteWithDependents } from './gc.js';
import { checkImmutableFields } from './immutability.js';
import { MAX_GENERATE_NAME_PREFIX, randomSuffix } from './names.js';
import { paginate, parseLimit } from './pagination.js';
import type { PatchType } from './patch.js';
import { applyPatch } from './patch.js';
import { withQuotaStatus } from './quota.js';
import type { ResourceType } from './registry.js';
import { apiVersionOf } from './registry.js';
import { matches, parseSelectors } from './selectors.js';
import type { ResourceRef } from './status.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  forbidden,
  invalid,
  KubeError,
  methodNotAllowed,
  notFound,
  success,
} from './status.js';
import type { KubeObject, JsonRecord } from './types.js';
import { arr, clone, isRecord, nowIso, rec, str, uidOf } from './types.js';
import { validateObject } from './validation.js';

export interface Target {
  type: ResourceType;
  version: string;
  /** Set when the URL had /namespaces/{ns}/ (always for namespaced objects, optional for lists). */
  namespace?: string;
  name?: string;
  subresource?: string;
}

export interface Reply {
  status: number;
  body: unknown;
  /** A header with several values (one `Warning` per warning) is an array. */
  headers?: Record<string, string | string[]>;
}

/** Adds one `Warning` header per field-validation warning. */
function withWarnings(reply: Reply, warnings: string[]): Reply {
  if (warnings.length > 0) reply.headers = { ...reply.headers, Warning: warningHeaders(warnings) };
  return reply;
}

const PROTECTED_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

function ref(type: ResourceType): ResourceRef {
  return { group: type.group, resource: type.plural };
}

/** `dryRun` from the query (repeatable) or a DeleteOptions body; only "All" is valid. */
function isDryRun(query: URLSearchParams, body?: unknown): boolean {
  const fromBody = rec(body).dryRun;
  const values: unknown[] = [...query.getAll('dryRun'), ...arr(fromBody)];
  for (const v of values) {
    if (v !== 'All') throw badRequest(`Invalid dryRun value: "${String(v)}": supported values: "All"`);
  }
  return values.length > 0;
}

/** Present an object as the API returns it (quota status is computed live; apiVersion of the request). */
export function present(ctx: SimContext, type: ResourceType, obj: KubeObject, version?: string): KubeObject {
  const out =
    type.group === '' && type.plural === 'resourcequotas'
      ? withQuotaStatus(ctx.store, ctx.registry, obj)
      : clone(obj);
  if (version) out.apiVersion = apiVersionOf(type.group, version);
  return out;
}

/**
 * Like present(), for an object that is only serialized (list items): a stored (frozen) object is not
 * copied, only its top level when the apiVersion differs.
 */
function presentView(ctx: SimContext, type: ResourceType, obj: KubeObject, version: string): KubeObject {
  if (type.group === '' && type.plural === 'resourcequotas') return present(ctx, type, obj, version);
  const apiVersion = apiVersionOf(type.group, version);
  return obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion };
}

/** Checks apiVersion/kind/namespace of a body against the URL and returns it as an object. */
function objectFromBody(target: Target, body: unknown): KubeObject {
  if (!isRecord(body)) throw badRequest('the request body must be a JSON object');
  const { type } = target;
  const expected = apiVersionOf(type.group, target.version);
  const apiVersion = str(body.apiVersion);
  const kind = str(body.kind);
  if (apiVersion !== undefined && apiVersion !== expected) {
    throw badRequest(
      `the API version in the data (${apiVersion}) does not match the expected API version (${expected})`,
    );
  }
  if (kind !== undefined && kind !== type.kind) {
    throw badRequest(`the kind in the data (${kind}) does not match the expected kind (${type.kind})`);
  }
  if (body.metadata !== undefined && !isRecord(body.metadata)) throw badRequest('metadata must be an object');
  const metadata: JsonRecord = { ...rec(body.metadata) };
  if (metadata.name !== undefined && typeof metadata.name !== 'string')
    throw badRequest('metadata.name must be a string');
  const obj: KubeObject = {
    ...body,
    apiVersion: expected,
    kind: type.kind,
    metadata: { ...metadata, name: str(metadata.name) ?? '' },
  };
  if (type.namespaced) {
    const ns = str(metadata.namespace);
    if (ns && target.namespace && ns !== target.namespace) {
      throw badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    const resolved = target.namespace ?? ns;
    if (!resolved) throw badRequest('the namespace of the object must be set for a namespaced resource');
    obj.metadata.namespace = resolved;
  } else {
    delete obj.metadata.namespace;
  }
  return obj;
}

function requireNamespace(ctx: SimContext, type: ResourceType, namespace: string | undefined): void {
  if (!type.namespaced || !namespace) return;
  if (!ctx.store.has(ctx.registry.core('namespaces'), undefined, namespace)) {
    throw notFound({ group: '', resource: 'namespaces' }, namespace);
  }
}

/**
 * The create path shared by POST, server-side apply of a new object and the job controller:
 * name generation, uid, defaults, validation, admission, then storage.
 */
export function createObject(
  ctx: SimContext,
  type: ResourceType,
  input: KubeObject,
  dryRun = false,
): KubeObject {
  const obj = clone(input);
  const m = obj.metadata;
  requireNamespace(ctx, type, m.namespace);
  const generateName = str(m.generateName);
  if (!m.name && generateName) {
    const base = generateName.slice(0, MAX_GENERATE_NAME_PREFIX);
    do m.name = base + randomSuffix();
    while (ctx.store.has(type, m.namespace, m.name));
  }
  for (const k of [
    'resourceVersion',
    'uid',
    'creationTimestamp',
    'deletionTimestamp',
    'deletionGracePeriodSeconds',
    'managedFields',
    'selfLink',
  ]) {
    delete m[k];
  }
  m.uid = randomUUID();
  if (type.subresources.includes('status') && !(type.group === '' && type.plural === 'namespaces'))
    delete obj.status;
  applyDefaults(obj, type);
  validateObject(obj, type, true);
  if (m.name && ctx.store.has(type, m.namespace, m.name)) throw alreadyExists(ref(type), m.name);
  admitCreate(ctx.store, ctx.registry, obj, type);
  if (type.group === '' && type.plural === 'pods') rec(obj.status).qosClass = qosClass(rec(obj.spec));
  const created = ctx.store.create(type, obj, { dryRun });
  if (type.group === '' && type.plural === 'namespaces' && !dryRun) ensureDefaultServiceAccount(ctx, m.name);
  return created;
}

/** The service-account controller gives every namespace a `default` ServiceAccount. */
export function ensureDefaultServiceAccount(ctx: SimContext, namespace: string): void {
  const saType = ctx.registry.core('serviceaccounts');
  if (ctx.store.has(saType, namespace, 'default')) return;
  ctx.store.create(saType, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: 'default', namespace },
  });
}

export function create(
  ctx: SimContext,
  target: Target,
  body: unknown,
  query: URLSearchParams,
  raw = '',
): Reply {
  if (target.subresource)
    throw methodNotAllowed(`the server does not allow this method on the requested resource`);
  if (target.type.namespaced && !target.namespace) {
    throw methodNotAllowed('the server does not allow this method on the requested resource');
  }
  const directive = fieldValidationOf(query, 'CreateOptions');
  const obj = objectFromBody(target, body);
  const warnings = checkBodyFields(target.type, target.version, raw, obj, directive);
  const created = createObject(ctx, target.type, obj, isDryRun(query));
  return withWarnings({ status: 201, body: present(ctx, target.type, created, target.version) }, warnings);
}

function getExisting(ctx: SimContext, target: Target): KubeObject {
  const name = target.name ?? '';
  const obj = ctx.store.get(target.type, target.namespace, name);
  if (!obj) throw notFound(ref(target.type), name);
  return obj;
}

/** GET of one object (or its status subresource), as presented to clients. */
export function getObject(ctx: SimContext, target: Target): KubeObject {
  if (target.subresource && target.subresource !== 'status') throw notFoundSub(target);
  return present(ctx, target.type, getExisting(ctx, target), target.version);
}

function notFoundSub(target: Target): KubeError {
  return new KubeError(404, 'NotFound', 'the server could not find the requested resource', {
    name: target.name ?? '',
    kind: `${target.type.plural}/${target.subresource ?? ''}`,
  });
}

export function listObjects(
  ctx: SimContext,
  target: Target,
  query: URLSearchParams,
): { items: KubeObject[]; metadata: JsonRecord } {
  const selectors = parseSelectors(query, target.type);
  const limit = parseLimit(query.get('limit'));
  const all = ctx.store.scan(target.type, target.namespace).filter((o) => matches(selectors, o));
  const rv = ctx.store.resourceVersion();
  const page = paginate(all, limit, query.get('continue'), rv);
  const metadata: JsonRecord = { resourceVersion: rv };
  if (page.continue) {
    metadata.continue = page.continue;
    metadata.remainingItemCount = page.remainingItemCount;
  }
  return { items: page.items.map((o) => presentView(ctx, target.type, o, target.version)), metadata };
}

export function list(ctx: SimContext, target: Target, query: URLSearchParams): Reply {
  const { items, metadata } = listObjects(ctx, target, query);
  return {
    status: 200,
    body: {
      kind: `${target.type.kind}List`,
      apiVersion: apiVersionOf(target.type.group, target.version),
      metadata,
      items,
    },
  };
}

/** Shared tail of PUT and PATCH: subresource scoping, concurrency check, validation, storage. */
function update(
  ctx: SimContext,
  target: Target,
  current: KubeObject,
  proposed: KubeObject,
  dryRun: boolean,
): KubeObject {
  const { type } = target;
  const name = current.metadata.name;
  if (proposed.metadata.name !== name) {
    throw badRequest(
      `the name of the object (${proposed.metadata.name}) does not match the name on the URL (${name})`,
    );
  }
  const rv = str(proposed.metadata.resourceVersion);
  if (rv !== undefined && rv !== '' && rv !== str(current.metadata.resourceVersion)) {
    throw conflict(
      ref(type),
      name,
      'the object has been modified; please apply your changes to the latest version and try again',
    );
  }
  let next: KubeObject;
  if (target.subresource === 'status') {
    next = clone(current);
    if (proposed.status === undefined) delete next.status;
    else next.status = proposed.status;
  } else {
    next = clone(proposed);
    next.metadata.namespace = current.metadata.namespace;
    // The main resource ignores status changes when a status subresource exists.
    if (type.subresources.includes('status')) {
      if (current.status === undefined) delete next.status;
      else next.status = current.status;
    }
    for (const k of ['uid', 'creationTimestamp', 'deletionTimestamp']) next.metadata[k] = current.metadata[k];
    delete next.metadata.managedFields;
  }
  next.apiVersion = current.apiVersion;
  next.kind = current.kind;
  checkImmutableFields(type, current, next, target.subresource);
  validateObject(next, type, false);
  return ctx.store.update(type, next, { dryRun });
}

export function replace(
  ctx: SimContext,
  target: Target,
  body: unknown,
  query: URLSearchParams,
  raw = '',
): Reply {
  if (target.subresource && target.subresource !== 'status') throw notFoundSub(target);
  const directive = fieldValidationOf(query, 'UpdateOptions');
  const obj = objectFromBody(target, body);
  if (!obj.metadata.name) obj.metadata.name = target.name ?? '';
  const current = getExisting(ctx, target);
  const warnings = checkBodyFields(target.type, target.version, raw, obj, directive, current);
  const updated = update(ctx, target, current, obj, isDryRun(query));
  return withWarnings({ status: 200, body: present(ctx, target.type, updated, target.version) }, warnings);
}

export function patch(
  ctx: SimContext,
  target: Target,
  patchType: PatchType,
  body: unknown,
  query: URLSearchParams,
  raw = '',
): Reply {
  if (target.subresource && target.subresource !== 'status') throw notFoundSub(target);
  const dryRun = isDryRun(query);
  const directive = fieldValidationOf(query, 'PatchOptions');
  const { type } = target;
  const name = target.name ?? '';
  let warnings: string[] = [];
  if (patchType === 'apply') {
    const fieldManager = query.get('fieldManager');
    if (!fieldManager) {
      throw invalid('PatchOptions', 'meta.k8s.io', '', [
        {
          reason: 'FieldValueRequired',
          message: 'Required value: is required for apply patch',
          field: 'fieldManager',
        },
      ]);
    }
    const applied = objectFromBody(target, body);
    if (applied.metadata.name !== name) {
      throw badRequest(
        `the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`,
      );
    }
    warnings = checkApplyFields(type, target.version, raw, applied, directive, target.namespace, name);
    const existing = ctx.store.get(type, target.namespace, name);
    if (!existing) {
      if (target.subresource) throw notFound(ref(type), name);
      const created = createObject(ctx, type, applied, dryRun);
      return withWarnings({ status: 201, body: present(ctx, type, created, target.version) }, warnings);
    }
  }
  const current = getExisting(ctx, target);
  const patched = applyPatch(patchType, current, body);
  if (patchType !== 'apply')
    warnings = checkPatchFields(type, target.version, patchType, raw, current, patched, directive);
  if (!isRecord(patched) || !isRecord(patched.metadata)) {
    throw new KubeError(
      422,
      'Invalid',
      `${type.kind} "${name}" is invalid: the patched object is not a valid object`,
    );
  }
  const proposed: KubeObject = {
    ...patched,
    apiVersion: current.apiVersion,
    kind: current.kind,
    metadata: { ...patched.metadata, name: str(patched.metadata.name) ?? '' },
  };
  if (type.namespaced && proposed.metadata.namespace !== current.metadata.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const updated = update(ctx, target, current, proposed, dryRun);
  return withWarnings({ status: 200, body: present(ctx, type, updated, target.version) }, warnings);
}

function propagationOf(
  type: ResourceType,
  query: URLSearchParams,
  body: JsonRecord,
): { policy: Propagation; explicit: boolean } {
  const raw = query.get('propagationPolicy') ?? str(body.propagationPolicy);
  const orphanRaw =
    query.get('orphanDependents') ??
    (typeof body.orphanDependents === 'boolean' ? String(body.orphanDependents) : null);
  if (raw) {
    if (raw !== 'Orphan' && raw !== 'Background' && raw !== 'Foreground') {
      throw invalid('DeleteOptions', 'meta.k8s.io', '', [
        {
          reason: 'FieldValueNotSupported',
          message: `Unsupported value: "${raw}": supported values: "Foreground", "Background", "Orphan"`,
          field: 'propagationPolicy',
        },
      ]);
    }
    return { policy: raw, explicit: true };
  }
  if (orphanRaw === 'true') return { policy: 'Orphan', explicit: true };
  if (orphanRaw === 'false') return { policy: 'Background', explicit: true };
  // batch/v1 Jobs keep their pods by default (a legacy default the real server still has).
  return {
    policy: type.group === 'batch' && type.plural === 'jobs' ? 'Orphan' : 'Background',
    explicit: false,
  };
}

function checkPreconditions(type: ResourceType, obj: KubeObject, body: JsonRecord): void {
  const pre = rec(body.preconditions);
  const uid = str(pre.uid);
  const rv = str(pre.resourceVersion);
  const name = obj.metadata.name;
  if (uid !== undefined && uid !== uidOf(obj)) {
    throw conflict(
      ref(type),
      name,
      `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${uidOf(obj)}`,
    );
  }
  const current = str(obj.metadata.resourceVersion) ?? '';
  if (rv !== undefined && rv !== current) {
    throw conflict(
      ref(type),
      name,
      `Precondition failed: ResourceVersion in precondition: ${rv}, ResourceVersion in object meta: ${current}`,
    );
  }
}

function parseDeleteOptions(body: unknown): JsonRecord {
  if (body === undefined || body === null) return {};
  if (!isRecord(body)) throw badRequest('DeleteOptions must be a JSON object');
  return body;
}

const JOB_ORPHAN_WARNING =
  '299 - "child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove them or set propagationPolicy=Orphan to suppress this warning"';

interface Deleted {
  /** Status Success, or the object itself for namespaces and pods. */
  status?: ReturnType<typeof success>;
  object?: KubeObject;
  warning?: string;
}

function deleteOne(
  ctx: SimContext,
  type: ResourceType,
  obj: KubeObject,
  options: JsonRecord,
  query: URLSearchParams,
  dryRun: boolean,
): Deleted {
  checkPreconditions(type, obj, options);
  const { policy, explicit } = propagationOf(type, query, options);
  const name = obj.metadata.name;
  const isNamespace = type.group === '' && type.plural === 'namespaces';
  if (isNamespace && PROTECTED_NAMESPACES.has(name)) {
    throw forbidden(ref(type), name, 'this namespace may not be deleted');
  }
  const now = nowIso();
  if (!dryRun) {
    if (isNamespace) deleteNamespaceContents(ctx, name);
    deleteWithDependents(ctx, type, obj, policy);
  }
  const warning =
    type.group === 'batch' && type.plural === 'jobs' && !explicit ? JOB_ORPHAN_WARNING : undefined;
  if (isNamespace) {
    const gone = clone(obj);
    gone.metadata.deletionTimestamp = now;
    gone.status = { ...rec(gone.status), phase: 'Terminating' };
    return { object: gone, warning };
  }
  if (type.group === '' && type.plural === 'pods') {
    // Pods answer with the object (graceful deletion); here the grace period is not simulated.
    const gone = clone(obj);
    gone.metadata.deletionTimestamp = now;
    gone.metadata.deletionGracePeriodSeconds = 0;
    return { object: gone, warning };
  }
  return { status: success(ref(type), name, uidOf(obj)), warning };
}

export function remove(ctx: SimContext, target: Target, body: unknown, query: URLSearchParams): Reply {
  if (target.subresource)
    throw methodNotAllowed('the server does not allow this method on the requested resource');
  const options = parseDeleteOptions(body);
  const dryRun = isDryRun(query, options);
  const obj = getExisting(ctx, target);
  const deleted = deleteOne(ctx, target.type, obj, options, query, dryRun);
  const out = deleted.object ? present(ctx, target.type, deleted.object, target.version) : deleted.status;
  const reply: Reply = { status: 200, body: out };
  if (deleted.warning) reply.headers = { Warning: deleted.warning };
  return reply;
}

export function removeCollection(
  ctx: SimContext,
  target: Target,
  body: unknown,
  query: URLSearchParams,
): Reply {
  const options = parseDeleteOptions(body);
  const dryRun = isDryRun(query, options);
  const selectors = parseSelectors(query, target.type);
  const victims = ctx.store.list(target.type, target.namespace).filter((o) => matches(selectors, o));
  for (const obj of victims) deleteOne(ctx, target.type, obj, options, query, dryRun);
  return {
    status: 200,
    body: {
      kind: `${target.type.kind}List`,
      apiVersion: apiVersionOf(target.type.group, target.version),
      metadata: { resourceVersion: ctx.store.resourceVersion() },
      items: victims.map((o) => present(ctx, target.type, o, target.version)),
    },
  };
}
