// The update-only rules of a Kubernetes 1.34 API server: fields that may not change once an object
// exists (PUT, every PATCH type and server-side apply of the main resource; never the status
// subresource). A change is refused with the server's 422 Invalid Status: `details.causes` carry the
// field paths and the messages of field.ErrorList, e.g.
//   Job.batch "x" is invalid: spec.template: Invalid value: {...}: field is immutable
// Sources (kubernetes/kubernetes, release-1.34):
//   pkg/apis/batch/validation/validation.go           ValidateJobSpecUpdate, validatePodTemplateUpdate,
//                                                     validateCompletions
//   pkg/registry/batch/job/strategy.go                AllowMutableSchedulingDirectives (suspended, never started)
//   pkg/apis/core/validation/validation.go            ValidatePodUpdate, ValidateContainerUpdates,
//                                                     validateOnlyAddedTolerations, ValidateServiceUpdate,
//                                                     validateUpgradeDowngradeClusterIPs,
//                                                     ValidatePersistentVolumeClaimUpdate,
//                                                     ValidateConfigMapUpdate, ValidateSecretUpdate
//   pkg/registry/core/service/storage/storage.go      patchAllocatedValues (an omitted clusterIP keeps the old one)
//   pkg/apis/apps/validation/validation.go            ValidateStatefulSetUpdate
//   pkg/registry/apps/{deployment,replicaset,daemonset}/strategy.go  spec.selector immutable for apps/v1
//   staging/src/k8s.io/apimachinery/pkg/api/validation/generic.go   ValidateImmutableField, "field is immutable"
//   staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go  Error.ErrorBody (value printing)
// https://github.com/kubernetes/kubernetes/blob/release-1.34/pkg/apis/batch/validation/validation.go
// https://github.com/kubernetes/kubernetes/blob/release-1.34/pkg/apis/core/validation/validation.go
// https://github.com/kubernetes/kubernetes/blob/release-1.34/pkg/apis/apps/validation/validation.go

import { applyDefaults } from './defaults.js';
import { parseQuantity } from './quantity.js';
import type { ResourceType } from './registry.js';
import type { StatusCause } from './status.js';
import { invalid } from './status.js';
import type { JsonRecord, KubeObject } from './types.js';
import { arr, clone, deepEqual, isRecord, num, rec, str } from './types.js';

const IMMUTABLE = 'field is immutable';
const IMMUTABLE_WHEN_SET = 'field is immutable when `immutable` is set';

// ValidatePodUpdate's updatablePodSpecFields, joined with "," as 1.34 prints them.
const POD_UPDATABLE =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

// ValidateStatefulSetUpdate. 'revisionHistoryLimit' became mutable in 1.33 (kubernetes/kubernetes#130263);
// 1.33+ servers print it in this list.
const STATEFULSET_MUTABLE = [
  'replicas',
  'ordinals',
  'template',
  'updateStrategy',
  'revisionHistoryLimit',
  'persistentVolumeClaimRetentionPolicy',
  'minReadySeconds',
];
const STATEFULSET_FORBIDDEN =
  "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

const PVC_FORBIDDEN =
  'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims';

/**
 * How field.Error.ErrorBody prints a bad value: pointers dereferenced, nil as `null`, numbers and bools
 * with %v, strings with %q, other values with %#v. Departure: Go prints structs and maps in Go syntax
 * (`core.PodTemplateSpec{ObjectMeta:v1.ObjectMeta{...}}`); the simulator prints them as JSON. A string
 * slice is printed exactly (`[]string{"10.0.0.1"}`).
 */
function goValue(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) {
    return `[]string{${v.map((x) => JSON.stringify(x)).join(', ')}}`;
  }
  return JSON.stringify(v);
}

