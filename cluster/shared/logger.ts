/**
 * JSON logs (pino) with a request id on every line, under the platform's logging policy
 * (contracts/runtime/logging.ts: the LOG_LEVEL variable) and its one redaction policy
 * (contracts/runtime/redaction.ts), which the Lambdas apply too.
 */
import { pino, type Logger, type LoggerOptions } from 'pino';
import { resolveLogLevel } from '../../contracts/runtime/logging.js';
import {
  isSensitiveName,
  REDACTED,
  redactFields,
  redactRequestTarget,
} from '../../contracts/runtime/redaction.js';

/**
 * What the request serializer (Fastify's `req`) writes, redacted after serialization: the request target
 * without its query values, and any sensitive header. Every other sensitive field is caught by name
 * wherever it sits in a line's fields (redactFields, before serialization).
 */
const REDACTED_PATHS = ['req.url', 'url', 'req.headers.*'];

/** pino's censor: a URL keeps its path and parameter names; any other redacted path is a header. */
function censor(value: unknown, path: string[]): unknown {
  const name = path[path.length - 1] ?? '';
  if (name === 'url') return typeof value === 'string' ? redactRequestTarget(value) : value;
  return isSensitiveName(name) ? REDACTED : value;
}

export function loggerOptions(
  service: string,
  version: string,
  level: string = resolveLogLevel(process.env),
): LoggerOptions {
  return {
    level,
    base: { service, version },
    messageKey: 'message',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }), log: (fields) => redactFields(fields) },
    redact: { paths: REDACTED_PATHS, censor },
  };
}

export function createLogger(service: string, version: string, level?: string): Logger {
  return pino(loggerOptions(service, version, level));
}

/**
 * The one logger that writes nothing (tests, benchmarks, quiet local runs): a pino logger, so it serves a
 * Fastify service and, being a `Log`, an edge handler alike.
 */
export function silentServiceLogger(): Logger {
  return pino({ level: 'silent' });
}
