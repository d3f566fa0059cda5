/** inference-proxy entry point (the container's command). */
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { envelopeVerifierFromEnv } from '../../shared/envelope-verifier.js';
import { runService } from '../../shared/main.js';
import { createInferenceProxy, SERVICE_NAME } from './app.js';
import { loadInferenceProxySettings } from './config.js';
import { DynamoEndpointSource } from './store.js';

await runService({
  name: SERVICE_NAME,
  create: async (env) => {
    const settings = loadInferenceProxySettings(env);
    const dynamodb = new DynamoDBClient({
      // The central table lives in the global region; every region's proxy reads it there.
      region: settings.tablesRegion,
      ...(settings.dynamodbEndpoint ? { endpoint: settings.dynamodbEndpoint } : {}),
      // Bounded lookups: a slow table must surface as a 503, not as requests piling up behind it.
      requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000 },
    });
    return createInferenceProxy({
      config: settings.config,
      envelope: envelopeVerifierFromEnv(env),
      endpoints: new DynamoEndpointSource(dynamodb, settings.tableName),
      ca: readFileSync(settings.caFile),
    });
  },
});
