/**
 * The Lambda entry point of every edge handler (docs/edge-lambdas.md, "Runtime"). The handler module
 * creates its logger at module scope and nothing else at import; the configuration is read and the
 * handler built on the first invocation of a sandbox; each invocation's Lambda context is added to the
 * logger. A configuration error is logged once, naming every problem, and every invocation then fails
 * the way its trigger expects (`onConfigError`) instead of crashing the sandbox.
 */
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { describeError, errorResult, internalError } from './errors.js';
import type { LambdaLogger } from './logger.js';

/**
 * A Lambda handler's arguments: the event, whatever the trigger passes in between (`M`: the response
 * stream of a streaming handler), and the invocation context last.
 */
export type LambdaArguments<E, M extends unknown[] = []> = [event: E, ...rest: [...M, Context]];

/** A handler module's factory: the handler from the environment, logging to the module's logger. */
export type HandlerFromEnv<E, R, M extends unknown[] = []> = (
  env: NodeJS.ProcessEnv,
  options: { logger: LambdaLogger },
) => (...args: LambdaArguments<E, M>) => Promise<R>;

/**
 * The exported `handler` of a handler module: `logger` is the module's (created at module scope),
 * `fromEnv` builds the handler from `process.env` on the first invocation, `onConfigError` is how an
 * invocation fails while the configuration is invalid.
 */
export function entryPoint<E, R, M extends unknown[] = []>(
  logger: LambdaLogger,
  fromEnv: HandlerFromEnv<E, R, M>,
  onConfigError: (error: unknown, ...args: LambdaArguments<E, M>) => Promise<R>,
): (...args: LambdaArguments<E, M>) => Promise<R> {
  let built: ((...args: LambdaArguments<E, M>) => Promise<R>) | undefined;
  let failed = false;
  let configError: unknown;
  return (...args) => {
    // Sound by the type of the arguments: Lambda passes the context last.
    logger.addContext(args[args.length - 1] as Context);
    if (built === undefined && !failed) {
      try {
        built = fromEnv(process.env, { logger });
      } catch (error) {
        failed = true;
        configError = error;
        logger.error(describeError(error), 'invalid configuration; every invocation fails until it is fixed');
      }
    }
    return built ? built(...args) : onConfigError(configError, ...args);
  };
}

/** HTTP handlers: 500 `{"message":"Internal server error"}`; the problems are in the log only. */
export async function answerInternalError(): Promise<APIGatewayProxyResult> {
  return errorResult(internalError('invalid_configuration'));
}

/**
 * Custom-resource and scheduled handlers: the invocation fails with the configuration error, so
 * CloudFormation reports it on the resource and an alarm on the function's errors sees it.
 */
export async function failInvocation(error: unknown): Promise<never> {
  throw error;
}
