import { Readable } from 'node:stream';
import {
  DEFAULT_STREAM_CONTENT_TYPE,
  HTTP_INTEGRATION_CONTENT_TYPE,
  HttpResponseStream,
  isStreamingHandler,
  MAX_PRELUDE_BYTES,
  runtimeGlobal,
  streamifyResponse,
  type LambdaResponseStream,
} from '../../../lambda/shared/streaming.js';
import {
  invokeStreamingHandler,
  LocalResponseStream,
  readHttpIntegrationResponse,
} from '../../../local/api-gateway-emulator/response-stream.js';
import type { LambdaRuntimeGlobal } from '../../../types/awslambda.js';
import { lambdaContext } from '../../support/lambda-context.js';

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

const ctx = lambdaContext();

describe('local HttpResponseStream.from (no awslambda global)', () => {
  test('the wire format is JSON prelude, 8 NUL bytes, then the body', async () => {
    expect(runtimeGlobal()).toBeUndefined();
    const handler = streamifyResponse(async (_event: unknown, stream: LambdaResponseStream) => {
      const out = HttpResponseStream.from(stream, { statusCode: 201, headers: { 'x-a': '1' } });
      out.write('hello ');
      out.write(Buffer.from([0, 1, 2, 255]));
      out.end();
    });
    expect(isStreamingHandler(handler)).toBe(true);
    const inv = invokeStreamingHandler(handler, {}, ctx);
    expect(await inv.contentType).toBe(HTTP_INTEGRATION_CONTENT_TYPE);
    const raw = await bytesOf(inv.output);
    await inv.done;
    const prelude = Buffer.from(JSON.stringify({ statusCode: 201, headers: { 'x-a': '1' } }));
    expect(raw).toEqual(
      Buffer.concat([prelude, Buffer.alloc(8), Buffer.from('hello '), Buffer.from([0, 1, 2, 255])]),
    );
  });

  test('readHttpIntegrationResponse splits prelude and body (a body full of NULs included)', async () => {
    const body = Buffer.alloc(20); // 20 NUL bytes right after the delimiter
    const handler = streamifyResponse(async (_e: unknown, stream: LambdaResponseStream) => {
      const out = HttpResponseStream.from(stream, {
        statusCode: 404,
        multiValueHeaders: { 'set-cookie': ['a=1', 'b=2'] },
      });
      out.write(body);
      out.end();
    });
    const inv = invokeStreamingHandler(handler, {}, ctx);
    const { prelude, body: rest } = await readHttpIntegrationResponse(inv.output);
    expect(prelude).toEqual({ statusCode: 404, multiValueHeaders: { 'set-cookie': ['a=1', 'b=2'] } });
    expect(await bytesOf(rest)).toEqual(body);
    await inv.done;
  });

  test('like the runtime, end(chunk) without a write() sends no prelude', async () => {
    const handler = streamifyResponse(async (_e: unknown, stream: LambdaResponseStream) => {
      HttpResponseStream.from(stream, { statusCode: 200 }).end('only end');
    });
    const inv = invokeStreamingHandler(handler, {}, ctx);
    await expect(readHttpIntegrationResponse(inv.output)).rejects.toThrow(/before the metadata prelude/);
  });

  test('setContentType after the first write throws, as in the runtime; default type is octet-stream', async () => {
    const stream = new LocalResponseStream();
    const type = stream.contentType();
    stream.write('x');
    expect(() => stream.setContentType('text/plain')).toThrow(/too late/);
    stream.end();
    expect(await type).toBe(DEFAULT_STREAM_CONTENT_TYPE);
    await bytesOf(stream.output);
  });

  test('a rejected handler fails the output stream and `done`', async () => {
    const handler = streamifyResponse(async (_e: unknown, stream: LambdaResponseStream) => {
      stream.write('partial');
      throw new Error('boom');
    });
    const inv = invokeStreamingHandler(handler, {}, ctx);
    await expect(bytesOf(inv.output)).rejects.toThrow('boom');
    await expect(inv.done).rejects.toThrow('boom');
  });

  test('a handler may return before its stream ends; `done` waits for the end', async () => {
    let finish: () => void = () => undefined;
    const handler = streamifyResponse(async (_e: unknown, stream: LambdaResponseStream) => {
      stream.write('a');
      finish = () => stream.end('b');
    });
    const inv = invokeStreamingHandler(handler, {}, ctx);
    let settled = false;
    void inv.done.then(() => (settled = true));
    const reader = inv.output[Symbol.asyncIterator]();
    expect(Buffer.from((await reader.next()).value as Buffer).toString()).toBe('a');
    expect(settled).toBe(false);
    finish();
    await inv.done;
    expect(settled).toBe(true);
  });

  test('a prelude larger than 16 KB is refused like API Gateway does', async () => {
    const big = Buffer.alloc(MAX_PRELUDE_BYTES + 100, 'a');
    await expect(readHttpIntegrationResponse(Readable.from([big]))).rejects.toThrow(/16 KB/);
  });
});

describe('with the runtime global present', () => {
  afterEach(() => {
    delete (globalThis as { awslambda?: unknown }).awslambda;
  });

  test('streamifyResponse and HttpResponseStream.from delegate to awslambda', () => {
    const calls: string[] = [];
    const runtime: LambdaRuntimeGlobal = {
      streamifyResponse: (h) => {
        calls.push('streamify');
        return h;
      },
      HttpResponseStream: {
        from: (s) => {
          calls.push('from');
          return s;
        },
      },
    };
    (globalThis as { awslambda?: unknown }).awslambda = runtime;
    expect(runtimeGlobal()).toBe(runtime);
    const h = streamifyResponse(async () => undefined);
    HttpResponseStream.from(new LocalResponseStream(), { statusCode: 200 });
    expect(calls).toEqual(['streamify', 'from']);
    expect(isStreamingHandler(h)).toBe(false); // marking is the runtime's business here
  });
});
