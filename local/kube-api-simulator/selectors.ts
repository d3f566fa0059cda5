// Label selectors (full apimachinery syntax: =, ==, !=, in, notin, exists, !exists, >, <) and field
// selectors (=, ==, != over a per-resource set of fields). Parse errors are 400 BadRequest, like the server.

import type { ResourceType } from './registry.js';
import { badRequest } from './status.js';
import type { KubeObject } from './types.js';
import { getPath, isRecord, labelsOf, str } from './types.js';

type LabelOp = 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

interface Requirement {
  key: string;
  op: LabelOp;
  values: string[];
}

const NAME_PART = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Error text for a label key, or undefined when valid (qualified name: `[prefix/]name`). */
export function labelKeyError(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix))) {
    return "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  }
  if (name.length === 0) return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  if (!NAME_PART.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
  }
  return undefined;
}

export function labelValueError(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (value !== '' && !NAME_PART.test(value)) {
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
  }
  return undefined;
}

type Token =
  | { t: 'id'; v: string }
  | { t: 'op'; v: '=' | '==' | '!=' | '!' | '>' | '<' }
  | { t: '(' | ')' | ',' | 'end' };

function tokenize(input: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input.charAt(i);
    if (/\s/.test(c)) {
      i++;
    } else if (c === '(' || c === ')' || c === ',') {
      out.push({ t: c });
      i++;
    } else if (c === '=' || c === '!' || c === '>' || c === '<') {
      const two = input.slice(i, i + 2);
      if (two === '==' || two === '!=') {
        out.push({ t: 'op', v: two });
        i += 2;
      } else {
        out.push({ t: 'op', v: c });
        i++;
      }
    } else {
      let j = i;
      while (j < input.length && !/[\s(),=!<>]/.test(input.charAt(j))) j++;
      out.push({ t: 'id', v: input.slice(i, j) });
      i = j;
    }
  }
  out.push({ t: 'end' });
  return out;
}

function fail(msg: string): never {
  throw badRequest(`unable to parse requirement: ${msg}`);
}

function describe(tok: Token): string {
  return tok.t === 'id' || tok.t === 'op' ? tok.v : tok.t === 'end' ? '' : tok.t;
}

/** Parses a label selector string; throws a 400 KubeError on invalid syntax, keys or values. */
function parseLabelSelector(input: string): Requirement[] {
  const toks = tokenize(input);
  let p = 0;
  const peek = (): Token => toks[p] ?? { t: 'end' };
  const next = (): Token => toks[p++] ?? { t: 'end' };
  const reqs: Requirement[] = [];
  if (peek().t === 'end') return reqs;
  for (;;) {
    let tok = next();
    let negate = false;
    if (tok.t === 'op' && tok.v === '!') {
      negate = true;
      tok = next();
    }
    if (tok.t !== 'id') fail(`found '${describe(tok)}', expected: identifier`);
    const key = tok.v;
    const keyErr = labelKeyError(key);
    if (keyErr) fail(`key: Invalid value: "${key}": ${keyErr}`);
    const after = peek();
    if (negate) {
      if (after.t !== ',' && after.t !== 'end') fail(`found '${describe(after)}', expected: ',' or 'end'`);
      reqs.push({ key, op: '!', values: [] });
    } else if (after.t === ',' || after.t === 'end') {
      reqs.push({ key, op: 'exists', values: [] });
    } else if (after.t === 'op') {
      next();
      const value = peek();
      let v = '';
      if (value.t === 'id') {
        v = value.v;
        next();
      } else if (value.t !== ',' && value.t !== 'end') {
        fail(`found '${describe(value)}', expected: identifier`);
      }
      if (after.v === '>' || after.v === '<') {
        if (!/^-?\d+$/.test(v)) fail(`for 'Gt', 'Lt' operators, the value must be an integer`);
        reqs.push({ key, op: after.v === '>' ? 'gt' : 'lt', values: [v] });
      } else if (after.v === '!') {
        fail(`found '!', expected: '=', '!=', '==', 'in', notin'`);
      } else {
        const err = labelValueError(v);
        if (err) fail(`values[0][${key}]: Invalid value: "${v}": ${err}`);
        reqs.push({ key, op: after.v === '!=' ? 'notin' : 'in', values: [v] });
      }
    } else if (after.t === 'id' && (after.v === 'in' || after.v === 'notin')) {
      next();
      if (next().t !== '(') fail(`found '${describe(toks[p - 1] ?? { t: 'end' })}', expected: '('`);
      const values: string[] = [];
      for (;;) {
        const v = next();
        if (v.t === ')' && values.length === 0) break;
        if (v.t !== 'id') fail(`found '${describe(v)}', expected: identifier`);
        const value = v.v;
        const err = labelValueError(value);
        if (err) fail(`values[${values.length}][${key}]: Invalid value: "${value}": ${err}`);
        values.push(value);
        const sep = next();
        if (sep.t === ')') break;
        if (sep.t !== ',') fail(`found '${describe(sep)}', expected: ',' or ')'`);
      }
      if (values.length === 0) fail(`for 'in', 'notin' operators, values set can't be empty`);
      reqs.push({ key, op: after.v, values });
    } else {
      fail(`found '${describe(after)}', expected: '=', '!=', '==', 'in', notin'`);
    }
    const sep = next();
    if (sep.t === 'end') return reqs;
    if (sep.t !== ',') fail(`found '${describe(sep)}', expected: ','`);
  }
}

