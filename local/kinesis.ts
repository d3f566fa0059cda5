/**
 * Kinesis Data Streams on loopback for tests and the local platform: a kinesalite server (in memory, or
 * in a LevelDB directory with `path`) with the given streams created and ACTIVE, and real
 * @aws-sdk/client-kinesis clients pointed at it.
 */
import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CreateStreamCommand,
  DescribeStreamSummaryCommand,
  KinesisClient,
  ResourceInUseException,
} from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import kinesalite from 'kinesalite';
import { LOCAL_CREDENTIALS } from './dynamodb.js';

export interface LocalStreamSpec {
  readonly name: string;
  readonly shardCount: number;
}

export interface LocalKinesis {
  readonly endpoint: string;
  readonly region: string;
  readonly streams: readonly LocalStreamSpec[];
  client(): KinesisClient;
  close(): Promise<void>;
}

/** Polls until a stream leaves CREATING (kinesalite flips it on a timer even with createStreamMs 0). */
async function waitActive(client: KinesisClient, name: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { StreamDescriptionSummary: summary } = await client.send(
      new DescribeStreamSummaryCommand({ StreamName: name }),
    );
    if (summary?.StreamStatus === 'ACTIVE') return;
    if (Date.now() > until) throw new Error(`stream ${name} did not become ACTIVE within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export async function startLocalKinesis(
  opts: {
    streams?: readonly LocalStreamSpec[];
    region?: string;
    /** Keep the streams and their records in this directory (kinesalite's LevelDB `path`). */
    path?: string;
  } = {},
): Promise<LocalKinesis> {
  const region = opts.region ?? 'us-east-2';
  const streams = [...(opts.streams ?? [])];
  const shardLimit = Math.max(
    10,
    streams.reduce((sum, s) => sum + s.shardCount, 0),
  );
  if (opts.path !== undefined) mkdirSync(opts.path, { recursive: true });
  const server = kinesalite({
    createStreamMs: 0,
    deleteStreamMs: 0,
    updateStreamMs: 0,
    shardLimit,
    ...(opts.path === undefined ? {} : { path: opts.path }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clients: KinesisClient[] = [];
  const client = () => {
    // The Kinesis client defaults to HTTP/2 (for SubscribeToShard); kinesalite speaks HTTP/1.1 only.
    const c = new KinesisClient({
      endpoint,
      region,
      credentials: LOCAL_CREDENTIALS,
      requestHandler: new NodeHttpHandler(),
    });
    clients.push(c);
    return c;
  };
  const admin = client();
  for (const stream of streams) {
    await admin
      .send(new CreateStreamCommand({ StreamName: stream.name, ShardCount: stream.shardCount }))
      .catch((error: unknown) => {
        // A kept directory already has its streams (CreateStream on an existing name: ResourceInUseException).
        if (!(opts.path !== undefined && error instanceof ResourceInUseException)) throw error;
      });
  }
  for (const stream of streams) await waitActive(admin, stream.name);
  return {
    endpoint,
    region,
    streams,
    client,
    async close() {
      for (const c of clients) c.destroy();
      // kinesalite's close also closes its store; keep-alive sockets would hold the server open.
      (server as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
      await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
