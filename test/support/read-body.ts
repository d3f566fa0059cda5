import type { Readable } from 'node:stream';

/** Test helper: the whole of a stream (an HTTP request or response body), as one buffer. */
export async function readBody(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}
