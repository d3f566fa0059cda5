/**
 * The applications and API-key stores: what the admin handler and the authorizer both read. Their
 * environment contract (APPLICATIONS_TABLE, AUTHORIZATIONS_TABLE) is written by `keyStoresEnvironment`
 * (the analytics stack, the local platform) and read by `readKeyStoresConfig`.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ANALYTICS_TABLES } from '../../../lib/analytics-resources.js';
import { EnvReader, envVariables } from '../env.js';
import { ApiKeyStore } from './api-key-store.js';
import { ApplicationStore } from './applications-store.js';
import { readTableName } from './config.js';

export interface KeyStoresConfig {
  readonly applicationsTable: string;
  readonly authorizationsTable: string;
}

export function keyStoresEnvironment(config: KeyStoresConfig): Record<string, string> {
  return envVariables({
    [ANALYTICS_TABLES.applications.envVar]: config.applicationsTable,
    [ANALYTICS_TABLES.authorizations.envVar]: config.authorizationsTable,
  });
}

/** Throws a ConfigError naming every missing table variable. */
export function readKeyStoresConfig(env: NodeJS.ProcessEnv): KeyStoresConfig {
  const r = new EnvReader(env);
  const applicationsTable = readTableName(r, ANALYTICS_TABLES.applications);
  const authorizationsTable = readTableName(r, ANALYTICS_TABLES.authorizations);
  r.finish();
  return Object.freeze({ applicationsTable, authorizationsTable });
}

export interface KeyStores {
  readonly applications: ApplicationStore;
  readonly apiKeys: ApiKeyStore;
}

/** Both stores on one DocumentClient, over the tables the environment names. */
export function keyStoresFromEnv(env: NodeJS.ProcessEnv, dynamodb?: DynamoDBClient): KeyStores {
  const config = readKeyStoresConfig(env);
  const doc = DynamoDBDocumentClient.from(dynamodb ?? new DynamoDBClient({}));
  return {
    applications: new ApplicationStore(doc, config.applicationsTable),
    apiKeys: new ApiKeyStore(doc, config.authorizationsTable),
  };
}
