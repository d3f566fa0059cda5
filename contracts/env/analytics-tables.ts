/**
 * Variables the analytics handlers share (docs/analytics-api.md, "Environment"): the table names (named
 * by ANALYTICS_TABLES) and the events stream. Each handler's contract module reads its own set with one
 * EnvReader, so every problem is reported at once naming the variable.
 */
import type { TableDefinition } from '../tables.js';
import type { EnvReader } from './reader.js';

export const EVENTS_STREAM_ENV = 'EVENTS_STREAM_NAME';

export function readTableName(r: EnvReader, table: TableDefinition): string {
  return r.required(table.envVar, `name of the ${table.id} table`) ?? '';
}

// Kinesis stream names: 1–128 of [a-zA-Z0-9_.-].
const STREAM_NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/;

export function readEventsStreamName(r: EnvReader): string {
  const name = r.required(EVENTS_STREAM_ENV, 'Kinesis Data Stream of the events') ?? '';
  if (name !== '' && !STREAM_NAME_RE.test(name)) {
    r.problem(`${EVENTS_STREAM_ENV}: expected a Kinesis stream name, got ${JSON.stringify(name)}`);
  }
  return name;
}
