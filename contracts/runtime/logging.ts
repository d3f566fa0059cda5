/**
 * The logging policy the edge Lambdas (Powertools) and the cluster services (pino) share: one call
 * signature, one level variable, and one redaction policy (redaction.ts: the names whose values are never
 * written, and request targets without their query values).
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
