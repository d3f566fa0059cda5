/**
 * The invoker's half of Lambda response streaming, as the API Gateway emulator needs it:
 * `LocalResponseStream` (the runtime's response stream), `invokeStreamingHandler` (run a streaming
 * handler, get its raw output as a Readable) and `readHttpIntegrationResponse` (split that output into
 * the metadata prelude and the body, as API Gateway does). The handler's half (`streamifyResponse`,
 * `HttpResponseStream`, the wire format) is lambda/shared/streaming.ts.
 */
import { PassThrough, pipeline, Writable, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Context } from 'aws-lambda';
import {
  DEFAULT_STREAM_CONTENT_TYPE,
  MAX_PRELUDE_BYTES,
  PRELUDE_DELIMITER_LENGTH,
  type HttpIntegrationPrelude,
  type LambdaResponseStream,
  type StreamingHandler,
} from '../../lambda/shared/streaming.js';

type WriteCallback = (error: Error | null | undefined) => void;
type DoneCallback = (error?: Error | null) => void;

/**
 * The local stand-in for the runtime's response stream: bytes go to `output` (a Readable the invoker
 * reads), with the runtime's rules — `setContentType` only before the first write, `_onBeforeFirstWrite`
 * run by the first `write()` call (not by `end(chunk)`), backpressure from the reader.
 */
export class LocalResponseStream extends Writable implements LambdaResponseStream {
  _onBeforeFirstWrite: ((write: (chunk: string | Uint8Array) => void) => void) | undefined;
  /** What the invoker reads: everything written, prelude included. */
  readonly output: PassThrough;
  private contentTypeValue = DEFAULT_STREAM_CONTENT_TYPE;
  private started = false;
  private readonly contentTypeKnown: Promise<string>;
  private announceContentType!: (value: string) => void;

  constructor(options: { highWaterMark?: number } = {}) {
    super({ highWaterMark: options.highWaterMark ?? 16 * 1024 });
    this.output = new PassThrough({ highWaterMark: options.highWaterMark ?? 16 * 1024 });
    this.contentTypeKnown = new Promise((resolve) => {
      this.announceContentType = resolve;
    });
    this.once('finish', () => this.markStarted());
    // The reader went away (client disconnected): fail the writer so the handler stops its upstream.
    this.output.once('close', () => {
      if (!this.writableEnded && !this.destroyed)
        this.destroy(new Error('client closed the response stream'));
    });
  }

  /** The content type the function settled on (at its first write, or at the end). */
  contentType(): Promise<string> {
    return this.contentTypeKnown;
  }

  setContentType(contentType: string): void {
    if (this.started) throw new Error('Cannot set content-type, too late.');
    this.contentTypeValue = contentType;
  }

  override write(
    chunk: unknown,
    encoding?: BufferEncoding | WriteCallback,
    callback?: WriteCallback,
  ): boolean {
    if (!this.started) {
      this.markStarted();
      const hook = this._onBeforeFirstWrite;
      if (typeof hook === 'function') hook((prelude) => super.write(prelude));
    }
    // Objects other than bytes/strings are JSON-encoded, as the runtime does.
    const data =
      typeof chunk === 'string' || chunk instanceof Uint8Array ? chunk : Buffer.from(JSON.stringify(chunk));
    return typeof encoding === 'function'
      ? super.write(data, encoding)
      : super.write(data, encoding ?? 'utf8', callback);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: DoneCallback): void {
    if (this.output.destroyed) {
      callback(new Error('client closed the response stream'));
      return;
    }
    // Honour the reader's backpressure: complete the write only once the output has room.
    if (this.output.write(chunk)) {
      callback();
      return;
    }
    const onDrain = (): void => {
      cleanup();
      callback();
    };
    const onClose = (): void => {
      cleanup();
      callback(new Error('client closed the response stream'));
    };
    const cleanup = (): void => {
      this.output.off('drain', onDrain);
      this.output.off('close', onClose);
    };
    this.output.once('drain', onDrain);
    this.output.once('close', onClose);
  }

  override _final(callback: DoneCallback): void {
    this.output.end();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.markStarted();
    if (error) this.output.destroy(error);
    else if (!this.output.writableEnded) this.output.end();
    callback(error);
  }

  private markStarted(): void {
    if (this.started) return;
    this.started = true;
    this.announceContentType(this.contentTypeValue);
  }
}

