// Shared object shape and small JSON helpers. Objects are plain JSON: the simulator stores whatever the
// client sends (like an unstructured API server), so every read narrows `unknown` before use.

export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [k: string]: unknown };
  [k: string]: unknown;
};

export type JsonRecord = Record<string, unknown>;

export function isRecord(v: unknown): v is JsonRecord {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value as a record, or an empty one (for reading optional nested fields). */
export function rec(v: unknown): JsonRecord {
  return isRecord(v) ? v : {};
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** String map (labels, annotations, nodeSelector); non-string values are ignored. */
export function strMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(rec(v))) if (typeof val === 'string') out[k] = val;
  return out;
}

export function clone<T>(v: T): T {
  return structuredClone(v);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
  }
  return false;
}

/** Reads a dotted path (`status.phase`) from a JSON value. */
export function getPath(v: unknown, path: string): unknown {
  let cur: unknown = v;
  for (const part of path.split('.')) {
    if (!isRecord(cur)) return undefined;
    cur = cur[part];
  }
  return cur;
}

export function labelsOf(obj: KubeObject): Record<string, string> {
  return strMap(obj.metadata.labels);
}

export function annotationsOf(obj: KubeObject): Record<string, string> {
  return strMap(obj.metadata.annotations);
}

export function uidOf(obj: KubeObject): string {
  return str(obj.metadata.uid) ?? '';
}

export function nowIso(): string {
  // Kubernetes metav1.Time has second precision.
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}
