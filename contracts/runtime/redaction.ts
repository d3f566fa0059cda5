/**
 * The one redaction policy of the platform's logs, for the edge Lambdas (Powertools), the cluster services
 * (pino) and the local platform alike (docs/timeouts.md has the operators' view, docs/service-framework.md
 * and docs/edge-lambdas.md the writers'):
 * - a field, header or query parameter whose NAME is sensitive (SENSITIVE_NAMES) never has its value
 *   written, wherever it sits in a logged object (headers, parsed queries, bodies);
 * - a request target (path plus query) is logged as its path and parameter names only: every query value
 *   is REDACTED, sensitive name or not (`/api/v1/jobs?namespace=[REDACTED]&token=[REDACTED]`), because a
 *   value names nothing about itself — a model prompt or a pre-signed token may sit under any name.
 * Handlers never log such values on purpose; this is the second line of defence.
 */

export const REDACTED = '[REDACTED]';

/**
 * Sensitive names, compared lower-cased with `-` and `_` removed (so `signing_key`, `signingKey` and
 * `Signing-Key` are one name): a name CONTAINING one of `SENSITIVE_PARTS`, EQUAL to one of
 * `SENSITIVE_NAMES_EXACT`, or STARTING with `xamz` (the `x-amz-*` SigV4 headers: security token,
 * signature, credential scope).
 */
const SENSITIVE_PARTS = [
  'authorization',
  'cookie',
  'credential',
  'passwd',
  'password',
  'privatekey',
  'secret',
  'signature',
  'signingkey',
  'token',
] as const;
const SENSITIVE_NAMES_EXACT = new Set(['key', 'apikey', 'xapikey']);
const SENSITIVE_PREFIX = 'xamz';

/** True when a field, header or query parameter of this name must never have its value logged. */
export function isSensitiveName(name: string): boolean {
  const normal = name.toLowerCase().replace(/[-_]/g, '');
  return (
    SENSITIVE_NAMES_EXACT.has(normal) ||
    normal.startsWith(SENSITIVE_PREFIX) ||
    SENSITIVE_PARTS.some((part) => normal.includes(part))
  );
}

/** A JSON.stringify replacer that writes REDACTED for the value of every sensitive field. */
export function redactSensitive(key: string, value: unknown): unknown {
  return key !== '' && isSensitiveName(key) ? REDACTED : value;
}

const MAX_REDACT_DEPTH = 6;

/**
 * A dictionary: an object literal, a prototype-less object, or one made by a constructor whose prototype
 * is itself prototype-less (how fast-querystring builds the parsed queries Fastify hands out as
 * `request.query`). Class instances (an Error, a request, a Buffer) are not.
 */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === null || proto === Object.prototype) return true;
  return (
    typeof proto === 'object' && Object.getPrototypeOf(proto) === null && !Object.hasOwn(proto, 'constructor')
  );
}

/**
 * The fields of a log line with every sensitive value replaced. Only plain objects and arrays are
 * walked (an Error, a request or a Buffer is left to its serializer) and only as deep as log fields go;
 * an untouched line is returned as it was.
 */
export function redactFields<T>(fields: T, depth = 0): T {
  if (depth >= MAX_REDACT_DEPTH) return fields;
  if (Array.isArray(fields)) {
    let changed = false;
    const out = fields.map((item: unknown) => {
      const next = redactFields(item, depth + 1);
      changed ||= next !== item;
      return next;
    });
    return (changed ? out : fields) as T;
  }
  if (!isPlainObject(fields)) return fields;
  let out: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(fields)) {
    const next = isSensitiveName(key) ? REDACTED : redactFields(value, depth + 1);
    if (next !== value) (out ??= { ...fields })[key] = next;
  }
  return (out ?? fields) as T;
}

/**
 * A request target as logs may carry it: the path as sent, then each query parameter's name with its value
 * replaced by REDACTED (a parameter without `=` stays a bare name). The fragment, never sent by a client,
 * is dropped if present.
 */
export function redactRequestTarget(target: string): string {
  const hash = target.indexOf('#');
  const withoutFragment = hash === -1 ? target : target.slice(0, hash);
  const q = withoutFragment.indexOf('?');
  if (q === -1) return withoutFragment;
  const query = withoutFragment.slice(q + 1);
  if (query === '') return withoutFragment;
  const names = query.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    return eq === -1 ? pair : `${pair.slice(0, eq)}=${REDACTED}`;
  });
  return `${withoutFragment.slice(0, q)}?${names.join('&')}`;
}
