/**
 * Types for the Lambda Node.js runtime's `awslambda` global (response streaming).
 *
 * The runtime installs `globalThis.awslambda` before loading the handler; it does not exist anywhere else
 * (jest, the local API Gateway emulator, `tsx`). `@types/aws-lambda` declares it as an always-present
 * namespace typed with `any`, which would let code call it unguarded. So the project never uses that
 * identifier: lambda/shared/streaming.ts reads `globalThis.awslambda` as `LambdaRuntimeGlobal | undefined`
 * and falls back to its local implementation of the same contract. Import these with `import type`.
 *
 * Contract (aws-lambda-nodejs-runtime-interface-client, src/HttpResponseStream.js and ResponseStream.js):
 * - `streamifyResponse(handler)` marks a handler as streaming; it gets `(event, responseStream, context)`,
 *   must return a promise and must end the stream itself.
 * - `HttpResponseStream.from(stream, prelude)` sets the content type
 *   `application/vnd.awslambda.http-integration-response` and installs `_onBeforeFirstWrite`: on the
 *   first `write()` call the runtime first writes `JSON.stringify(prelude)` and then 8 NUL bytes, then the
 *   chunk. `end(chunk)` alone does NOT trigger it: a handler must call `write()` at least once.
 */
import type { Writable } from 'node:stream';
import type { Context } from 'aws-lambda';

/** The writable a streaming handler receives. */
export interface LambdaResponseStream extends Writable {
  /** Content type of the whole invocation response; throws once the first write happened. */
  setContentType(contentType: string): void;
  /** Runtime hook, run once just before the first `write()` reaches the wire. */
  _onBeforeFirstWrite?: ((write: (chunk: string | Uint8Array) => void) => void) | undefined;
}

/** Metadata API Gateway (REST, response transfer mode STREAM) reads before the body. */
export interface HttpIntegrationPrelude {
  statusCode: number;
  headers?: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  cookies?: string[];
}

/** `TContext` narrows what a handler reads from the Lambda context (tests pass only those fields). */
export type StreamingHandler<TEvent, TContext = Context> = (
  event: TEvent,
  responseStream: LambdaResponseStream,
  context: TContext,
) => Promise<void>;

export interface StreamifyOptions {
  highWaterMark?: number;
}

export interface HttpResponseStreamStatic {
  from(stream: LambdaResponseStream, prelude: HttpIntegrationPrelude): LambdaResponseStream;
}

/** What the runtime puts at `globalThis.awslambda`. */
export interface LambdaRuntimeGlobal {
  streamifyResponse<TEvent, TContext = Context>(
    handler: StreamingHandler<TEvent, TContext>,
    options?: StreamifyOptions,
  ): StreamingHandler<TEvent, TContext>;
  HttpResponseStream: HttpResponseStreamStatic;
}
