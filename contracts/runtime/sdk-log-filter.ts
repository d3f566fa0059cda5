/**
 * SDK clients on a hot path (a call per request or per job) without the SDK's logger middleware. That
 * middleware runs on every call whether or not a logger is configured: the default logger is a no-op object whose `info` exists,
 * so the middleware's `logger?.info?.({ input: filter(input), output: filter(output) })` still walks the
 * whole input and output through the operation schema to mask sensitive members
 * (@aws-sdk/core `loggerMiddleware`, @smithy/core `schemaLogFilter`), and throws the copy away. For a
 * 500-record PutRecords and its answer the walk alone samples at 0.2–0.3 ms (plus the garbage of the
 * copies), and the two idempotency writes add more.
 * The platform configures no SDK logger (awsClientConfig, contracts/runtime/aws-clients.ts: its Lambdas and
 * services log their own lines), so the middleware can only ever produce nothing. Used by the analytics
 * events handler, the analytics key stores (the authorizer's lookup) and manifest-processor (the queue and
 * every central table); inference-proxy's lookups are cached, so its client keeps the middleware.
 *
 * Removing a middleware by name is the stack's documented customisation
 * (https://aws.amazon.com/blogs/developer/middleware-stack-modular-aws-sdk-js/, "remove"); the client
 * logger it serves: https://docs.aws.amazon.com/sdk-for-javascript/v3/developer-guide/logging-sdk-calls.html.
 * Middleware name: https://github.com/aws/aws-sdk-js-v3/tree/main/packages-internal/middleware-logger
 */

/** Name under which every v3 client adds its logger middleware (`getLoggerPlugin`). */
export const SDK_LOGGER_MIDDLEWARE = 'loggerMiddleware';

/** What this needs of a v3 client (KinesisClient, DynamoDBClient). */
interface WithMiddlewareStack {
  readonly middlewareStack: { remove(name: string): boolean };
}

/** The same client, its logger middleware removed (a client without one is left as it is). */
export function withoutSdkLogFilter<C extends WithMiddlewareStack>(client: C): C {
  client.middlewareStack.remove(SDK_LOGGER_MIDDLEWARE);
  return client;
}