function invalidCause(field: string, value: unknown, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${goValue(value)}: ${detail}`, field };
}

function forbiddenCause(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

function requiredCause(field: string): StatusCause {
  return { reason: 'FieldValueRequired', message: 'Required value', field };
}

const QUANTITY_MAPS = new Set(['requests', 'limits', 'capacity', 'allocatedResources']);

/**
 * The JSON form of a value as the server compares it after decoding into Go structs
 * (apiequality.Semantic.DeepEqual): null, "" and empty maps/lists are the same as absent (omitempty,
 * nil == empty in the forked DeepEqual), and quantities compare by value ("1" == "1000m").
 */
function normalize(v: unknown, key = ''): unknown {
  if (Array.isArray(v)) {
    const items = v.map((x) => normalize(x));
    return items.length > 0 ? items : undefined;
  }
  if (isRecord(v)) {
    const out: JsonRecord = {};
    for (const [k, x] of Object.entries(v)) {
      const n = QUANTITY_MAPS.has(key) ? (parseQuantity(x) ?? normalize(x)) : normalize(x, k);
      if (n !== undefined) out[k] = n;
    }
    return Object.keys(out).length > 0 ? out : undefined;
  }
  if (v === null || v === '') return undefined;
  return v;
}

function semanticEqual(a: unknown, b: unknown): boolean {
  return deepEqual(normalize(a), normalize(b));
}

/** apivalidation.ValidateImmutableField. */
function immutable(out: StatusCause[], field: string, next: unknown, old: unknown): void {
  if (!semanticEqual(next, old)) out.push(invalidCause(field, next, IMMUTABLE));
}

/** Sets or (for undefined) removes a key, so the JSON mirrors a nil Go field. */
function assign(target: JsonRecord, key: string, value: unknown): void {
  if (value === undefined) delete target[key];
  else target[key] = value;
}

/**
 * Stand-in for the go-cmp diff the server appends to Forbidden spec errors: one `-`/`+` pair per changed
 * path, in JSON. (The real text is `cmp.Diff` of the internal Go structs.)
 */
function specDiff(old: unknown, next: unknown, path = 'spec'): string[] {
  const a = normalize(old);
  const b = normalize(next);
  if (deepEqual(a, b)) return [];
  if (isRecord(a) && isRecord(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => specDiff(a[k], b[k], `${path}.${k}`));
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    return a.flatMap((x, i) => specDiff(x, b[i], `${path}[${i}]`));
  }
  const lines: string[] = [];
  if (a !== undefined) lines.push(`- ${path}: ${JSON.stringify(a)}`);
  if (b !== undefined) lines.push(`+ ${path}: ${JSON.stringify(b)}`);
  return lines;
}

function withDiff(message: string, old: unknown, next: unknown): string {
  return [message, ...specDiff(old, next)].join('\n');
}

// ---- batch/v1 Job ----

/**
 * validatePodTemplateUpdate with AllowMutableSchedulingDirectives: a Job that is suspended and never
 * started may change its template's node affinity, nodeSelector, tolerations, labels, annotations and
 * schedulingGates. Returns the old template with those taken from the new one.
 */
function withSchedulingDirectives(oldTemplate: unknown, newTemplate: unknown): JsonRecord {
  const old = clone(rec(oldTemplate));
  const next = rec(newTemplate);
  const oldSpec = rec(old.spec);
  const newSpec = rec(next.spec);
  const oldAffinity = isRecord(oldSpec.affinity) ? oldSpec.affinity : undefined;
  const newAffinity = isRecord(newSpec.affinity) ? newSpec.affinity : undefined;
  if (!newAffinity && oldAffinity) {
    delete oldAffinity.nodeAffinity;
    if (normalize(oldAffinity) === undefined) delete oldSpec.affinity;
  } else if (newAffinity && !oldAffinity) {
    oldSpec.affinity =
      newAffinity.nodeAffinity === undefined ? {} : { nodeAffinity: newAffinity.nodeAffinity };
  } else if (newAffinity && oldAffinity) {
    assign(oldAffinity, 'nodeAffinity', newAffinity.nodeAffinity);
  }
  for (const k of ['nodeSelector', 'tolerations', 'schedulingGates']) assign(oldSpec, k, newSpec[k]);
  const oldMeta = rec(old.metadata);
  const newMeta = rec(next.metadata);
  assign(oldMeta, 'annotations', newMeta.annotations);
  assign(oldMeta, 'labels', newMeta.labels);
  old.metadata = oldMeta;
  old.spec = oldSpec;
  return old;
}

function jobCauses(old: KubeObject, next: KubeObject): StatusCause[] {
  const o = rec(old.spec);
  const n = rec(next.spec);
  const out: StatusCause[] = [];
  // validateCompletions (ElasticIndexedJob is GA): Indexed Jobs may change completions together with
  // parallelism (both set to the same value).
  if (n.completionMode !== 'Indexed') {
    immutable(out, 'spec.completions', n.completions, o.completions);
  } else if (!semanticEqual(n.completions, o.completions) && num(n.completions) !== undefined) {
    if (n.completions !== n.parallelism) {
      out.push(
        invalidCause(
          'spec.completions',
          n.completions,
          'can only be modified in tandem with spec.parallelism',
        ),
      );
    }
  }
  immutable(out, 'spec.selector', n.selector, o.selector);
  // The job strategy allows scheduling directives to change while the OLD Job is suspended and has
  // no status.startTime (pkg/registry/batch/job/strategy.go validationOptionsForJob).
  const mutableScheduling = o.suspend === true && str(rec(old.status).startTime) === undefined;
  const oldTemplate = mutableScheduling ? withSchedulingDirectives(o.template, n.template) : o.template;
  immutable(out, 'spec.template', n.template, oldTemplate);
  for (const k of [
    'completionMode',
    'podFailurePolicy',
    'backoffLimitPerIndex',
    'managedBy',
    'successPolicy',
  ]) {
    immutable(out, `spec.${k}`, n[k], o[k]);
  }
  return out;
}

// ---- core/v1 Pod ----

/** ValidateContainerUpdates: same number of containers; each keeps a non-empty image. */
function containerUpdateCauses(
  field: string,
  next: unknown[],
  old: unknown[],
): { out: StatusCause[]; stop: boolean } {
  if (next.length !== old.length) {
    return { out: [forbiddenCause(field, 'pod updates may not add or remove containers')], stop: true };
  }
  const out: StatusCause[] = [];
  next.forEach((ct, i) => {
    const image = str(rec(ct).image) ?? '';
    if (image === '') out.push(requiredCause(`${field}[${i}].image`));
    else if (image.trim() !== image) {
      out.push(invalidCause(`${field}[${i}].image`, image, 'must not have leading or trailing whitespace'));
    }
  });
  return { out, stop: false };
}

/** validateOnlyAddedTolerations: every old toleration is still there, tolerationSeconds aside. */
function tolerationsKept(next: unknown[], old: unknown[]): boolean {
  return old.every((o) =>
    next.some((n) => semanticEqual({ ...rec(o), tolerationSeconds: rec(n).tolerationSeconds }, n)),
  );
}

function podCauses(old: KubeObject, next: KubeObject): StatusCause[] {
  const o = rec(old.spec);
  const n = rec(next.spec);
  const out: StatusCause[] = [];
  for (const list of ['containers', 'initContainers']) {
    const r = containerUpdateCauses(`spec.${list}`, arr(n[list]), arr(o[list]));
    out.push(...r.out);
    if (r.stop) return out;
  }
  const newDeadline = num(n.activeDeadlineSeconds);
  const oldDeadline = num(o.activeDeadlineSeconds);
  if (newDeadline !== undefined) {
    if (oldDeadline !== undefined && oldDeadline < newDeadline) {
      out.push(
        invalidCause(
          'spec.activeDeadlineSeconds',
          newDeadline,
          'must be less than or equal to previous value',
        ),
      );
      return out;
    }
  } else if (oldDeadline !== undefined) {
    out.push(
      invalidCause(
        'spec.activeDeadlineSeconds',
        null,
        'must not update from a positive integer to nil value',
      ),
    );
  }
  if (!tolerationsKept(arr(n.tolerations), arr(o.tolerations))) {
    out.push(
      forbiddenCause(
        'spec.tolerations',
        'existing toleration can not be modified except its tolerationSeconds',
      ),
    );
  }
  const oldGates = new Set(arr(o.schedulingGates).map((g) => str(rec(g).name)));
  arr(n.schedulingGates).forEach((g, i) => {
    const name = str(rec(g).name) ?? '';
    if (!oldGates.has(name)) {
      out.push(
        forbiddenCause(
          `spec.schedulingGates[${i}].name`,
          `only deletion is allowed, but found new scheduling gate '${name}'`,
        ),
      );
    }
  });
  if (semanticEqual(n, o)) return out;
  // Munge the updatable fields back to their old values, then require the rest to be equal.
  const munged = clone(n);
  for (const list of ['containers', 'initContainers']) {
    const oldList = arr(o[list]);
    arr(munged[list]).forEach((ct, i) => {
      if (isRecord(ct)) assign(ct, 'image', rec(oldList[i]).image);
    });
  }
  for (const k of ['activeDeadlineSeconds', 'schedulingGates', 'tolerations']) assign(munged, k, o[k]);
  const oldGrace = num(o.terminationGracePeriodSeconds);
  if (oldGrace !== undefined && oldGrace < 0 && munged.terminationGracePeriodSeconds === 1) {
    munged.terminationGracePeriodSeconds = oldGrace;
  }
  if (!semanticEqual(munged, o)) out.push(forbiddenCause('spec', withDiff(POD_UPDATABLE, o, munged)));
  return out;
}

// ---- apps/v1 ----

/**
 * The StatefulSet defaults the simulator does not store (SetDefaults_StatefulSet, PVC volumeMode) and the
 * claim templates' status (the server sets phase Pending on both sides), so an echoed default is no change.
 */
function withStatefulSetDefaults(spec: JsonRecord): JsonRecord {
  const out = clone(spec);
  out.podManagementPolicy ??= 'OrderedReady';
  for (const t of arr(out.volumeClaimTemplates)) {
    if (!isRecord(t)) continue;
    delete t.status;
    if (isRecord(t.spec)) t.spec.volumeMode ??= 'Filesystem';
  }
  return out;
}

function statefulSetCauses(old: KubeObject, next: KubeObject): StatusCause[] {
  const o = withStatefulSetDefaults(rec(old.spec));
  const n = withStatefulSetDefaults(rec(next.spec));
  for (const k of STATEFULSET_MUTABLE) assign(n, k, o[k]);
  return semanticEqual(n, o) ? [] : [forbiddenCause('spec', STATEFULSET_FORBIDDEN)];
}

// ---- core/v1 Service ----

function clusterIPsOf(spec: JsonRecord): string[] {
  const plural = arr(spec.clusterIPs).filter((x): x is string => typeof x === 'string');
  const single = str(spec.clusterIP) ?? '';
  if (plural.length === 0) return single ? [single] : [];
  // normalizeClusterIPs: a changed singular field with an unchanged plural one updates the primary.
  if (single && single !== plural[0]) return [single, ...plural.slice(1)];
  return plural;
}

/** validateUpgradeDowngradeClusterIPs, after patchAllocatedValues kept the old IPs for omitted fields. */
function serviceCauses(old: KubeObject, next: KubeObject): StatusCause[] {
  const o = rec(old.spec);
  const n = rec(next.spec);
  if (o.type === 'ExternalName' || n.type === 'ExternalName') return [];
  const oldIPs = clusterIPsOf(o);
  let newIPs = clusterIPsOf(n);
  if (newIPs.length === 0 && (str(n.clusterIP) ?? '') === '') newIPs = oldIPs;
  if (oldIPs[0] === 'None' && newIPs[0] === 'None') return [];
  const out: StatusCause[] = [];
  const changed = (): void => {
    out.push(invalidCause('spec.clusterIPs[0]', newIPs, 'may not change once set'));
  };
  if (oldIPs.length === newIPs.length) {
    oldIPs.forEach((ip, i) => {
      if (ip !== newIPs[i])
        out.push(invalidCause(`spec.clusterIPs[${i}]`, newIPs, 'may not change once set'));
    });
  } else if (oldIPs.length > newIPs.length) {
    if (newIPs.length === 0)
      out.push(invalidCause('spec.clusterIPs[0]', newIPs, 'primary clusterIP can not be unset'));
    else if (newIPs[0] !== oldIPs[0]) changed();
    if (newIPs.length === 1 && n.ipFamilyPolicy !== 'SingleStack') {
      out.push(
        invalidCause(
          'spec.clusterIPs[0]',
          newIPs,
          "`ipFamilyPolicy` must be set to 'SingleStack' when releasing the secondary clusterIP",
        ),
      );
    }
  } else if (oldIPs.length > 0 && newIPs[0] !== oldIPs[0]) {
    changed();
  }
  return out;
}

// ---- core/v1 PersistentVolumeClaim ----

function storageRequest(spec: JsonRecord): number {
  return parseQuantity(rec(rec(spec.resources).requests).storage) ?? 0;
}

function pvcCauses(old: KubeObject, next: KubeObject): StatusCause[] {
  const oldSpec = clone(rec(old.spec));
  const newSpec = clone(rec(next.spec));
  // SetDefaults_PersistentVolumeClaimSpec, which the simulator does not store.
  oldSpec.volumeMode ??= 'Filesystem';
  newSpec.volumeMode ??= 'Filesystem';
  // The PV controller may set volumeName once; a nil storageClassName may be set once (retroactive
  // default StorageClass).
  if (!str(oldSpec.volumeName)) assign(oldSpec, 'volumeName', newSpec.volumeName);
  if (oldSpec.storageClassName === undefined && str(newSpec.storageClassName)) {
    oldSpec.storageClassName = newSpec.storageClassName;
  }
  // Status is the stored one (the main resource ignores status), so this is the claim's phase.
  const bound = rec(next.status).phase === 'Bound';
  const newRequests = rec(rec(newSpec.resources).requests);
  if (bound && isRecord(rec(newSpec.resources).requests)) {
    assign(newRequests, 'storage', rec(rec(oldSpec.resources).requests).storage);
  }
  if (bound && newSpec.volumeAttributesClassName !== undefined) {
    assign(newSpec, 'volumeAttributesClassName', oldSpec.volumeAttributesClassName);
  }
  const out: StatusCause[] = [];
  if (!semanticEqual(newSpec, oldSpec))
    out.push(forbiddenCause('spec', withDiff(PVC_FORBIDDEN, oldSpec, newSpec)));
  // RecoverVolumeExpansionFailure (GA in 1.34): shrinking is allowed down to just above status.capacity.
  const newSize = storageRequest(rec(next.spec));
  const capacity = parseQuantity(rec(rec(next.status).capacity).storage) ?? 0;
  if (newSize < storageRequest(rec(old.spec)) && newSize <= capacity) {
    out.push(forbiddenCause('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  }
  return out;
}

// ---- core/v1 ConfigMap and Secret ----

/** ValidateConfigMapUpdate / ValidateSecretUpdate compare data with reflect.DeepEqual (nil != empty). */
function immutableDataCauses(old: KubeObject, next: KubeObject, dataKeys: string[]): StatusCause[] {
  if (old.immutable !== true) return [];
  const out: StatusCause[] = [];
  if (next.immutable !== true) out.push(forbiddenCause('immutable', IMMUTABLE_WHEN_SET));
  for (const k of dataKeys) {
    if (!deepEqual(next[k], old[k])) out.push(forbiddenCause(k, IMMUTABLE_WHEN_SET));
  }
  return out;
}

function secretCauses(old: KubeObject, next: KubeObject): StatusCause[] {
  const out: StatusCause[] = [];
  immutable(out, 'type', next.type, old.type);
  // stringData was already merged into data (defaulting) before this comparison, as on the server.
  out.push(...immutableDataCauses(old, next, ['data']));
  return out;
}

// ---- entry point ----

/** Both sides as the server compares them: decoded with defaults (the simulator stores some undefaulted). */
function defaulted(obj: KubeObject, type: ResourceType): KubeObject {
  const copy = clone(obj);
  applyDefaults(copy, type);
  return copy;
}

function causesFor(type: ResourceType, old: KubeObject, next: KubeObject): StatusCause[] {
  switch (`${type.group}/${type.plural}`) {
    case 'batch/jobs':
      return jobCauses(defaulted(old, type), defaulted(next, type));
    case '/pods':
      return podCauses(defaulted(old, type), defaulted(next, type));
    case 'apps/deployments':
    case 'apps/replicasets':
    case 'apps/daemonsets': {
      const out: StatusCause[] = [];
      immutable(out, 'spec.selector', rec(next.spec).selector, rec(old.spec).selector);
      return out;
    }
    case 'apps/statefulsets':
      return statefulSetCauses(defaulted(old, type), defaulted(next, type));
    case '/services':
      // Not defaulted: defaulting would allocate a fresh clusterIP for a spec that omits it.
      return serviceCauses(old, next);
    case '/persistentvolumeclaims':
      return pvcCauses(old, next);
    case '/configmaps':
      return immutableDataCauses(old, next, ['data', 'binaryData']);
    case '/secrets':
      return secretCauses(defaulted(old, type), defaulted(next, type));
    default:
      return [];
  }
}

/**
 * Refuses an update of the main resource that changes an immutable field, with the API server's
 * 422 Invalid Status. The status subresource is exempt (its strategies copy the old spec).
 */
export function checkImmutableFields(
  type: ResourceType,
  current: KubeObject,
  next: KubeObject,
  subresource: string | undefined,
): void {
  if (subresource) return;
  const causes = causesFor(type, current, next);
  if (causes.length > 0) throw invalid(type.kind, type.group, current.metadata.name, causes);
}
