/**
 * The applications and API-key stores over the tables named in the environment: what the admin handler
 * and the authorizer both read (APPLICATIONS_TABLE, AUTHORIZATIONS_TABLE), on one DocumentClient.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { EnvReader } from '../proxy-config.js';
import { ApiKeyStore } from './api-key-store.js';
import { ApplicationStore } from './applications-store.js';
import { applicationsTable, authorizationsTable } from './config.js';

export interface KeyStores {
  readonly applications: ApplicationStore;
  readonly apiKeys: ApiKeyStore;
}

/** Throws (naming every problem) when a table variable is missing or malformed. */
export function keyStoresFromEnv(env: NodeJS.ProcessEnv, dynamodb?: DynamoDBClient): KeyStores {
  const r = new EnvReader(env);
  const applications = applicationsTable(r);
  const authorizations = authorizationsTable(r);
  r.finish();
  const doc = DynamoDBDocumentClient.from(dynamodb ?? new DynamoDBClient({}));
  return {
    applications: new ApplicationStore(doc, applications),
    apiKeys: new ApiKeyStore(doc, authorizations),
  };
}
