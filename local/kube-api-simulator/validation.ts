// Object validation → 422 Invalid with `details.causes`, using the real server's field paths and
// message wording for the checks that clients most often trip over (names, labels, pod/job/workload specs).

import { validateCrd } from './crds.js';
import { Causes } from './causes.js';
import { CONTROLLER_UID } from './names.js';
import { parseQuantity } from './quantity.js';
import type { NameRule, ResourceType } from './registry.js';
import { labelKeyError, labelValueError, matchesLabelSelectorObject } from './selectors.js';
import { invalid } from './status.js';
import type { KubeObject } from './types.js';
import { arr, deepEqual, isRecord, rec, str, strMap } from './types.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

const MSG_LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const MSG_SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const MSG_DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

function nameError(name: string, rule: NameRule, max: number): string | undefined {
  if (name.length > max) return `must be no more than ${max} characters`;
  switch (rule) {
    case 'label':
      return DNS1123_LABEL.test(name) ? undefined : MSG_LABEL;
    case 'dns1035':
      return DNS1035_LABEL.test(name) ? undefined : MSG_DNS1035;
    case 'subdomain':
      return DNS1123_SUBDOMAIN.test(name) ? undefined : MSG_SUBDOMAIN;
    case 'path':
      if (name === '.' || name === '..') return `may not be '${name}'`;
      return /[/%]/.test(name) ? "may not contain '/' or '%'" : undefined;
  }
}

function validateMetadata(obj: KubeObject, type: ResourceType, c: Causes): void {
  const m = obj.metadata;
  const generateName = str(m.generateName);
  if (!m.name) {
    if (!generateName) c.required('metadata.name', 'name or generateName is required');
  } else {
    const err = nameError(m.name, type.nameRule, type.maxNameLength);
    if (err) c.invalid('metadata.name', m.name, err);
  }
  if (type.namespaced && m.namespace !== undefined && !DNS1123_LABEL.test(m.namespace)) {
    c.invalid('metadata.namespace', m.namespace, MSG_LABEL);
  }
  validateLabels(m.labels, 'metadata.labels', c);
  for (const k of Object.keys(rec(m.annotations))) {
    const err = labelKeyError(k);
    if (err) c.invalid('metadata.annotations', k, err);
  }
}

function validateLabels(labels: unknown, field: string, c: Causes): void {
  if (labels === undefined || labels === null) return;
  if (!isRecord(labels)) {
    c.invalid(field, labels, 'must be a map of strings');
    return;
  }
  for (const [k, v] of Object.entries(labels)) {
    const keyErr = labelKeyError(k);
    if (keyErr) c.invalid(field, k, keyErr);
    if (typeof v !== 'string') c.invalid(`${field}`, v, 'label values must be strings');
    else {
      const valErr = labelValueError(v);
      if (valErr) c.invalid(field, v, valErr);
    }
  }
}

function validateResources(res: unknown, field: string, c: Causes): void {
  const requests = rec(rec(res).requests);
  const limits = rec(rec(res).limits);
  for (const [section, values] of [
    ['requests', requests],
    ['limits', limits],
  ] as const) {
    for (const [name, v] of Object.entries(values)) {
      const q = parseQuantity(v);
      if (q === undefined) c.invalid(`${field}.${section}[${name}]`, v, 'must be a valid quantity');
      else if (q < 0) c.invalid(`${field}.${section}[${name}]`, v, 'must be greater than or equal to 0');
    }
  }
  for (const [name, v] of Object.entries(requests)) {
    const req = parseQuantity(v);
    const lim = parseQuantity(limits[name]);
    if (req !== undefined && lim !== undefined && req > lim) {
      c.invalid(
        `${field}.requests`,
        String(v),
        `must be less than or equal to ${name} limit of ${String(limits[name])}`,
      );
    }
  }
}

function validateContainers(
  list: unknown,
  field: string,
  c: Causes,
  required: boolean,
  names: Set<string>,
): void {
  if (list === undefined || list === null || (Array.isArray(list) && list.length === 0)) {
    if (required) c.required(field);
    return;
  }
  if (!Array.isArray(list)) {
    c.invalid(field, list, 'must be a list of containers');
    return;
  }
  list.forEach((ct, i) => {
    const f = `${field}[${i}]`;
    if (!isRecord(ct)) {
      c.invalid(f, ct, 'must be an object');
      return;
    }
    const name = str(ct.name);
    if (!name) c.required(`${f}.name`);
    else if (!DNS1123_LABEL.test(name) || name.length > 63) c.invalid(`${f}.name`, name, MSG_LABEL);
    else if (names.has(name)) c.duplicate(`${f}.name`, name);
    else names.add(name);
    if (!str(ct.image)) c.required(`${f}.image`);
    for (const k of ['command', 'args'] as const) {
      if (ct[k] !== undefined && !(Array.isArray(ct[k]) && ct[k].every((x) => typeof x === 'string'))) {
        c.invalid(`${f}.${k}`, ct[k], 'must be a list of strings');
      }
    }
    arr(ct.ports).forEach((p, j) => {
      const port = rec(p).containerPort;
      if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
        c.invalid(`${f}.ports[${j}].containerPort`, port, 'must be between 1 and 65535, inclusive');
      }
    });
    validateResources(ct.resources, `${f}.resources`, c);
  });
}

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];

function validatePodSpec(spec: unknown, field: string, c: Causes, allowedRestart = RESTART_POLICIES): void {
  const s = rec(spec);
  const names = new Set<string>();
  validateContainers(s.containers, `${field}.containers`, c, true, names);
  validateContainers(s.initContainers, `${field}.initContainers`, c, false, names);
  const rp = s.restartPolicy ?? 'Always';
  if (!allowedRestart.includes(str(rp) ?? '')) c.unsupported(`${field}.restartPolicy`, rp, allowedRestart);
  if (s.nodeSelector !== undefined && !isRecord(s.nodeSelector))
    c.invalid(`${field}.nodeSelector`, s.nodeSelector, 'must be a map');
}

