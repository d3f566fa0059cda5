/**
 * Lambda response streaming, as the streaming handlers use it.
 *
 * In Lambda, `streamifyResponse` and `HttpResponseStream` are the runtime's own (`globalThis.awslambda`).
 * Everywhere else (jest, the local API Gateway emulator) this module supplies a faithful local
 * implementation of the same contract (types/awslambda.d.ts). The invoker's half (a local response
 * stream, running a streaming handler, splitting its output as API Gateway does) belongs to the emulator:
 * local/api-gateway-emulator/response-stream.ts.
 *
 * Wire format of `application/vnd.awslambda.http-integration-response`:
 *   JSON.stringify(prelude) ‖ 8 × 0x00 ‖ body bytes
 * The JSON cannot contain a raw NUL (JSON escapes it), so the first run of 8 NULs ends the prelude.
 * API Gateway requires the prelude within the first 16 KB.
 */
import type { Context } from 'aws-lambda';
import type {
  HttpResponseStreamStatic,
  LambdaRuntimeGlobal,
  StreamifyOptions,
  StreamingHandler,
} from '../../types/awslambda.js';

export type {
  HttpIntegrationPrelude,
  LambdaResponseStream,
  StreamingHandler,
} from '../../types/awslambda.js';

export const HTTP_INTEGRATION_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';
export const PRELUDE_DELIMITER_LENGTH = 8;
/** API Gateway rejects a stream whose prelude is not complete within the first 16 KB. */
export const MAX_PRELUDE_BYTES = 16 * 1024;
/** The runtime's content type when a handler sets none. */
export const DEFAULT_STREAM_CONTENT_TYPE = 'application/octet-stream';

// The runtime marks streaming handlers with these (aws-lambda-nodejs-runtime-interface-client).
const HANDLER_STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
const STREAM_RESPONSE = 'response';
const HANDLER_HIGHWATERMARK = Symbol.for('aws.lambda.runtime.handler.streaming.highWaterMark');

/** The runtime's global, or undefined outside Lambda. Looked up at call time, never cached. */
export function runtimeGlobal(): LambdaRuntimeGlobal | undefined {
  // Through `unknown`: @types/aws-lambda declares the global as always present, which it is not.
  const candidate = (globalThis as unknown as { awslambda?: Partial<LambdaRuntimeGlobal> }).awslambda;
  return typeof candidate?.streamifyResponse === 'function' && candidate.HttpResponseStream !== undefined
    ? (candidate as LambdaRuntimeGlobal)
    : undefined;
}

/** Whether a function was wrapped by (either) `streamifyResponse`. */
export function isStreamingHandler(fn: unknown): boolean {
  return (
    typeof fn === 'function' &&
    (fn as unknown as Record<symbol, unknown>)[HANDLER_STREAMING] === STREAM_RESPONSE
  );
}

function localStreamify<TEvent, TContext>(
  handler: StreamingHandler<TEvent, TContext>,
  options?: StreamifyOptions,
): StreamingHandler<TEvent, TContext> {
  const marked = handler as StreamingHandler<TEvent, TContext> & Record<symbol, unknown>;
  marked[HANDLER_STREAMING] = STREAM_RESPONSE;
  if (options?.highWaterMark !== undefined) marked[HANDLER_HIGHWATERMARK] = options.highWaterMark;
  return marked;
}

/** `awslambda.streamifyResponse` in Lambda, the local marker elsewhere. */
export function streamifyResponse<TEvent, TContext = Context>(
  handler: StreamingHandler<TEvent, TContext>,
  options?: StreamifyOptions,
): StreamingHandler<TEvent, TContext> {
  const runtime = runtimeGlobal();
  return runtime ? runtime.streamifyResponse(handler, options) : localStreamify(handler, options);
}

const localHttpResponseStream: HttpResponseStreamStatic = {
  from(stream, prelude) {
    stream.setContentType(HTTP_INTEGRATION_CONTENT_TYPE);
    const metadata = JSON.stringify(prelude);
    stream._onBeforeFirstWrite = (write) => {
      write(metadata);
      write(new Uint8Array(PRELUDE_DELIMITER_LENGTH));
    };
    return stream;
  },
};

/** `awslambda.HttpResponseStream` in Lambda, the local implementation elsewhere. */
export const HttpResponseStream: HttpResponseStreamStatic = {
  from(stream, prelude) {
    return (runtimeGlobal()?.HttpResponseStream ?? localHttpResponseStream).from(stream, prelude);
  },
};
