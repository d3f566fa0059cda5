/**
 * The logging policy the edge Lambdas (Powertools) and the cluster services (pino) share: one call
 * signature, one level variable, one list of field names whose values are never written.
 *
 * The signature is pino's — fields first, message second — so a pino logger (and Fastify's request
 * logger) is a `Log` as it is; the Lambdas' Powertools wrapper turns the arguments around.
 */
import { EnvironmentError } from '../env/reader.js';

export type LogFields = Record<string, unknown>;

type LogMethod = (fields: LogFields, message: string) => void;

export interface Log {
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}

/**
 * Field names whose values are never written, whatever logs them: header names (authorization, cookie,
 * x-svc-signature, x-amz-security-token…) and field names (secret, signingKey, password, token,
 * credentials, key…). Handlers never log such fields on purpose; this is the second line of defence.
 */
const SENSITIVE_FIELD =
  /authorization|cookie|signature|secret|password|token|credential|^key$|signing_?key|^x-amz-/i;

export const REDACTED = '[REDACTED]';

function isSensitiveField(key: string): boolean {
  return SENSITIVE_FIELD.test(key);
}

/** A JSON.stringify replacer that writes REDACTED for the value of every sensitive field. */
export function redactSensitive(key: string, value: unknown): unknown {
  return key !== '' && isSensitiveField(key) ? REDACTED : value;
}

const MAX_REDACT_DEPTH = 6;

const isPlainObject = (value: unknown): value is LogFields =>
  typeof value === 'object' &&
  value !== null &&
  (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null);

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
  let out: LogFields | undefined;
  for (const [key, value] of Object.entries(fields)) {
    const next = isSensitiveField(key) ? REDACTED : redactFields(value, depth + 1);
    if (next !== value) (out ??= { ...fields })[key] = next;
  }
  return (out ?? fields) as T;
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The level variable of every Lambda and service. */
const LOG_LEVEL_VARIABLE = 'LOG_LEVEL';
/** Read when LOG_LEVEL is unset: the variable the deployed Lambdas were given before LOG_LEVEL. */
const LEGACY_LAMBDA_VARIABLE = 'POWERTOOLS_LOG_LEVEL';

const isLogLevel = (value: string): value is LogLevel => (LOG_LEVELS as readonly string[]).includes(value);

/**
 * The level from LOG_LEVEL (any case; POWERTOOLS_LOG_LEVEL when unset), `info` when neither is set.
 * An unknown level is a configuration error (EnvironmentError naming the variable and the levels).
 */
export function resolveLogLevel(env: Readonly<Record<string, string | undefined>>): LogLevel {
  const name = env[LOG_LEVEL_VARIABLE] !== undefined ? LOG_LEVEL_VARIABLE : LEGACY_LAMBDA_VARIABLE;
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return 'info';
  const level = raw.toLowerCase();
  if (!isLogLevel(level)) {
    throw new EnvironmentError([
      `${name} must be one of ${LOG_LEVELS.join(', ')}; got ${JSON.stringify(raw)}`,
    ]);
  }
  return level;
}
