/**
 * S3 on loopback for tests and the local platform: an s3rver server (files in a fresh temp directory
 * removed on close, or in a kept `directory`) with the given buckets, and a real @aws-sdk/client-s3 client
 * pointed at it (path-style addressing).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

export interface LocalS3 {
  readonly endpoint: string;
  readonly region: string;
  readonly buckets: readonly string[];
  client(): S3Client;
  close(): Promise<void>;
}

/** s3rver's built-in account: it verifies SigV4 against this key pair. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export async function startLocalS3(
  opts: {
    buckets?: readonly string[];
    region?: string;
    /** Keep the objects in this directory across runs; a fresh temporary one otherwise. */
    directory?: string;
  } = {},
): Promise<LocalS3> {
  const region = opts.region ?? 'us-east-1';
  const buckets = [...(opts.buckets ?? [])];
  const kept = opts.directory;
  if (kept !== undefined) await mkdir(kept, { recursive: true });
  const directory = kept ?? (await mkdtemp(join(tmpdir(), 'gco-s3-')));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    // Only path-style requests reach loopback; never treat a Host header as a bucket name.
    vhostBuckets: false,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const clients: S3Client[] = [];
  return {
    endpoint,
    region,
    buckets,
    client() {
      const c = new S3Client({
        endpoint,
        region,
        forcePathStyle: true,
        credentials: S3RVER_CREDENTIALS,
        // s3rver predates flexible checksums; send them only where S3 requires one.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      clients.push(c);
      return c;
    },
    async close() {
      for (const c of clients) c.destroy();
      await server.close();
      if (kept === undefined) await rm(directory, { recursive: true, force: true });
    },
  };
}
