/** JSON logs (pino) with a request id on every line and secrets redacted from whatever gets logged. */
import { pino, type Logger, type LoggerOptions } from 'pino';
import { EnvReader } from '../../contracts/env/reader.js';

/** Header and field paths that must never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-svc-signature"]',
  'req.headers["x-amz-security-token"]',
  'headers.authorization',
  'headers["x-svc-signature"]',
  '*.secret',
  '*.signingKey',
  '*.password',
];

export function loggerOptions(
  service: string,
  version: string,
  level = new EnvReader(process.env).string('LOG_LEVEL', 'info'),
): LoggerOptions {
  return {
    level,
    base: { service, version },
    messageKey: 'message',
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
}

export function createLogger(service: string, version: string, level?: string): Logger {
  return pino(loggerOptions(service, version, level));
}

/** A logger that writes nothing (tests, embedded use). */
export function silentServiceLogger(): Logger {
  return pino({ level: 'silent' });
}
