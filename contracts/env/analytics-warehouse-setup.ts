/**
 * The warehouse setup handler's environment contract (docs/analytics-api.md, "Environment"):
 * `warehouseSetupEnvironment` writes it (the analytics stack, the local platform),
 * `readWarehouseSetupConfig` reads it. Without REDSHIFT_WORKGROUP_NAME the deployment has no warehouse
 * and setup answers 400.
 */
import { EnvReader, envVariables } from './reader.js';
import { EVENTS_STREAM_ENV, readEventsStreamName } from './analytics-tables.js';

export const DEFAULT_WAIT_MS = 25_000;
const DEFAULT_DATABASE = 'dev';

export interface WarehouseSettings {
  /** Redshift Serverless workgroup the statements run in. */
  readonly workgroupName: string;
  readonly database: string;
  readonly streamRoleArn: string;
}

export interface WarehouseSetupConfig {
  readonly streamName: string;
  /** Absent: no warehouse in this deployment. */
  readonly warehouse?: WarehouseSettings;
  /** How long one call waits for the statements before answering 202. */
  readonly waitMs: number;
}

/** What a writer sets; a value left out takes the reader's default. */
export interface WarehouseSetupEnvironment {
  readonly streamName: string;
  readonly warehouse?: Omit<WarehouseSettings, 'database'> & Partial<Pick<WarehouseSettings, 'database'>>;
  readonly waitMs?: number;
}

export function warehouseSetupEnvironment(settings: WarehouseSetupEnvironment): Record<string, string> {
  const { warehouse } = settings;
  return envVariables({
    [EVENTS_STREAM_ENV]: settings.streamName,
    REDSHIFT_WORKGROUP_NAME: warehouse?.workgroupName,
    REDSHIFT_DATABASE: warehouse?.database,
    REDSHIFT_STREAM_ROLE_ARN: warehouse?.streamRoleArn,
    SETUP_WAIT_MS: settings.waitMs,
  });
}

function readWarehouse(r: EnvReader): WarehouseSettings | undefined {
  const workgroupName = r.optional('REDSHIFT_WORKGROUP_NAME');
  if (workgroupName === undefined) return undefined;
  const streamRoleArn =
    r.required('REDSHIFT_STREAM_ROLE_ARN', 'role Redshift assumes to read the stream') ?? '';
  if (streamRoleArn !== '' && !isRoleArn(streamRoleArn)) {
    r.problem(`REDSHIFT_STREAM_ROLE_ARN: expected an IAM role ARN, got ${JSON.stringify(streamRoleArn)}`);
  }
  return {
    workgroupName,
    database: r.string('REDSHIFT_DATABASE', DEFAULT_DATABASE),
    streamRoleArn,
  };
}

/** Reads and validates the environment; throws an EnvironmentError listing every problem. */
export function readWarehouseSetupConfig(env: NodeJS.ProcessEnv): WarehouseSetupConfig {
  const r = new EnvReader(env);
  const streamName = readEventsStreamName(r);
  const warehouse = readWarehouse(r);
  const waitMs = r.integer('SETUP_WAIT_MS', DEFAULT_WAIT_MS, { min: 1_000, max: 28_000 });
  r.finish();
  return Object.freeze({ streamName, ...(warehouse !== undefined ? { warehouse } : {}), waitMs });
}

// The role ARN ends up inside a SQL literal (DDL takes no bind parameters): accept only this shape.
const ROLE_ARN_RE = /^arn:aws[a-z-]*:iam::\d{12}:role\/[A-Za-z0-9+=,.@_/-]{1,512}$/;

export function isRoleArn(value: string): boolean {
  return ROLE_ARN_RE.test(value);
}
