/**
 * The warehouse objects over the events stream (Redshift streaming ingestion), in creation order. Each
 * statement is safe to run again: the external schema has IF NOT EXISTS, the derived view is CREATE OR
 * REPLACE, and Redshift has no IF NOT EXISTS for materialized views, so "already exists" counts as done
 * for the raw view (which also covers two setups racing).
 *
 * - `analytics_stream`: external schema mapping the account's Kinesis streams (read with the given role);
 * - `public.analytics_events_raw`: streaming materialized view, AUTO REFRESH, one row per stream record
 *   with the record parsed into `payload` (SUPER); records that are not JSON are skipped;
 * - `public.analytics_events`: typed columns of the record shape (docs/analytics-api.md) with duplicates
 *   removed: a record written twice (a client retry after a lost answer) appears once, the first arrival.
 */
import { isRoleArn } from '../../contracts/env/analytics-warehouse-setup.js';

const EXTERNAL_SCHEMA = 'analytics_stream';
const RAW_VIEW = 'public.analytics_events_raw';
const EVENTS_VIEW = 'public.analytics_events';

export interface SetupStatement {
  /** Step name for messages and logs. */
  readonly name: string;
  readonly sql: string;
  /** A failure saying the object already exists means this step is done. */
  readonly alreadyExistsIsDone: boolean;
}

// Values end up inside SQL literals/identifiers (DDL takes no bind parameters): accept only these shapes.
const STREAM_NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/;

export function setupStatements(streamName: string, streamRoleArn: string): SetupStatement[] {
  if (!STREAM_NAME_RE.test(streamName)) throw new Error(`invalid stream name ${JSON.stringify(streamName)}`);
  if (!isRoleArn(streamRoleArn)) throw new Error(`invalid IAM role ARN ${JSON.stringify(streamRoleArn)}`);
  const ms = (path: string) => `TIMESTAMP 'epoch' + (CAST(${path} AS BIGINT) / 1000.0) * INTERVAL '1 second'`;
  return [
    {
      name: 'external schema',
      sql: `CREATE EXTERNAL SCHEMA IF NOT EXISTS ${EXTERNAL_SCHEMA} FROM KINESIS IAM_ROLE '${streamRoleArn}'`,
      alreadyExistsIsDone: false,
    },
    {
      name: 'raw events materialized view',
      sql: [
        `CREATE MATERIALIZED VIEW ${RAW_VIEW} AUTO REFRESH YES AS`,
        'SELECT approximate_arrival_timestamp, partition_key, shard_id, sequence_number, refresh_time,',
        '  JSON_PARSE(kinesis_data) AS payload',
        `FROM ${EXTERNAL_SCHEMA}."${streamName}"`,
        'WHERE CAN_JSON_PARSE(kinesis_data)',
      ].join('\n'),
      alreadyExistsIsDone: true,
    },
    {
      name: 'events view',
      sql: [
        `CREATE OR REPLACE VIEW ${EVENTS_VIEW} AS`,
        'SELECT application_id, event_id, event_type, event_name, event_timestamp, event_version, app_version,',
        '  event_data, received_at, arrival_timestamp',
        'FROM (',
        '  SELECT *, ROW_NUMBER() OVER (PARTITION BY application_id, event_id ORDER BY arrival_timestamp) AS copy',
        '  FROM (',
        '    SELECT CAST(payload.application_id AS VARCHAR(36)) AS application_id,',
        '      CAST(payload.event_id AS VARCHAR(36)) AS event_id,',
        '      CAST(payload.event_type AS VARCHAR(256)) AS event_type,',
        '      CAST(payload.event_name AS VARCHAR(256)) AS event_name,',
        `      ${ms('payload.event_timestamp')} AS event_timestamp,`,
        '      CAST(payload.event_version AS VARCHAR(64)) AS event_version,',
        '      CAST(payload.app_version AS VARCHAR(64)) AS app_version,',
        '      payload.event_data AS event_data,',
        `      ${ms('payload.received_at')} AS received_at,`,
        '      approximate_arrival_timestamp AS arrival_timestamp',
        `    FROM ${RAW_VIEW}`,
        '  ) typed',
        ') numbered',
        'WHERE copy = 1',
      ].join('\n'),
      alreadyExistsIsDone: false,
    },
  ];
}
