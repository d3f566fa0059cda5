/**
 * In-process Lambda invocations with API Gateway's integration limits. Buffered: the handler's promise
 * races the integration timeout. Streaming: the handler runs on a local response stream
 * (lambda/shared/streaming.ts), the http-integration prelude is split off as it arrives, and the body is
 * handed on chunk by chunk; the whole exchange is bounded by the streaming window.
 */
import type { Readable } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { HttpIntegrationPrelude, StreamingHandler } from '../../lambda/shared/streaming.js';
import { invokeStreamingHandler, readHttpIntegrationResponse } from './response-stream.js';

export type BufferedLambda = (event: APIGatewayProxyEvent, context: Context) => Promise<unknown>;
export type StreamingLambda = StreamingHandler<APIGatewayProxyEvent, Context>;

/** How a route's function is called: a buffered proxy or a streaming (`responseTransferMode: STREAM`) one. */
export type LambdaBinding =
  | { readonly kind: 'buffered'; readonly handler: BufferedLambda }
  | { readonly kind: 'streaming'; readonly handler: StreamingLambda };

export type BufferedOutcome =
  { kind: 'result'; value: unknown } | { kind: 'timeout' } | { kind: 'error'; error: unknown };

export async function invokeBuffered(
  handler: BufferedLambda,
  event: APIGatewayProxyEvent,
  context: Context,
  timeoutMs: number,
): Promise<BufferedOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<BufferedOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutMs);
  });
  // Like Lambda after API Gateway gave up, the function keeps running; its late answer is dropped.
  const run = (async (): Promise<BufferedOutcome> => {
    try {
      return { kind: 'result', value: await handler(event, context) };
    } catch (error) {
      return { kind: 'error', error };
    }
  })();
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export type StreamingOutcome =
  | {
      kind: 'stream';
      prelude: HttpIntegrationPrelude;
      /** The body as the function writes it; destroyed when the streaming window closes. */
      body: Readable;
      /** Stops the window timer once the body has been fully delivered (or abandoned). */
      release: () => void;
    }
  | { kind: 'timeout' }
  | { kind: 'error'; error: unknown };

export async function invokeStreaming(
  handler: StreamingLambda,
  event: APIGatewayProxyEvent,
  context: Context,
  windowMs: number,
): Promise<StreamingOutcome> {
  const invocation = invokeStreamingHandler(handler, event, context);
  let timedOut = false;
  let body: Readable | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    // Past the window API Gateway cuts the connection, mid-body included.
    const error = new Error('streaming window elapsed');
    if (body) body.destroy(error);
    else invocation.output.destroy(error);
  }, windowMs);
  try {
    const response = await readHttpIntegrationResponse(invocation.output);
    body = response.body;
    return { kind: 'stream', prelude: response.prelude, body, release: () => clearTimeout(timer) };
  } catch (error) {
    clearTimeout(timer);
    return timedOut ? { kind: 'timeout' } : { kind: 'error', error };
  }
}
