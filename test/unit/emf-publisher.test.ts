/**
 * The EMF publisher against a real loopback HTTP server standing in for CloudWatch Logs: the real SDK
 * client (JSON 1.1 protocol, SigV4) sends to it, so the test sees the requests CloudWatch would get.
 */
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { emfEnvironment, loadEmfConfig, type EmfConfig } from '../../cluster/shared/emf-config.js';
import { EMF_FORMAT_HEADER, EmfPublisher, emfDocument } from '../../cluster/shared/emf-publisher.js';
import { EnvironmentError } from '../../contracts/env/reader.js';
import {
  emfMessagesOf as messagesOf,
  SECRET_ACCESS_KEY,
  startFakeLogs,
} from '../support/fake-cloudwatch-logs.js';

const CONFIG: EmfConfig = {
  logGroup: '/gco/eu-west-1/platform-metrics',
  project: 'gco',
  region: 'eu-west-1',
  intervalMs: 60_000,
};

function memoryLogger() {
  const lines: { obj: object; msg: string }[] = [];
  return { lines, warn: (obj: object, msg: string) => lines.push({ obj, msg }) };
}

describe('emfDocument', () => {
  test('namespace, Project/Region dimension set, metric directives and values as root members', () => {
    const doc = emfDocument(
      1_700_000_000_000,
      { Project: 'gco', Region: 'us-east-1' },
      {
        queueDepth: 4,
        oldestQueuedJobAge: 125,
      },
    );
    expect(doc).toEqual({
      _aws: {
        Timestamp: 1_700_000_000_000,
        CloudWatchMetrics: [
          {
            Namespace: 'GCO/Platform',
            Dimensions: [['Project', 'Region']],
            Metrics: [
              { Name: 'QueueDepth', Unit: 'Count' },
              { Name: 'OldestQueuedJobAgeSeconds', Unit: 'Seconds' },
            ],
          },
        ],
      },
      Project: 'gco',
      Region: 'us-east-1',
      QueueDepth: 4,
      OldestQueuedJobAgeSeconds: 125,
    });
  });

  test('a certificate metric adds the Certificate dimension; non-finite values are left out', () => {
    const doc = emfDocument(
      1,
      { Project: 'p', Region: 'r', Certificate: 'services' },
      { certificateDaysToExpiry: 41, queueDepth: Number.NaN },
    );
    expect(doc._aws.CloudWatchMetrics[0]).toEqual({
      Namespace: 'GCO/Platform',
      Dimensions: [['Project', 'Region', 'Certificate']],
      Metrics: [{ Name: 'InternalCertificateDaysToExpiry', Unit: 'Count' }],
    });
    expect(doc).toMatchObject({ Certificate: 'services', InternalCertificateDaysToExpiry: 41 });
    expect(doc).not.toHaveProperty('QueueDepth');
  });
});

