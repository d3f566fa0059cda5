/**
 * Logging for the edge Lambdas: Powertools JSON logs behind a small interface so handlers can be tested
 * with an in-memory logger. Handlers log method, path, status, timings and reasons — never header
 * values, bodies, query strings, keys or signatures. The replacer below is a second line of defence in
 * case a field with a sensitive name is logged by mistake.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';

export type LogFields = Record<string, unknown>;

export interface EdgeLogger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/**
 * The module-scope logger of a Lambda entry point (lambda/shared/entry-point.ts): each invocation's
 * Lambda context (request id, function name, cold start) is added to every line it writes.
 */
export interface LambdaLogger extends EdgeLogger {
  addContext(context: Context): void;
}

/** Field names whose values are never written, whatever logs them. */
export const SENSITIVE_FIELD =
  /authorization|cookie|signature|secret|password|token|credential|^key$|signing_?key|^x-amz-/i;

export const REDACTED = '[REDACTED]';

export function redactSensitive(key: string, value: unknown): unknown {
  return key !== '' && SENSITIVE_FIELD.test(key) ? REDACTED : value;
}

/**
 * A Powertools logger (level from POWERTOOLS_LOG_LEVEL, default INFO; service name from
 * POWERTOOLS_SERVICE_NAME or `serviceName`).
 */
export function createLogger(serviceName: string): LambdaLogger {
  const logger = new Logger({ serviceName, jsonReplacerFn: redactSensitive });
  return {
    debug: (message, fields) => logger.debug(message, fields ?? {}),
    info: (message, fields) => logger.info(message, fields ?? {}),
    warn: (message, fields) => logger.warn(message, fields ?? {}),
    error: (message, fields) => logger.error(message, fields ?? {}),
    addContext: (context) => logger.addContext(context),
  };
}

/** Writes nothing (benchmarks, quiet local runs). */
export const discardingLogger: EdgeLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
