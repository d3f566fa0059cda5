/** cost-monitor entry point (the container's command). */
import { hostname } from 'node:os';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { listen } from '../../shared/listen.js';
import { loadTls } from '../../shared/tls-secret.js';
import { runMain } from '../../shared/main.js';
import { createCostMonitor, SERVICE_NAME } from './app.js';
import { loadCostMonitorConfig } from './config.js';

await runMain(SERVICE_NAME, async () => {
  const config = loadCostMonitorConfig();
  const tls = await loadTls();
  // Bounded SDK calls: a hung dependency must surface as a failed tick, not a stuck scheduler.
  const requestHandler = { connectionTimeout: 5_000, requestTimeout: 30_000 };
  const service = await createCostMonitor({
    config,
    s3: new S3Client({ region: config.region, requestHandler }),
    dynamo: new DynamoDBClient({ region: config.region, requestHandler }),
    // The pod name identifies the replica holding a window claim.
    instanceId: process.env.POD_NAME ?? hostname(),
  });
  // The seed's port is 8443 (HTTPS); without TLS material (local runs) the framework's default applies.
  await listen(service, { ...process.env, PORT: process.env.PORT ?? (tls ? '8443' : '8080') }, tls);
});
