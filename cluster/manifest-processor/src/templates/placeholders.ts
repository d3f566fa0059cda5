/**
 * `{{param}}` placeholders in job templates, substituted STRUCTURALLY: the parsed manifest is walked and
 * values are inserted as JSON values, never spliced into JSON text, so a parameter value cannot change the
 * manifest's shape (quotes and braces inside it stay characters of one string).
 *
 * - A string that is exactly one placeholder (`"{{gpus}}"`, inner blanks allowed) becomes the parameter's
 *   JSON value: a number stays a number, an object stays an object.
 * - A placeholder inside a longer string is replaced by the value's text; only strings, finite numbers and
 *   booleans may appear there.
 * - Keys are never substituted (a placeholder in a key is rejected when the template is created).
 * - Inserted values are not scanned again, so a value that itself contains `{{x}}` stays literal text.
 * - Text that does not match `{{ <letter or _>[letters, digits, _ -]* }}` (e.g. `{{.State}}`) is literal.
 */

export type PathSegment = string | number;

const NAME = '[A-Za-z_][A-Za-z0-9_-]*';
const WHOLE = new RegExp(`^\\{\\{\\s*(${NAME})\\s*\\}\\}$`);
const EMBEDDED = new RegExp(`\\{\\{\\s*(${NAME})\\s*\\}\\}`, 'g');

/** Always the request's job name and namespace, whatever a template's defaults say. */
export const RESERVED_PARAMETERS: readonly string[] = ['name', 'namespace'];

/** Rendered manifests may grow by at most this much inserted text (a template reusing a big value). */
const DEFAULT_MAX_INSERTED_BYTES = 1024 * 1024;

export interface PlaceholderScan {
  /** Placeholder names in first-use order. */
  names: string[];
  /** Object keys that contain a placeholder. */
  keysWithPlaceholders: PathSegment[][];
}

export type RenderProblem =
  | { kind: 'missing'; name: string; path: PathSegment[] }
  | { kind: 'not_scalar'; name: string; path: PathSegment[]; valueType: string }
  | { kind: 'too_large'; limit: number };

export interface RenderResult {
  manifest: Record<string, unknown>;
  problems: RenderProblem[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

function embeddedNames(text: string): string[] {
  return [...text.matchAll(EMBEDDED)].map((m) => m[1] ?? '');
}

/** Every placeholder of a template; callers bound the depth first (the walk is recursive). */
export function scanPlaceholders(manifest: unknown): PlaceholderScan {
  const names = new Set<string>();
  const keysWithPlaceholders: PathSegment[][] = [];
  const walk = (node: unknown, path: PathSegment[]): void => {
    if (typeof node === 'string') {
      for (const name of embeddedNames(node)) names.add(name);
    } else if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, [...path, i]));
    } else if (isRecord(node)) {
      for (const [key, value] of Object.entries(node)) {
        if (embeddedNames(key).length > 0) keysWithPlaceholders.push([...path, key]);
        walk(value, [...path, key]);
      }
    }
  };
  walk(manifest, []);
  return { names: [...names], keysWithPlaceholders };
}

/** The text a scalar takes inside a longer string, or undefined when it has none. */
function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/**
 * Substitutes `values` into a copy of `manifest`. Problems are collected (each missing name once) so the
 * caller can report all of them together; the returned manifest is only meaningful without problems.
 */
export function renderTemplate(
  manifest: Record<string, unknown>,
  values: ReadonlyMap<string, unknown>,
  maxInsertedBytes = DEFAULT_MAX_INSERTED_BYTES,
): RenderResult {
  const problems: RenderProblem[] = [];
  const reported = new Set<string>();
  const sizes = new Map<string, number>();
  let inserted = 0;
  let tooLarge = false;

  const problem = (p: RenderProblem & { name: string }): void => {
    const key = `${p.kind}:${p.name}`;
    if (reported.has(key)) return;
    reported.add(key);
    problems.push(p);
  };
  const charge = (bytes: number): boolean => {
    inserted += bytes;
    if (inserted > maxInsertedBytes && !tooLarge) {
      tooLarge = true;
      problems.push({ kind: 'too_large', limit: maxInsertedBytes });
    }
    return !tooLarge;
  };
  const sizeOf = (name: string, value: unknown): number => {
    let size = sizes.get(name);
    if (size === undefined) {
      size = (JSON.stringify(value) ?? '').length;
      sizes.set(name, size);
    }
    return size;
  };

  const renderString = (text: string, path: PathSegment[]): unknown => {
    const whole = WHOLE.exec(text);
    if (whole) {
      const name = whole[1] ?? '';
      if (!values.has(name)) {
        problem({ kind: 'missing', name, path });
        return text;
      }
      const value = values.get(name);
      // A fresh copy per use: later edits of the manifest (metadata) must not alias a parameter value.
      return charge(sizeOf(name, value)) ? structuredClone(value) : text;
    }
    return text.replace(EMBEDDED, (match: string, name: string) => {
      if (!values.has(name)) {
        problem({ kind: 'missing', name, path });
        return match;
      }
      const value = values.get(name);
      const piece = scalarText(value);
      if (piece === undefined) {
        problem({ kind: 'not_scalar', name, path, valueType: jsonType(value) });
        return match;
      }
      return charge(piece.length) ? piece : match;
    });
  };

  const walk = (node: unknown, path: PathSegment[]): unknown => {
    if (typeof node === 'string') return renderString(node, path);
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, i]));
    if (isRecord(node)) {
      // Object.fromEntries defines own properties, so a "__proto__" key stays data, never a prototype.
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, [...path, k])]));
    }
    return node;
  };

  const rendered = walk(manifest, []);
  return { manifest: isRecord(rendered) ? rendered : {}, problems };
}

/**
 * Effective parameter values: template defaults, overridden by the request's parameters, then the
 * reserved `name`/`namespace` from the request. A Map, so names such as "constructor" or "__proto__"
 * never resolve to something inherited.
 */
export function parameterValues(
  defaults: Record<string, unknown> | null | undefined,
  overrides: Record<string, unknown> | null | undefined,
  reserved: { name: string; namespace: string },
): Map<string, unknown> {
  const values = new Map<string, unknown>();
  for (const source of [defaults ?? {}, overrides ?? {}])
    for (const [key, value] of Object.entries(source)) values.set(key, value);
  values.set('name', reserved.name);
  values.set('namespace', reserved.namespace);
  return values;
}
