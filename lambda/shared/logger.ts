/**
 * Logging for the edge Lambdas: Powertools JSON logs behind the platform's one logging signature
 * (contracts/runtime/logging.ts: fields first, as pino), so handlers can be tested with an in-memory
 * logger. Handlers log method, path, status, timings and reasons — never header values, bodies, query
 * strings, keys or signatures; the shared redaction policy (contracts/runtime/redaction.ts) is a second
 * line of defence.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { resolveLogLevel, type Log } from '../../contracts/runtime/logging.js';
import { redactSensitive } from '../../contracts/runtime/redaction.js';

export type { LogFields } from '../../contracts/runtime/logging.js';

export type EdgeLogger = Log;

/**
 * The module-scope logger of a Lambda entry point (lambda/shared/entry-point.ts): each invocation's
 * Lambda context (request id, function name, cold start) is added to every line it writes.
 */
export interface LambdaLogger extends EdgeLogger {
  addContext(context: Context): void;
}

/**
 * A Powertools logger (level from LOG_LEVEL, see resolveLogLevel; service name from
 * POWERTOOLS_SERVICE_NAME or `serviceName`).
 */
export function createLogger(serviceName: string): LambdaLogger {
  const level = resolveLogLevel(process.env);
  const logger = new Logger({
    serviceName,
    // Powertools names pino's `fatal` `critical`.
    logLevel: level === 'fatal' ? 'critical' : level,
    jsonReplacerFn: redactSensitive,
  });
  // Powertools takes the message first: the one place our (fields, message) order is turned around.
  return {
    debug: (fields, message) => logger.debug(message, fields),
    info: (fields, message) => logger.info(message, fields),
    warn: (fields, message) => logger.warn(message, fields),
    error: (fields, message) => logger.error(message, fields),
    addContext: (context) => logger.addContext(context),
  };
}