function nonNegativeInt(v: unknown, field: string, c: Causes): void {
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    c.invalid(field, v, 'must be greater than or equal to 0');
}

function validateJob(obj: KubeObject, c: Causes, isCreate: boolean): void {
  const spec = rec(obj.spec);
  nonNegativeInt(spec.parallelism, 'spec.parallelism', c);
  nonNegativeInt(spec.completions, 'spec.completions', c);
  nonNegativeInt(spec.backoffLimit, 'spec.backoffLimit', c);
  if (spec.activeDeadlineSeconds !== undefined) {
    const v = spec.activeDeadlineSeconds;
    if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0)
      c.invalid('spec.activeDeadlineSeconds', v, 'must be greater than 0');
  }
  const template = rec(spec.template);
  if (isCreate && spec.manualSelector !== true) {
    // Like the job strategy: the selector must be exactly the generated controller-uid one, and the
    // template must carry it (a spec copied from another Job fails here, as on a real cluster).
    const uid = str(obj.metadata.uid) ?? '';
    const expected = { matchLabels: { [CONTROLLER_UID]: uid } };
    if (!deepEqual(spec.selector, expected))
      c.invalid('spec.selector', spec.selector, '`selector` not auto-generated');
    else if (strMap(rec(template.metadata).labels)[CONTROLLER_UID] !== uid) {
      c.invalid(
        'spec.template.metadata.labels',
        rec(template.metadata).labels,
        '`selector` does not match template `labels`',
      );
    }
  }
  validateLabels(rec(template.metadata).labels, 'spec.template.metadata.labels', c);
  validatePodSpec(template.spec, 'spec.template.spec', c, ['OnFailure', 'Never']);
}

function validateWorkload(obj: KubeObject, c: Causes): void {
  const spec = rec(obj.spec);
  nonNegativeInt(spec.replicas, 'spec.replicas', c);
  const template = rec(spec.template);
  const labels = strMap(rec(template.metadata).labels);
  const selector = spec.selector;
  if (
    !isRecord(selector) ||
    (Object.keys(rec(selector.matchLabels)).length === 0 && arr(selector.matchExpressions).length === 0)
  ) {
    c.required('spec.selector');
  } else if (!matchesLabelSelectorObject(selector, labels)) {
    c.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`');
  }
  validateLabels(rec(template.metadata).labels, 'spec.template.metadata.labels', c);
  validatePodSpec(template.spec, 'spec.template.spec', c, ['Always']);
}

function validateService(obj: KubeObject, c: Causes): void {
  const spec = rec(obj.spec);
  const headless = spec.clusterIP === 'None';
  const ports = arr(spec.ports);
  if (ports.length === 0 && spec.type !== 'ExternalName' && !headless) c.required('spec.ports');
  ports.forEach((p, i) => {
    const port = rec(p).port;
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
      c.invalid(`spec.ports[${i}].port`, port, 'must be between 1 and 65535, inclusive');
    }
  });
}

function validateConfigData(obj: KubeObject, c: Causes): void {
  for (const field of ['data', 'binaryData', 'stringData'] as const) {
    const v = obj[field];
    if (v === undefined || v === null) continue;
    if (!isRecord(v)) {
      c.invalid(field, v, 'must be a map of strings');
      continue;
    }
    for (const [k, val] of Object.entries(v)) {
      if (!CONFIG_KEY.test(k) || k.length > 253) {
        c.invalid(
          `${field}[${k}]`,
          k,
          "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        );
      }
      if (typeof val !== 'string') c.invalid(`${field}[${k}]`, val, 'must be a string');
    }
  }
}

/** Throws 422 Invalid when the object is not acceptable for `type`. */
export function validateObject(obj: KubeObject, type: ResourceType, isCreate: boolean): void {
  const c = new Causes();
  validateMetadata(obj, type, c);
  switch (`${type.group}/${type.plural}`) {
    case '/pods':
      validatePodSpec(obj.spec, 'spec', c);
      break;
    case 'batch/jobs':
      validateJob(obj, c, isCreate);
      break;
    case 'apps/deployments':
    case 'apps/statefulsets':
    case 'apps/daemonsets':
    case 'apps/replicasets':
      validateWorkload(obj, c);
      break;
    case '/services':
      validateService(obj, c);
      break;
    case '/configmaps':
    case '/secrets':
      validateConfigData(obj, c);
      break;
    case '/resourcequotas':
    case '/limitranges':
      validateQuantities(obj, c);
      break;
    case 'apiextensions.k8s.io/customresourcedefinitions':
      validateCrd(obj, c);
      break;
  }
  if (c.list.length > 0)
    throw invalid(type.kind, type.group, obj.metadata.name || str(obj.metadata.generateName) || '', c.list);
}

function validateQuantities(obj: KubeObject, c: Causes): void {
  const spec = rec(obj.spec);
  for (const [k, v] of Object.entries(rec(spec.hard))) {
    if (parseQuantity(v) === undefined) c.invalid(`spec.hard[${k}]`, v, 'must be a valid quantity');
  }
  arr(spec.limits).forEach((l, i) => {
    for (const section of ['max', 'min', 'default', 'defaultRequest', 'maxLimitRequestRatio']) {
      for (const [k, v] of Object.entries(rec(rec(l)[section]))) {
        if (parseQuantity(v) === undefined)
          c.invalid(`spec.limits[${i}].${section}[${k}]`, v, 'must be a valid quantity');
      }
    }
  });
}
