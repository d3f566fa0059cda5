/**
 * JSON logs (pino) with a request id on every line, under the platform's logging policy
 * (contracts/runtime/logging.ts): the LOG_LEVEL variable and the redaction list the Lambdas use too.
 */
import { pino, type Logger, type LoggerOptions } from 'pino';
import { REDACTED, redactFields, resolveLogLevel } from '../../contracts/runtime/logging.js';

/**
 * Request headers as pino's request serializer may write them. Every other sensitive field is caught by
 * name wherever it sits in a line's fields (redactFields).
 */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-svc-signature"]',
  'req.headers["x-amz-security-token"]',
];

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
    redact: { paths: REDACTED_PATHS, censor: REDACTED },
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
