/**
 * Resources of the game-analytics ingestion API (docs/analytics-api.md), declared ONCE: the analytics
 * stack creates them, the handlers read their names from the environment variables named here (each
 * handler's contract module writes and reads them), and tests/`npm start` create the same tables in
 * dynalite and the same stream in kinesalite.
 */
import { generationSuffix } from './tables.js';
import type { TableDefinition } from './tables.js';

const S = (name: string) => ({ name, type: 'S' as const });

export const ANALYTICS_TABLES = {
  applications: {
    id: 'analytics-applications',
    envVar: 'APPLICATIONS_TABLE',
    scope: 'analytics',
    description: 'Registered game applications by ApplicationId',
    partitionKey: S('ApplicationId'),
    indexes: [],
  },
  authorizations: {
    id: 'analytics-authorizations',
    envVar: 'AUTHORIZATIONS_TABLE',
    scope: 'analytics',
    description: 'API keys per application; the key itself is stored only as its SHA-256 hash',
    partitionKey: S('ApplicationId'),
    sortKey: S('ApiKeyId'),
    // The authorizer finds a key by the hash of the presented value, never by the value.
    indexes: [{ indexName: 'key-hash-index', partitionKey: S('ApiKeyHash') }],
  },
  idempotency: {
    id: 'analytics-idempotency',
    envVar: 'IDEMPOTENCY_TABLE',
    scope: 'analytics',
    description: 'Powertools idempotency records of event batches (application + batch hash)',
    // Attribute names of @aws-lambda-powertools/idempotency's DynamoDBPersistenceLayer defaults.
    partitionKey: S('id'),
    indexes: [],
    ttlAttribute: 'expiration',
  },
} as const satisfies Record<string, TableDefinition>;

/**
 * Physical names: `<project>-<id>` like the platform tables; the stream `<project>-analytics-events`,
 * both with `-g<N>` from resource generation 2 on (retained under removal_policy "retain").
 */
export function analyticsStreamName(project: string, generation = 1): string {
  return `${project}-analytics-events${generationSuffix(generation)}`;
}