export interface StreamingInvocation {
  /** The invocation's content type (HTTP_INTEGRATION_CONTENT_TYPE after HttpResponseStream.from). */
  contentType: Promise<string>;
  /** Raw bytes as the function writes them, prelude included; errors if the function fails mid-stream. */
  output: Readable;
  /** Settles when the handler's promise settles and the stream is finished; rejects with its error. */
  done: Promise<void>;
}

/**
 * Runs a streaming handler the way the runtime does: the handler gets a fresh response stream and must end
 * it. A rejected handler (or one that returns without ending the stream) fails the output stream, which is
 * how a client sees an aborted response.
 */
export function invokeStreamingHandler<TEvent, TContext = Context>(
  handler: StreamingHandler<TEvent, TContext>,
  event: TEvent,
  context: TContext,
): StreamingInvocation {
  const stream = new LocalResponseStream();
  // A failure reaches the invoker through `output` and `done`; the writable's own event is not the signal.
  stream.on('error', () => undefined);
  const done = (async () => {
    try {
      await handler(event, stream, context);
      // Like the runtime, wait for the stream to end: a handler may return before its pipeline finishes.
      if (!stream.writableFinished) await finished(stream);
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      stream.destroy(err);
      throw err;
    }
  })();
  // Callers observe failures through `done` or the output stream; never an unhandled rejection here.
  done.catch(() => undefined);
  return { contentType: stream.contentType(), output: stream.output, done };
}

export interface HttpIntegrationResponse {
  prelude: HttpIntegrationPrelude;
  /** The body after the delimiter, streamed as it arrives. */
  body: Readable;
}

function indexOfDelimiter(buffer: Buffer): number {
  let run = 0;
  for (let i = 0; i < buffer.length; i++) {
    run = buffer[i] === 0 ? run + 1 : 0;
    if (run === PRELUDE_DELIMITER_LENGTH) return i - PRELUDE_DELIMITER_LENGTH + 1;
  }
  return -1;
}

function isPrelude(value: unknown): value is HttpIntegrationPrelude {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const status = (value as { statusCode?: unknown }).statusCode;
  return (
    status === undefined ||
    (Number.isInteger(status) && (status as number) >= 100 && (status as number) <= 599)
  );
}

/**
 * Splits an http-integration-response stream as API Gateway does: reads up to the first 8 NUL bytes
 * (within 16 KB), parses the JSON prelude (statusCode defaults to 200), and returns the rest as a stream
 * that yields each chunk as soon as the function writes it. Destroying that body destroys `output`
 * (a client going away), which fails the function's response stream.
 */
export function readHttpIntegrationResponse(output: Readable): Promise<HttpIntegrationResponse> {
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const stop = (): void => {
      output.off('data', onData);
      output.off('end', onEnd);
      output.off('error', onError);
    };
    const fail = (error: Error): void => {
      stop();
      output.destroy();
      reject(error);
    };
    const onEnd = (): void => fail(new Error('stream ended before the metadata prelude delimiter'));
    const onError = (error: Error): void => fail(error);
    function onData(chunk: Buffer | string): void {
      head = Buffer.concat([head, Buffer.from(chunk)]);
      const at = indexOfDelimiter(head);
      if (at === -1) {
        if (head.length > MAX_PRELUDE_BYTES + PRELUDE_DELIMITER_LENGTH) {
          fail(new Error('metadata prelude larger than 16 KB'));
        }
        return;
      }
      if (at > MAX_PRELUDE_BYTES) return fail(new Error('metadata prelude larger than 16 KB'));
      let parsed: unknown;
      try {
        parsed = JSON.parse(head.subarray(0, at).toString('utf8'));
      } catch {
        return fail(new Error('metadata prelude is not valid JSON'));
      }
      if (!isPrelude(parsed))
        return fail(new Error('metadata prelude is not a JSON object with a valid statusCode'));
      stop();
      output.pause();
      const body = new PassThrough();
      const rest = head.subarray(at + PRELUDE_DELIMITER_LENGTH);
      if (rest.length > 0) body.write(rest);
      // pipeline: an error upstream fails the body; destroying the body destroys the upstream.
      pipeline(output, body, () => undefined);
      resolve({ prelude: { ...parsed, statusCode: parsed.statusCode ?? 200 }, body });
    }
    output.on('data', onData);
    output.once('end', onEnd);
    output.once('error', onError);
  });
}
