/**
 * The Lambda entry point of an analytics API handler: the handler is built from the environment on the
 * first invocation (never at import); a configuration error is logged once and every request then gets
 * 500 `{"message":"Internal server error"}`.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { errorResult, internalError } from '../errors.js';
import { createLogger, type EdgeLogger } from '../logger.js';
import { lazyHandler } from '../proxy-runtime.js';

export function apiEntryPoint<A extends unknown[]>(
  service: string,
  build: (logger: EdgeLogger) => (...args: A) => Promise<APIGatewayProxyResult>,
): (...args: A) => Promise<APIGatewayProxyResult> {
  let logger: EdgeLogger | undefined;
  const getLogger = (): EdgeLogger => (logger ??= createLogger(service));
  return lazyHandler(
    () => build(getLogger()),
    async () => errorResult(internalError('invalid_configuration')),
    getLogger,
  );
}
