/** local/kinesis.ts: kinesalite on loopback with the requested streams ACTIVE, read back over all shards. */
import { createConnection } from 'node:net';
import { DescribeStreamSummaryCommand, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { expect, test } from '@jest/globals';
import { startLocalKinesis } from '../../../local/kinesis.js';
import { readStream } from './harness.js';

test('streams are ACTIVE with their shard counts; records round-trip; close frees the port', async () => {
  const kinesis = await startLocalKinesis({
    streams: [
      { name: 'one', shardCount: 1 },
      { name: 'three', shardCount: 3 },
    ],
  });
  const client = kinesis.client();
  const port = Number(new URL(kinesis.endpoint).port);
  try {
    expect(kinesis.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const [name, shards] of [
      ['one', 1],
      ['three', 3],
    ] as const) {
      const { StreamDescriptionSummary: s } = await client.send(
        new DescribeStreamSummaryCommand({ StreamName: name }),
      );
      expect(s).toMatchObject({ StreamStatus: 'ACTIVE', OpenShardCount: shards });
    }
    const records = Array.from({ length: 30 }, (_, i) => ({ n: i }));
    const put = await client.send(
      new PutRecordsCommand({
        StreamName: 'three',
        Records: records.map((r) => ({ PartitionKey: `pk-${r.n}`, Data: Buffer.from(JSON.stringify(r)) })),
      }),
    );
    expect(put.FailedRecordCount).toBe(0);
    const read = await readStream(client, 'three');
    expect(read.map((e) => e.record).sort((a, b) => a.n - b.n)).toEqual(records);
    expect(new Set(read.map((e) => e.shardId)).size).toBe(3);
    expect(await readStream(client, 'one')).toEqual([]);
  } finally {
    await kinesis.close();
  }
  const refused = await new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
  expect(refused).toBe(true);
});
