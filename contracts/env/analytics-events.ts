/**
 * The events handler's environment contract (docs/analytics-api.md, "Environment"): `eventsEnvironment`
 * writes it (the analytics stack, the local platform), `readEventsConfig` reads it.
 */
import { ANALYTICS_TABLES } from '../analytics-resources.js';
import { EnvReader, envVariables } from './reader.js';
import { EVENTS_STREAM_ENV, readEventsStreamName, readTableName } from './analytics-tables.js';

export const DEFAULT_IDEMPOTENCY_TTL_SECONDS = 3600;

export interface EventsConfig {
  readonly applicationsTable: string;
  readonly idempotencyTable: string;
  readonly streamName: string;
  /** How long a batch is recognised as a repeat (60 s – 7 days). */
  readonly idempotencyTtlSeconds: number;
}

/** What a writer sets; a value left out takes the reader's default. */
export type EventsEnvironment = Omit<EventsConfig, 'idempotencyTtlSeconds'> &
  Partial<Pick<EventsConfig, 'idempotencyTtlSeconds'>>;

export function eventsEnvironment(settings: EventsEnvironment): Record<string, string> {
  return envVariables({
    [ANALYTICS_TABLES.applications.envVar]: settings.applicationsTable,
    [ANALYTICS_TABLES.idempotency.envVar]: settings.idempotencyTable,
    [EVENTS_STREAM_ENV]: settings.streamName,
    IDEMPOTENCY_TTL_SECONDS: settings.idempotencyTtlSeconds,
  });
}

/** Reads and validates the environment; throws an EnvironmentError listing every problem. */
export function readEventsConfig(env: NodeJS.ProcessEnv): EventsConfig {
  const r = new EnvReader(env);
  const applicationsTable = readTableName(r, ANALYTICS_TABLES.applications);
  const idempotencyTable = readTableName(r, ANALYTICS_TABLES.idempotency);
  const streamName = readEventsStreamName(r);
  const idempotencyTtlSeconds = r.integer('IDEMPOTENCY_TTL_SECONDS', DEFAULT_IDEMPOTENCY_TTL_SECONDS, {
    min: 60,
    max: 604_800,
  });
  r.finish();
  return Object.freeze({ applicationsTable, idempotencyTable, streamName, idempotencyTtlSeconds });
}
