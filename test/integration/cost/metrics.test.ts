/**
 * CostReportsWritten / CostReportFailures end to end: the scheduler's outcomes go through the real EMF
 * publisher to a loopback CloudWatch Logs, flushed when cost-monitor closes. dynalite, the local S3 and
 * the OpenCost stand-in as in the scheduler tests.
 */
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createCostMonitor } from '../../../cluster/cost-monitor/src/app.js';
import { EmfPublisher } from '../../../cluster/shared/emf-publisher.js';
import { silentServiceLogger } from '../../../cluster/shared/logger.js';
import { emfMessagesOf, startFakeLogs } from '../../support/fake-cloudwatch-logs.js';
import { startCostEnv, TestClock, type CostEnv } from './harness.js';

let env: CostEnv;
beforeAll(async () => {
  env = await startCostEnv();
});
afterAll(async () => {
  await env.close();
});

test('a written and a failed scheduled report each publish one document; nobody else publishes', async () => {
  const logs = await startFakeLogs();
  const clock = new TestClock(new Date('2024-05-01T10:07:00Z'));
  const monitor = await createCostMonitor({
    config: env.config({ region: 'metrics-1' }),
    s3: env.s3.client(),
    dynamo: env.dynamo.client(),
    clock: clock.read,
    logger: silentServiceLogger(),
    scheduler: { autoStart: false },
    metrics: new EmfPublisher({
      config: {
        logGroup: '/gco/us-east-1/platform-metrics',
        project: 'gco',
        region: 'us-east-1',
        intervalMs: 60_000,
      },
      streamName: 'cost-monitor-test',
      client: logs.client,
    }),
  });
  try {
    env.opencost.mode = 'http-error';
    expect(await monitor.scheduler.tick()).toBe('failed');
    env.opencost.mode = 'ok';
    expect(await monitor.scheduler.tick()).toBe('written');
    expect(await monitor.scheduler.tick()).toBe('up_to_date');
  } finally {
    env.opencost.mode = 'ok';
    await monitor.app.close();
  }
  // The interval never came: the documents went out with the flush on close, in one request.
  const puts = logs.received.filter((r) => r.target === 'PutLogEvents');
  expect(puts).toHaveLength(1);
  expect(puts[0]?.headers['x-amzn-logs-format']).toBe('json/emf');
  expect(emfMessagesOf(puts[0]!)).toMatchObject([
    { Project: 'gco', Region: 'us-east-1', CostReportsWritten: 0, CostReportFailures: 1 },
    { Project: 'gco', Region: 'us-east-1', CostReportsWritten: 1, CostReportFailures: 0 },
  ]);
  await logs.close();
});