function matchesLabels(reqs: Requirement[], labels: Record<string, string>): boolean {
  return reqs.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(labels, r.key);
    const v = labels[r.key];
    switch (r.op) {
      case 'exists':
        return has;
      case '!':
        return !has;
      case 'in':
        return has && r.values.includes(v ?? '');
      case 'notin':
        return !has || !r.values.includes(v ?? '');
      case 'gt':
      case 'lt': {
        if (!has || !/^-?\d+$/.test(v ?? '')) return false;
        const n = Number(v);
        const bound = Number(r.values[0]);
        return r.op === 'gt' ? n > bound : n < bound;
      }
    }
  });
}

/** Matches a structured `LabelSelector` (matchLabels + matchExpressions), as used in spec.selector. */
export function matchesLabelSelectorObject(selector: unknown, labels: Record<string, string>): boolean {
  if (!isRecord(selector)) return false;
  const reqs: Requirement[] = [];
  for (const [k, v] of Object.entries(isRecord(selector.matchLabels) ? selector.matchLabels : {})) {
    reqs.push({ key: k, op: 'in', values: [String(v)] });
  }
  for (const e of Array.isArray(selector.matchExpressions) ? selector.matchExpressions : []) {
    if (!isRecord(e)) continue;
    const key = str(e.key) ?? '';
    const values = Array.isArray(e.values) ? e.values.map(String) : [];
    const op = str(e.operator);
    if (op === 'In') reqs.push({ key, op: 'in', values });
    else if (op === 'NotIn') reqs.push({ key, op: 'notin', values });
    else if (op === 'Exists') reqs.push({ key, op: 'exists', values });
    else if (op === 'DoesNotExist') reqs.push({ key, op: '!', values });
    else if (op === 'Gt') reqs.push({ key, op: 'gt', values });
    else if (op === 'Lt') reqs.push({ key, op: 'lt', values });
  }
  return matchesLabels(reqs, labels);
}

interface FieldRequirement {
  field: string;
  path: string;
  equals: boolean;
  value: string;
}

/** Splits on unescaped commas and handles `\,`, `\=` and `\\` escapes like fields.ParseSelector. */
function splitTerms(input: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < input.length; i++) {
    const c = input.charAt(i);
    if (c === '\\' && i + 1 < input.length) {
      cur += c + input.charAt(i + 1);
      i++;
    } else if (c === ',') {
      out.push(cur);
      cur = '';
    } else {
      cur += c;
    }
  }
  out.push(cur);
  return out;
}

function unescape(v: string): string {
  return v.replace(/\\(.)/g, '$1');
}

function parseFieldSelector(input: string, type: ResourceType): FieldRequirement[] {
  if (input.trim() === '') return [];
  const allowed: Record<string, string> = {
    'metadata.name': 'metadata.name',
    ...(type.namespaced ? { 'metadata.namespace': 'metadata.namespace' } : {}),
    ...type.fieldSelectors,
  };
  return splitTerms(input).map((term) => {
    const m = /^([^=!]*?)\s*(==|!=|=)\s*(.*)$/s.exec(term);
    if (!m) throw badRequest(`invalid selector: '${input}'; can't understand '${term}'`);
    const field = (m[1] ?? '').trim();
    const path = allowed[field];
    if (!path) throw badRequest(`field label not supported: ${field}`);
    return { field, path, equals: m[2] !== '!=', value: unescape(m[3] ?? '') };
  });
}

function fieldText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return '';
}

function matchesFields(reqs: FieldRequirement[], obj: KubeObject): boolean {
  return reqs.every((r) => {
    const actual = fieldText(getPath(obj, r.path));
    // An absent status.successful counts as 0, as the job field-selector conversion does.
    const normalized = actual === '' && r.path === 'status.succeeded' ? '0' : actual;
    return (normalized === r.value) === r.equals;
  });
}

export interface Selectors {
  labels: Requirement[];
  fields: FieldRequirement[];
}

export function parseSelectors(query: URLSearchParams, type: ResourceType): Selectors {
  return {
    labels: parseLabelSelector(query.get('labelSelector') ?? ''),
    fields: parseFieldSelector(query.get('fieldSelector') ?? '', type),
  };
}

export function matches(sel: Selectors, obj: KubeObject): boolean {
  return matchesLabels(sel.labels, labelsOf(obj)) && matchesFields(sel.fields, obj);
}
