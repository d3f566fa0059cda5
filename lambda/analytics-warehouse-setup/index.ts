/**
 * `POST /redshift/setup` and `POST /applications/redshift/setup`: creates the warehouse
 * objects over the events stream through the Redshift Data API (sql.ts), one statement after another,
 * polling DescribeStatement. Answers:
 * - warehouse not configured (no REDSHIFT_WORKGROUP_NAME) → 400;
 * - every step finished → 200 `{}`;
 * - a step still running when SETUP_WAIT_MS is used up → 202 with its StatementId: Redshift keeps
 *   running it; calling setup again (idempotent) completes the remaining steps;
 * - a step failed or the Data API refused → 502 naming the step with Redshift's error, shortened.
 */
import { awsClientConfig } from '../../contracts/runtime/aws-clients.js';
import { errorMessage } from '../../contracts/runtime/errors.js';
import {
  DescribeStatementCommand,
  ExecuteStatementCommand,
  RedshiftDataClient,
  type StatusString,
} from '@aws-sdk/client-redshift-data';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { answerInternalError, entryPoint } from '../shared/entry-point.js';
import { EdgeHttpError, errorResult, MESSAGES, requestFailure } from '../shared/errors.js';
import { jsonResult } from '../shared/json-result.js';
import { createLogger, type EdgeLogger } from '../shared/logger.js';
import { sleep } from '../../contracts/runtime/backoff.js';
import {
  DEFAULT_WAIT_MS,
  readWarehouseSetupConfig,
  type WarehouseSettings,
} from '../../contracts/env/analytics-warehouse-setup.js';
import { setupStatements, type SetupStatement } from './sql.js';

export const SERVICE_NAME = 'analytics-warehouse-setup';
export const NOT_CONFIGURED_MESSAGE =
  'The analytics warehouse is not configured: deploy with a Redshift Serverless workgroup to use setup';
/** Redshift error texts can be long; callers get the start. */
const MAX_ERROR_CHARS = 300;

/** The warehouse the statements run in, over the events stream. */
export interface WarehouseConfig extends WarehouseSettings {
  readonly streamName: string;
}

export type SetupEvent = Pick<APIGatewayProxyEvent, 'httpMethod' | 'resource'> & {
  requestContext?: { requestId?: string };
};
export type SetupContext = Pick<Context, 'awsRequestId'> & Partial<Pick<Context, 'getRemainingTimeInMillis'>>;
export type SetupHandler = (event: SetupEvent, context: SetupContext) => Promise<APIGatewayProxyResult>;

export interface SetupDeps {
  redshiftData: Pick<RedshiftDataClient, 'send'>;
  /** Undefined: no warehouse in this deployment. */
  warehouse: WarehouseConfig | undefined;
  waitMs?: number;
  /** First DescribeStatement poll interval; doubles up to 1 s. */
  pollMs?: number;
  logger?: EdgeLogger;
}

const RUNNING: ReadonlySet<string> = new Set<StatusString>(['SUBMITTED', 'PICKED', 'STARTED']);

const shorten = (text: string) =>
  text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;

type StepOutcome = { state: 'done' } | { state: 'running'; statementId: string };

/** What the setup needs: the handler's dependencies with their defaults filled in. */
interface SetupRun {
  readonly redshiftData: Pick<RedshiftDataClient, 'send'>;
  readonly warehouse: WarehouseConfig | undefined;
  readonly waitMs: number;
  readonly firstPollMs: number;
  readonly logger: EdgeLogger;
}

export function createHandler(deps: SetupDeps): SetupHandler {
  const run: SetupRun = {
    redshiftData: deps.redshiftData,
    warehouse: deps.warehouse,
    waitMs: deps.waitMs ?? DEFAULT_WAIT_MS,
    firstPollMs: deps.pollMs ?? 250,
    logger: deps.logger ?? createLogger(SERVICE_NAME),
  };
  return (event, context) => setup(run, event, context);
}

async function setup(
  run: SetupRun,
  event: SetupEvent,
  context: SetupContext,
): Promise<APIGatewayProxyResult> {
  const started = Date.now();
  const remaining = context.getRemainingTimeInMillis?.() ?? Infinity;
  const deadline = started + Math.min(run.waitMs, remaining - 1_500);
  const log = { request_id: event.requestContext?.requestId, resource: event.resource };
  const { logger } = run;
  try {
    if (event.httpMethod !== 'POST')
      throw new EdgeHttpError(405, MESSAGES.methodNotAllowed, 'method_not_allowed');
    const warehouse = run.warehouse;
    if (warehouse === undefined) throw new EdgeHttpError(400, NOT_CONFIGURED_MESSAGE, 'not_configured');
    const steps = setupStatements(warehouse.streamName, warehouse.streamRoleArn);
    for (const [i, step] of steps.entries()) {
      const outcome = await runStep(run, warehouse, step, deadline);
      if (outcome.state === 'running') {
        const last = i === steps.length - 1;
        logger.info({ ...log, step: step.name, status: 202 }, 'warehouse setup continues');
        return jsonResult(202, {
          message: last
            ? `Warehouse setup continues asynchronously in Redshift (${step.name})`
            : `Warehouse setup continues asynchronously in Redshift (${step.name}); call setup again once it has finished to complete the remaining steps`,
          StatementId: outcome.statementId,
        });
      }
      logger.info({ ...log, step: step.name }, 'warehouse setup step done');
    }
    logger.info({ ...log, status: 200, duration_ms: Date.now() - started }, 'warehouse setup finished');
    return jsonResult(200, {});
  } catch (error) {
    return errorResult(requestFailure(error, { logger, label: 'warehouse setup', started, fields: log }));
  }
}

/** Runs one statement and polls it until it ends or `deadline` comes (then it is left running). */
async function runStep(
  run: SetupRun,
  warehouse: WarehouseConfig,
  step: SetupStatement,
  deadline: number,
): Promise<StepOutcome> {
  let statementId: string | undefined;
  try {
    const started = await run.redshiftData.send(
      new ExecuteStatementCommand({
        WorkgroupName: warehouse.workgroupName,
        Database: warehouse.database,
        Sql: step.sql,
        StatementName: `analytics-setup: ${step.name}`,
      }),
    );
    statementId = started.Id;
    if (statementId === undefined) throw new Error('ExecuteStatement returned no statement id');
    for (let poll = run.firstPollMs; ; poll = Math.min(1_000, poll * 2)) {
      const { Status, Error: failure } = await run.redshiftData.send(
        new DescribeStatementCommand({ Id: statementId }),
      );
      if (statementDone(step, Status, failure)) return { state: 'done' };
      if (Date.now() + poll > deadline) return { state: 'running', statementId };
      await sleep(poll);
    }
  } catch (error) {
    if (error instanceof EdgeHttpError) throw error;
    const name = error instanceof Error ? error.name : 'Error';
    const message = errorMessage(error);
    throw new EdgeHttpError(
      502,
      shorten(`Warehouse setup failed at the ${step.name}: ${name}: ${message}`),
      'data_api_error',
      {},
      { cause: error },
    );
  }
}

/**
 * True once the statement has finished (a step that may find its object already there counts that
 * failure as done), false while it still runs; throws when it failed or its status is unknown.
 */
function statementDone(
  step: SetupStatement,
  status: StatusString | undefined,
  failure: string | undefined,
): boolean {
  if (status === 'FINISHED') return true;
  if (status === 'FAILED' && step.alreadyExistsIsDone && /already exists/i.test(failure ?? '')) return true;
  if (status === 'FAILED' || status === 'ABORTED') {
    throw new EdgeHttpError(
      502,
      shorten(`Warehouse setup failed at the ${step.name}: ${failure ?? status.toLowerCase()}`),
      'statement_failed',
    );
  }
  if (!RUNNING.has(status ?? '')) {
    throw new EdgeHttpError(
      502,
      `Warehouse setup: unexpected statement status ${status}`,
      'statement_status',
    );
  }
  return false;
}

export interface SetupFromEnvOptions {
  redshiftData?: RedshiftDataClient;
  logger?: EdgeLogger;
}

export function createHandlerFromEnv(
  env: NodeJS.ProcessEnv = process.env,
  options: SetupFromEnvOptions = {},
): SetupHandler {
  const config = readWarehouseSetupConfig(env);
  return createHandler({
    redshiftData:
      options.redshiftData ??
      new RedshiftDataClient(awsClientConfig({ component: 'analytics-warehouse-setup' })),
    warehouse: config.warehouse && { ...config.warehouse, streamName: config.streamName },
    waitMs: config.waitMs,
    ...(options.logger ? { logger: options.logger } : {}),
  });
}

const logger = createLogger(SERVICE_NAME);

/** Lambda entry point (lambda/shared/entry-point.ts). */
export const handler = entryPoint(logger, createHandlerFromEnv, answerInternalError);
