/** cost-monitor entry point (the container's command). */
import { hostname } from 'node:os';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { runService } from '../../shared/main.js';
import { createCostMonitor, SERVICE_NAME } from './app.js';
import { loadCostMonitorConfig } from './config.js';

await runService({
  name: SERVICE_NAME,
  // The seed's port is 8443 (HTTPS); without TLS material (local runs) the framework's default applies.
  tlsPort: 8443,
  create: async (env) => {
    const config = loadCostMonitorConfig(env);
    // Bounded SDK calls: a hung dependency must surface as a failed tick, not a stuck scheduler.
    const requestHandler = { connectionTimeout: 5_000, requestTimeout: 30_000 };
    return createCostMonitor({
      config,
      s3: new S3Client({ region: config.region, requestHandler }),
      dynamo: new DynamoDBClient({ region: config.region, requestHandler }),
      // The pod name identifies the replica holding a window claim.
      instanceId: env.POD_NAME ?? hostname(),
    });
  },
});
