/**
 * Environment of the analytics handlers (docs/analytics-api.md, "Environment"). Each handler reads only
 * what it needs with the edge Lambdas' EnvReader, so every problem is reported at once naming the
 * variable.
 */
import { ANALYTICS_ENV, ANALYTICS_TABLES } from '../../../lib/analytics-resources.js';
import type { TableDefinition } from '../../../lib/tables.js';
import type { EnvReader } from '../proxy-config.js';

export function tableName(r: EnvReader, table: TableDefinition): string {
  return r.required(table.envVar, `name of the ${table.id} table`) ?? '';
}

export const applicationsTable = (r: EnvReader): string => tableName(r, ANALYTICS_TABLES.applications);
export const authorizationsTable = (r: EnvReader): string => tableName(r, ANALYTICS_TABLES.authorizations);
export const idempotencyTable = (r: EnvReader): string => tableName(r, ANALYTICS_TABLES.idempotency);

// Kinesis stream names: 1–128 of [a-zA-Z0-9_.-].
const STREAM_NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/;

export function eventsStreamName(r: EnvReader): string {
  const name = r.required(ANALYTICS_ENV.eventsStream, 'Kinesis Data Stream of the events') ?? '';
  if (name !== '' && !STREAM_NAME_RE.test(name)) {
    r.problems.push(
      `${ANALYTICS_ENV.eventsStream} must be a Kinesis stream name, got ${JSON.stringify(name)}`,
    );
  }
  return name;
}
