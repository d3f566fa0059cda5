/**
 * QueueDepth / OldestQueuedJobAgeSeconds from dispatch-index, against dynalite with jobs queued through
 * the real routes: only the worker's region counts, the oldest job counts whatever its priority, spot-
 * gated jobs still wait, and dispatched jobs leave the backlog.
 */
import { createCentralTableFeatures } from '../../../cluster/manifest-processor/src/central-table-features.js';
import { loadQueueConfig, QueueMetrics } from '../../../cluster/manifest-processor/src/queue/index.js';
import { loadTemplateConfig } from '../../../cluster/manifest-processor/src/templates/index.js';
import { loadWebhookConfig } from '../../../cluster/manifest-processor/src/webhooks/index.js';
import { EmfPublisher, type MetricValues } from '../../../cluster/shared/emf-publisher.js';
import { silentServiceLogger } from '../../../cluster/shared/logger.js';
import { kubeConfigFor } from '../../../local/kube-api-simulator/index.js';
import { emfMessagesOf, startFakeLogs } from '../../support/fake-cloudwatch-logs.js';
import { waitFor } from '../../support/wait-for.js';
import { jobManifest, REGION, startQueueHarness, type QueueHarness } from './harness.js';

describe('central job queue: backlog metrics', () => {
  let h: QueueHarness;
  const published: MetricValues[] = [];
  const metrics = () =>
    new QueueMetrics({
      store: h.store,
      sink: { publish: (values) => published.push(values) },
      region: REGION,
      intervalMs: 60_000,
      now: () => h.clock.now(),
    });
  const queue = async (name: string, body: Record<string, unknown> = {}) => {
    const res = await h.submit({ manifest: jobManifest(name), target_region: REGION, ...body });
    expect(res.status).toBe(200);
    return res.body.job_id as string;
  };

  beforeEach(async () => {
    published.length = 0;
    h = await startQueueHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  test('an empty queue publishes depth 0 and age 0', async () => {
    await expect(metrics().publishOnce()).resolves.toEqual({ depth: 0, oldestAgeSeconds: 0 });
    expect(published).toEqual([{ queueDepth: 0, oldestQueuedJobAge: 0 }]);
  });

  test('depth counts the region only; the oldest job is found behind higher-priority ones', async () => {
    await queue('oldest-low-priority', { priority: 1 });
    h.clock.offsetMs += 300_000;
    await queue('urgent', { priority: 99 });
    await queue('other-region', { target_region: 'eu-west-1' });
    h.clock.offsetMs += 30_000;
    await queue('newest', { priority: 50 });
    h.clock.offsetMs += 10_000;

    const values = await metrics().publishOnce();
    // Created 340 s before the clock's now (1 s of slack for the wall clock between submit and read).
    expect(values.depth).toBe(3);
    expect(values.oldestAgeSeconds).toBeGreaterThanOrEqual(340);
    expect(values.oldestAgeSeconds).toBeLessThan(342);
    expect(published).toEqual([{ queueDepth: 3, oldestQueuedJobAge: values.oldestAgeSeconds }]);
  });

  test('the count follows pagination of dispatch-index to its end', async () => {
    for (let i = 0; i < 7; i++) await queue(`job-${i}`, { priority: i * 10 });
    const backlog = await h.store.backlog(REGION, 2);
    expect(backlog.depth).toBe(7);
    await expect(h.store.backlog(REGION)).resolves.toEqual(backlog);
  });

  test('dispatched jobs leave the backlog; a spot-gated job still waits', async () => {
    h.setSpotPrices('g5.xlarge', { 'us-east-1a': 2.5 });
    await queue('gated', { max_spot_price: 0.5, spot_instance_type: 'g5.xlarge' });
    await queue('plain-1');
    await queue('plain-2');
    expect((await metrics().publishOnce()).depth).toBe(3);

    const pass = await h.worker.pollOnce(5);
    expect(pass.dispatched).toHaveLength(2);
    expect(pass.waiting.map((w) => w.reason)).toHaveLength(1);
    const after = await metrics().publishOnce();
    expect(after.depth).toBe(1);
    expect(after.oldestAgeSeconds).toBeGreaterThanOrEqual(0);
  });

  test('wired into the central-table features: queue and webhook metrics are sent by close at the latest', async () => {
    await queue('here');
    const logs = await startFakeLogs();
    const publisher = new EmfPublisher({
      config: {
        logGroup: '/gco/us-east-1/platform-metrics',
        project: 'gco',
        region: REGION,
        intervalMs: 60_000,
      },
      streamName: 'manifest-processor-test',
      client: logs.client,
    });
    const env = { ...h.dynamo.env, QUEUE_REGION: REGION };
    const features = createCentralTableFeatures({
      // The continuous worker runs (it may dispatch the job meanwhile): its metrics come with it.
      queue: { ...loadQueueConfig(env), workerEnabled: true, pollIntervalMs: 60_000 },
      templates: loadTemplateConfig(env),
      webhooks: loadWebhookConfig(env),
      dynamodb: h.dynamo.client(),
      kubeConfig: kubeConfigFor(h.sim.url),
      policy: h.policy,
      source: { region: REGION, cluster: 'sim' },
      spotPrices: { currentPrice: async () => undefined },
      logger: silentServiceLogger(),
      metrics: publisher,
    });
    features.start();
    await waitFor(() => publisher.buffered >= 2);
    await features.close();
    // Everything buffered went out (the flush on close at the latest), each request with the EMF header.
    expect(publisher.buffered).toBe(0);
    const puts = logs.received.filter((r) => r.target === 'PutLogEvents');
    for (const put of puts) expect(put.headers['x-amzn-logs-format']).toBe('json/emf');
    const docs = puts.flatMap(emfMessagesOf);
    expect(docs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Region: REGION,
          QueueDepth: expect.any(Number),
          OldestQueuedJobAgeSeconds: 0,
        }),
        expect.objectContaining({ WebhookOutboxDepth: 0, WebhookDeliveriesSucceeded: 0 }),
      ]),
    );
    await logs.close();
  });
});