describe('EmfPublisher against a loopback CloudWatch Logs', () => {
  let fake: Awaited<ReturnType<typeof startFakeLogs>>;
  afterEach(async () => {
    await fake.close();
  });

  test('one PutLogEvents per flush with the json/emf header; the stream is created once', async () => {
    fake = await startFakeLogs();
    let clock = 1_000;
    const publisher = new EmfPublisher({
      config: CONFIG,
      streamName: 'manifest-processor-abc-1a2b3c',
      client: fake.client,
      now: () => clock,
    });
    expect(publisher.enabled).toBe(true);
    publisher.publish({ queueDepth: 2, oldestQueuedJobAge: 30 });
    clock = 2_000;
    publisher.publish({ webhookDeliveriesSucceeded: 5, webhookDeliveriesFailed: 1 });
    expect(publisher.buffered).toBe(2);
    expect(fake.received).toHaveLength(0); // publishing only buffers

    await expect(publisher.flush()).resolves.toBe(true);
    expect(fake.targets()).toEqual(['CreateLogStream', 'PutLogEvents']);
    const [create, put] = fake.received;
    expect(create?.body).toEqual({
      logGroupName: CONFIG.logGroup,
      logStreamName: 'manifest-processor-abc-1a2b3c',
    });
    expect(create?.headers[EMF_FORMAT_HEADER]).toBeUndefined();
    expect(put?.headers[EMF_FORMAT_HEADER]).toBe('json/emf');
    // Signed like any SDK request: the header is part of what SigV4 covers.
    expect(put?.headers.authorization).toContain(EMF_FORMAT_HEADER);
    expect(put?.body).toMatchObject({
      logGroupName: CONFIG.logGroup,
      logStreamName: 'manifest-processor-abc-1a2b3c',
    });
    expect((put?.body.logEvents as { timestamp: number }[]).map((e) => e.timestamp)).toEqual([1_000, 2_000]);
    expect(messagesOf(put!)).toEqual([
      emfDocument(1_000, { Project: 'gco', Region: 'eu-west-1' }, { queueDepth: 2, oldestQueuedJobAge: 30 }),
      emfDocument(
        2_000,
        { Project: 'gco', Region: 'eu-west-1' },
        { webhookDeliveriesSucceeded: 5, webhookDeliveriesFailed: 1 },
      ),
    ]);
    expect(publisher.buffered).toBe(0);

    // An empty buffer sends nothing; the next documents go without a second CreateLogStream.
    await expect(publisher.flush()).resolves.toBe(true);
    expect(fake.received).toHaveLength(2);
    publisher.publish({ costReportsWritten: 1, costReportFailures: 0 }, undefined);
    await publisher.flush();
    expect(fake.targets()).toEqual(['CreateLogStream', 'PutLogEvents', 'PutLogEvents']);
  });

  test('a stream that exists already is fine (ResourceAlreadyExistsException)', async () => {
    fake = await startFakeLogs((target) =>
      target === 'CreateLogStream'
        ? { status: 400, error: 'ResourceAlreadyExistsException' }
        : { status: 200 },
    );
    const publisher = new EmfPublisher({ config: CONFIG, streamName: 's', client: fake.client });
    publisher.publish({ webhookOutboxDepth: 0 });
    await expect(publisher.flush()).resolves.toBe(true);
    expect(fake.targets()).toEqual(['CreateLogStream', 'PutLogEvents']);
  });

  test('a failed flush is logged (bounded, no credentials), keeps its documents and never throws', async () => {
    let failing = true;
    fake = await startFakeLogs((target) =>
      failing && target === 'PutLogEvents'
        ? { status: 400, error: 'AccessDeniedException' }
        : { status: 200 },
    );
    const logger = memoryLogger();
    const publisher = new EmfPublisher({ config: CONFIG, streamName: 's', client: fake.client, logger });
    publisher.publish({ queueDepth: 1 });
    await expect(publisher.flush()).resolves.toBe(false);
    expect(publisher.buffered).toBe(1);
    expect(logger.lines).toHaveLength(1);
    const line = JSON.stringify(logger.lines[0]);
    expect(line).toContain('AccessDeniedException');
    expect(line).not.toContain(SECRET_ACCESS_KEY);
    expect(line).not.toContain('AKIDTEST');
    expect(line.length).toBeLessThan(600);

    failing = false;
    publisher.publish({ queueDepth: 2 });
    await expect(publisher.flush()).resolves.toBe(true);
    const last = fake.received[fake.received.length - 1]!;
    expect(messagesOf(last)).toMatchObject([{ QueueDepth: 1 }, { QueueDepth: 2 }]);
    // The stream was created by the first (failed) flush and not again.
    expect(fake.targets().filter((t) => t === 'CreateLogStream')).toHaveLength(1);
  });

  test('a deleted stream is created again on the next flush', async () => {
    let deleted = true;
    fake = await startFakeLogs((target) => {
      if (target === 'PutLogEvents' && deleted) {
        deleted = false;
        return { status: 400, error: 'ResourceNotFoundException' };
      }
      return { status: 200 };
    });
    const publisher = new EmfPublisher({ config: CONFIG, streamName: 's', client: fake.client });
    publisher.publish({ queueDepth: 1 });
    await publisher.flush();
    publisher.publish({ queueDepth: 1 });
    await expect(publisher.flush()).resolves.toBe(true);
    expect(fake.targets()).toEqual(['CreateLogStream', 'PutLogEvents', 'CreateLogStream', 'PutLogEvents']);
  });

  test('an unreachable endpoint fails the flush, not the caller', async () => {
    fake = await startFakeLogs();
    const logger = memoryLogger();
    const unreachable = new CloudWatchLogsClient({
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:1',
      credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: SECRET_ACCESS_KEY },
      maxAttempts: 1,
    });
    const publisher = new EmfPublisher({ config: CONFIG, streamName: 's', client: unreachable, logger });
    publisher.publish({ queueDepth: 1 });
    await expect(publisher.flush()).resolves.toBe(false);
    expect(logger.lines[0]?.msg).toContain('not published');
    unreachable.destroy();
  });

  test('the buffer is bounded: the oldest documents go first, with one warning', async () => {
    fake = await startFakeLogs();
    const logger = memoryLogger();
    const publisher = new EmfPublisher({
      config: CONFIG,
      streamName: 's',
      client: fake.client,
      maxBuffered: 3,
      logger,
    });
    for (let i = 1; i <= 6; i++) publisher.publish({ queueDepth: i });
    expect(publisher.buffered).toBe(3);
    expect(logger.lines).toHaveLength(1);
    await publisher.flush();
    expect(messagesOf(fake.received[1]!)).toMatchObject([
      { QueueDepth: 4 },
      { QueueDepth: 5 },
      { QueueDepth: 6 },
    ]);
  });

  test('start() runs the flush loop; stop() sends what is left', async () => {
    fake = await startFakeLogs();
    const publisher = new EmfPublisher({
      config: { ...CONFIG, intervalMs: 1_000 },
      streamName: 's',
      client: fake.client,
    });
    publisher.start();
    publisher.publish({ queueDepth: 7 });
    await publisher.stop();
    const puts = fake.received.filter((r) => r.target === 'PutLogEvents');
    expect(puts).toHaveLength(1);
    expect(messagesOf(puts[0]!)).toMatchObject([{ QueueDepth: 7 }]);
  });

  test('without METRICS_LOG_GROUP nothing is buffered or sent', async () => {
    fake = await startFakeLogs();
    const publisher = new EmfPublisher({
      config: { ...CONFIG, logGroup: undefined },
      streamName: 's',
      client: fake.client,
    });
    expect(publisher.enabled).toBe(false);
    publisher.start();
    publisher.publish({ queueDepth: 1 });
    expect(publisher.buffered).toBe(0);
    await expect(publisher.flush()).resolves.toBe(true);
    await publisher.stop();
    expect(fake.received).toHaveLength(0);
  });
});

describe('platform-metrics environment contract', () => {
  test('round-trips every setting', () => {
    expect(loadEmfConfig(emfEnvironment(CONFIG))).toEqual(CONFIG);
  });

  test('unset: publishing off, 60 s interval, region from AWS_REGION', () => {
    expect(loadEmfConfig({ AWS_REGION: 'ap-south-1' })).toEqual({
      logGroup: undefined,
      project: 'local',
      region: 'ap-south-1',
      intervalMs: 60_000,
    });
  });

  test('publishing needs PROJECT_NAME; the interval is validated', () => {
    let problems: readonly string[] = [];
    try {
      loadEmfConfig({ METRICS_LOG_GROUP: '/gco/x/platform-metrics', METRICS_INTERVAL_MS: '10' });
    } catch (error) {
      if (error instanceof EnvironmentError) problems = error.problems;
    }
    expect(problems).toEqual([
      'PROJECT_NAME: required (the Project dimension of the published metrics)',
      expect.stringContaining('METRICS_INTERVAL_MS'),
    ]);
  });
});
