/**
 * The applications and API-key stores: what the admin handler and the authorizer both read. Their environment
 * contract is contracts/env/key-stores.ts.
 */
import { awsClientConfig } from '../../../contracts/runtime/aws-clients.js';
import { withoutSdkLogFilter } from '../../../contracts/runtime/sdk-log-filter.js';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readKeyStoresConfig } from '../../../contracts/env/key-stores.js';
import { ApiKeyStore } from './api-key-store.js';
import { ApplicationStore } from './applications-store.js';

export interface KeyStores {
  readonly applications: ApplicationStore;
  readonly apiKeys: ApiKeyStore;
}

/** Both stores on one DocumentClient, over the tables the environment names. */
export function keyStoresFromEnv(env: NodeJS.ProcessEnv, dynamodb?: DynamoDBClient): KeyStores {
  const config = readKeyStoresConfig(env);
  const doc = DynamoDBDocumentClient.from(
    withoutSdkLogFilter(dynamodb ?? new DynamoDBClient(awsClientConfig({ component: 'analytics' }))),
  );
  return {
    applications: new ApplicationStore(doc, config.applicationsTable),
    apiKeys: new ApiKeyStore(doc, config.authorizationsTable),
  };
}
