/** Helpers for walking untrusted JSON manifests without trusting their shape. */

export type JsonRecord = Record<string, unknown>;

/** A location inside a manifest: object keys and array indexes, outermost first. */
export type JsonPath = readonly (string | number)[];

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a nested value; undefined as soon as a step is not an object. */
export function getPath(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
}

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

/** `spec.template.spec.containers[0].resources.limits["nvidia.com/gpu"]`; the empty path is "". */
export function formatPath(path: JsonPath): string {
  let out = '';
  for (const step of path) {
    if (typeof step === 'number') out += `[${step}]`;
    else if (PLAIN_KEY.test(step)) out += out === '' ? step : `.${step}`;
    else out += `[${JSON.stringify(step)}]`;
  }
  return out;
}

/** JSON text of an untrusted value, cut short so one hostile field cannot flood a message. */
export function preview(value: unknown, max = 120): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Result of parsing untrusted text: a value or a reason. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };
