/**
 * The warehouse setup handler against a mocked Redshift Data API (there is no local Redshift): the SQL
 * it sends, in order, and each outcome (not configured, finished, already existing view, still running,
 * failed, aborted, refused by the API).
 */
import {
  DescribeStatementCommand,
  ExecuteStatementCommand,
  RedshiftDataClient,
  ValidationException,
} from '@aws-sdk/client-redshift-data';
import { beforeEach, describe, expect, test } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import {
  createHandler,
  createHandlerFromEnv,
  type SetupHandler,
  type WarehouseConfig,
} from '../../../lambda/analytics-warehouse-setup/index.js';
import { silentServiceLogger } from '../../../cluster/shared/logger.js';

const ROLE = 'arn:aws:iam::111122223333:role/gco-redshift-stream';
const WAREHOUSE: WarehouseConfig = {
  workgroupName: 'gco-analytics',
  database: 'games',
  streamRoleArn: ROLE,
  streamName: 'gco-analytics-events',
};
const CONTEXT = { awsRequestId: 'test', getRemainingTimeInMillis: () => 29_000 };
const redshift = mockClient(RedshiftDataClient);

function handler(opts: { warehouse?: WarehouseConfig | undefined; waitMs?: number } = {}): SetupHandler {
  return createHandler({
    redshiftData: new RedshiftDataClient({ region: 'us-east-2' }),
    warehouse: 'warehouse' in opts ? opts.warehouse : WAREHOUSE,
    waitMs: opts.waitMs ?? 5_000,
    pollMs: 5,
    logger: silentServiceLogger(),
  });
}

async function call(h: SetupHandler, resource = '/redshift/setup', method = 'POST') {
  const res = await h({ httpMethod: method, resource }, CONTEXT);
  return { statusCode: res.statusCode, body: JSON.parse(res.body) as Record<string, unknown> };
}

const executed = () => redshift.commandCalls(ExecuteStatementCommand).map((c) => c.args[0].input);

/** Statement ids s1, s2, …; DescribeStatement answers from `statuses` by id (FINISHED by default). */
function redshiftAnswers(statuses: Record<string, { Status: string; Error?: string }[]> = {}) {
  let n = 0;
  redshift.on(ExecuteStatementCommand).callsFake(() => ({ Id: `s${++n}` }));
  redshift.on(DescribeStatementCommand).callsFake((input: { Id: string }) => {
    const queue = statuses[input.Id];
    const next = queue && queue.length > 1 ? queue.shift() : queue?.[0];
    return { Id: input.Id, ...(next ?? { Status: 'FINISHED' }) };
  });
}

beforeEach(() => {
  redshift.reset();
});

test('no warehouse configured → 400 saying so; Redshift is not called', async () => {
  const res = await call(handler({ warehouse: undefined }));
  expect(res.statusCode).toBe(400);
  expect(res.body).toEqual({ message: expect.stringMatching(/not configured/) });
  expect(redshift.calls()).toHaveLength(0);
});

test('creates the external schema, the streaming view and the events view, in order → 200 {}', async () => {
  redshiftAnswers({ s2: [{ Status: 'SUBMITTED' }, { Status: 'STARTED' }, { Status: 'FINISHED' }] });
  const res = await call(handler());
  expect(res).toEqual({ statusCode: 200, body: {} });
  const sent = executed();
  expect(sent.map((s) => [s.WorkgroupName, s.Database])).toEqual([
    ['gco-analytics', 'games'],
    ['gco-analytics', 'games'],
    ['gco-analytics', 'games'],
  ]);
  const [schema, raw, view] = sent.map((s) => s.Sql ?? '');
  expect(schema).toBe(
    `CREATE EXTERNAL SCHEMA IF NOT EXISTS analytics_stream FROM KINESIS IAM_ROLE 'arn:aws:iam::111122223333:role/gco-redshift-stream'`,
  );
  expect(raw).toMatch(/^CREATE MATERIALIZED VIEW public\.analytics_events_raw AUTO REFRESH YES AS\n/);
  expect(raw).toContain('JSON_PARSE(kinesis_data) AS payload');
  expect(raw).toContain('FROM analytics_stream."gco-analytics-events"');
  expect(raw).toContain('WHERE CAN_JSON_PARSE(kinesis_data)');
  expect(view).toMatch(/^CREATE OR REPLACE VIEW public\.analytics_events AS\n/);
  expect(view).toContain('FROM public.analytics_events_raw');
  expect(view).toContain(
    'ROW_NUMBER() OVER (PARTITION BY application_id, event_id ORDER BY arrival_timestamp)',
  );
  for (const column of [
    'application_id',
    'event_id',
    'event_type',
    'event_name',
    'event_timestamp',
    'received_at',
  ]) {
    expect(view).toContain(`payload.${column}`);
  }
  // Polled until each statement finished (s2 three times).
  expect(redshift.commandCalls(DescribeStatementCommand).map((c) => c.args[0].input.Id)).toEqual([
    's1',
    's2',
    's2',
    's2',
    's3',
  ]);
});

test('the same path under /applications reaches the same setup; repeating it is harmless', async () => {
  redshiftAnswers({
    s5: [{ Status: 'FAILED', Error: 'ERROR: relation "analytics_events_raw" already exists' }],
  });
  expect(await call(handler(), '/applications/redshift/setup')).toEqual({ statusCode: 200, body: {} });
  // Second run: the materialized view exists already (Redshift has no IF NOT EXISTS for it): still done.
  expect(await call(handler())).toEqual({ statusCode: 200, body: {} });
  const sqls = executed().map((s) => s.Sql);
  expect(sqls.slice(3)).toEqual(sqls.slice(0, 3));
});

test('a statement still running when the wait is over → 202 with its id; later steps are not started', async () => {
  redshiftAnswers({ s2: [{ Status: 'STARTED' }] });
  const res = await call(handler({ waitMs: 100 }));
  expect(res.statusCode).toBe(202);
  expect(res.body).toEqual({
    message: expect.stringMatching(/continues asynchronously.*call setup again/),
    StatementId: 's2',
  });
  expect(executed()).toHaveLength(2);
});

test('the last statement still running → 202 without asking for another call', async () => {
  redshiftAnswers({ s3: [{ Status: 'PICKED' }] });
  const res = await call(handler({ waitMs: 100 }));
  expect(res).toEqual({
    statusCode: 202,
    body: {
      message: 'Warehouse setup continues asynchronously in Redshift (events view)',
      StatementId: 's3',
    },
  });
});

describe('failures → 502 naming the step and Redshift’s error', () => {
  test('a failed statement', async () => {
    redshiftAnswers({
      s1: [{ Status: 'FAILED', Error: 'ERROR: Not authorized to get credentials of role' }],
    });
    const res = await call(handler());
    expect(res).toEqual({
      statusCode: 502,
      body: {
        message:
          'Warehouse setup failed at the external schema: ERROR: Not authorized to get credentials of role',
      },
    });
    expect(executed()).toHaveLength(1);
  });

  test('an "already exists" failure counts only for the materialized view', async () => {
    redshiftAnswers({ s3: [{ Status: 'FAILED', Error: 'ERROR: relation "x" already exists' }] });
    const res = await call(handler());
    expect(res.statusCode).toBe(502);
    expect(res.body['message']).toMatch(/^Warehouse setup failed at the events view: ERROR: relation/);
  });

  test('an aborted statement', async () => {
    redshiftAnswers({ s2: [{ Status: 'ABORTED' }] });
    expect(await call(handler())).toEqual({
      statusCode: 502,
      body: { message: 'Warehouse setup failed at the raw events materialized view: aborted' },
    });
  });

  test('a long error is shortened', async () => {
    redshiftAnswers({ s1: [{ Status: 'FAILED', Error: `ERROR: ${'x'.repeat(1000)}` }] });
    const res = await call(handler());
    expect((res.body['message'] as string).length).toBeLessThanOrEqual(301);
    expect(res.body['message']).toMatch(/…$/);
  });

  test('the Data API refusing the call (e.g. unknown workgroup)', async () => {
    redshift
      .on(ExecuteStatementCommand)
      .rejects(new ValidationException({ message: 'Workgroup gco-analytics not found', $metadata: {} }));
    const res = await call(handler());
    expect(res).toEqual({
      statusCode: 502,
      body: {
        message:
          'Warehouse setup failed at the external schema: ValidationException: Workgroup gco-analytics not found',
      },
    });
  });
});

test('only POST', async () => {
  expect((await call(handler(), '/redshift/setup', 'GET')).statusCode).toBe(405);
});

describe('configuration', () => {
  const base = { EVENTS_STREAM_NAME: 'gco-analytics-events' };

  test('no workgroup: not configured (400), whatever else is set', async () => {
    const h = createHandlerFromEnv(base, {
      redshiftData: new RedshiftDataClient({ region: 'us-east-2' }),
      logger: silentServiceLogger(),
    });
    expect((await h({ httpMethod: 'POST', resource: '/redshift/setup' }, CONTEXT)).statusCode).toBe(400);
  });

  test('a workgroup needs a valid stream role ARN; every problem is reported', () => {
    expect(() => createHandlerFromEnv({ REDSHIFT_WORKGROUP_NAME: 'wg' })).toThrow(
      /EVENTS_STREAM_NAME: required[\s\S]*REDSHIFT_STREAM_ROLE_ARN: required/,
    );
    expect(() =>
      createHandlerFromEnv({ ...base, REDSHIFT_WORKGROUP_NAME: 'wg', REDSHIFT_STREAM_ROLE_ARN: "x' OR 1=1" }),
    ).toThrow(/REDSHIFT_STREAM_ROLE_ARN: expected an IAM role ARN/);
    expect(() =>
      createHandlerFromEnv({
        ...base,
        REDSHIFT_WORKGROUP_NAME: 'wg',
        REDSHIFT_STREAM_ROLE_ARN: ROLE,
        SETUP_WAIT_MS: '60000',
      }),
    ).toThrow(/SETUP_WAIT_MS: expected a value in 1000..28000/);
  });

  test('the database defaults to dev', async () => {
    redshiftAnswers();
    const h = createHandlerFromEnv(
      { ...base, REDSHIFT_WORKGROUP_NAME: 'wg', REDSHIFT_STREAM_ROLE_ARN: ROLE },
      { redshiftData: new RedshiftDataClient({ region: 'us-east-2' }), logger: silentServiceLogger() },
    );
    expect((await h({ httpMethod: 'POST', resource: '/redshift/setup' }, CONTEXT)).statusCode).toBe(200);
    expect(executed().map((s) => [s.WorkgroupName, s.Database])[0]).toEqual(['wg', 'dev']);
  });
});
