/**
 * The applications and API-key stores' environment contract (APPLICATIONS_TABLE, AUTHORIZATIONS_TABLE):
 * written by `keyStoresEnvironment` (the analytics stack, the local platform), read by `readKeyStoresConfig`
 * (the admin handler and the authorizer).
 */
import { ANALYTICS_TABLES } from '../analytics-resources.js';
import { readTableName } from './analytics-tables.js';
import { EnvReader, envVariables } from './reader.js';

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

/** Throws an EnvironmentError naming every missing table variable. */
export function readKeyStoresConfig(env: NodeJS.ProcessEnv): KeyStoresConfig {
  const r = new EnvReader(env);
  const applicationsTable = readTableName(r, ANALYTICS_TABLES.applications);
  const authorizationsTable = readTableName(r, ANALYTICS_TABLES.authorizations);
  r.finish();
  return Object.freeze({ applicationsTable, authorizationsTable });
}
