/** What the local platform's analytics events stream holds, read as a warehouse consumer would. */
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { analyticsStreamName } from '../../../contracts/analytics-resources.js';
import { LOCAL_CREDENTIALS } from '../../../local/dynamodb.js';
import { PROJECT, type LocalPlatform } from '../../../local/platform.js';
import { readStream } from '../../integration/analytics/harness.js';

/** Every record in the events stream (all shards, from the start), optionally of one application. */
export async function analyticsStreamRecords(
  platform: LocalPlatform,
  applicationId?: string,
): Promise<Record<string, unknown>[]> {
  const kinesis = new KinesisClient({
    endpoint: platform.endpoints.aws.kinesis,
    region: platform.config.analyticsApi.region,
    credentials: LOCAL_CREDENTIALS,
    requestHandler: new NodeHttpHandler(),
  });
  try {
    const records = (await readStream(kinesis, analyticsStreamName(PROJECT))).map(
      (entry) => entry.record as Record<string, unknown>,
    );
    return applicationId === undefined ? records : records.filter((r) => r.application_id === applicationId);
  } finally {
    kinesis.destroy();
  }
}
