/** inference-proxy entry point (the container's command). */
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EnvelopeVerifier } from '../../../lambda/shared/envelope.js';
import { serviceKeySource } from '../../shared/signing-keys.js';
import { listen } from '../../shared/listen.js';
import { loadTls } from '../../shared/tls-secret.js';
import { runMain } from '../../shared/main.js';
import { createInferenceProxy, SERVICE_NAME } from './app.js';
import { loadInferenceProxySettings } from './config.js';
import { DynamoEndpointSource } from './store.js';

await runMain(SERVICE_NAME, async () => {
  const settings = loadInferenceProxySettings();
  const tls = await loadTls();
  const dynamodb = new DynamoDBClient({
    // The central table lives in the global region; every region's proxy reads it there.
    region: settings.tablesRegion,
    ...(settings.dynamodbEndpoint ? { endpoint: settings.dynamodbEndpoint } : {}),
    // Bounded lookups: a slow table must surface as a 503, not as requests piling up behind it.
    requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000 },
  });
  const service = await createInferenceProxy({
    config: settings.config,
    envelope: new EnvelopeVerifier({
      keys: serviceKeySource(),
      freshnessSeconds: settings.envelopeFreshnessSeconds,
    }),
    endpoints: new DynamoEndpointSource(dynamodb, settings.tableName),
    ca: readFileSync(settings.caFile),
  });
  await listen(service, process.env, tls);
});
