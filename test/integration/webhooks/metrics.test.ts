/**
 * The webhook metrics against dynalite and a real HTTPS receiver: delivery outcomes counted per
 * publication (and reset after it), the outbox depth and the age of its oldest undelivered item.
 */
import {
  DeliveryStore,
  DeliveryWorker,
  WebhookMetrics,
  WebhookStore,
  type DeliveryRecord,
} from '../../../cluster/manifest-processor/src/webhooks/index.js';
import type { MetricValues } from '../../../cluster/shared/emf-publisher.js';
import { silentServiceLogger } from '../../../cluster/shared/logger.js';
import { startWebhookHarness, type WebhookHarness } from './harness.js';

function delivery(id: string, webhookId: string, createdAt: Date, now: number): DeliveryRecord {
  const at = createdAt.toISOString();
  return {
    delivery_id: id,
    webhook_id: webhookId,
    event: 'job.completed',
    job_uid: `uid-${id}`,
    job_namespace: 'svc-jobs',
    job_name: `job-${id}`,
    payload: JSON.stringify({ delivery_id: id }),
    status: 'pending',
    attempts: 0,
    version: 0,
    next_attempt_at: now,
    lease_owner: null,
    lease_expires_at: null,
    last_error: null,
    last_status_code: null,
    history: [],
    created_at: at,
    updated_at: at,
    delivered_at: null,
    expires_at: Math.floor(now / 1000) + 86_400,
  };
}

describe('webhook metrics', () => {
  let h: WebhookHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  test('outcomes per publication, outbox depth and oldest undelivered age', async () => {
    const bed = await startWebhookHarness();
    h = bed;
    const receiver = await bed.startReceiver((req) => (req.path === '/bad' ? 503 : 200));
    const client = bed.dynamo.client();
    const webhooks = new WebhookStore(client, bed.config.webhooksTable);
    const deliveries = new DeliveryStore(client, bed.config.deliveriesTable);
    const published: MetricValues[] = [];
    const now = Date.now();
    const metrics = new WebhookMetrics({
      deliveries,
      sink: { publish: (values) => published.push(values) },
      intervalMs: 60_000,
      now: () => now,
    });
    const worker = new DeliveryWorker({
      webhooks,
      deliveries,
      config: { ...bed.config, workerId: 'metrics-test' },
      ca: bed.ca.cert,
      outcomes: metrics,
      logger: silentServiceLogger(),
    });
    const ok = await webhooks.create({
      url: `${receiver.url}/ok`,
      events: ['job.completed'],
      namespace: null,
      secret: null,
    });
    const bad = await webhooks.create({
      url: `${receiver.url}/bad`,
      events: ['job.completed'],
      namespace: null,
      secret: null,
    });

    await expect(metrics.publishOnce()).resolves.toEqual({
      succeeded: 0,
      failed: 0,
      depth: 0,
      oldestAgeSeconds: 0,
    });

    // The oldest item is due last: the index orders by next attempt, not by age.
    await deliveries.enqueue(delivery('a', ok.webhook_id, new Date(now - 30_000), now - 1));
    await deliveries.enqueue(delivery('b', ok.webhook_id, new Date(now - 20_000), now - 2));
    await deliveries.enqueue(delivery('c', bad.webhook_id, new Date(now - 600_000), now));
    await expect(metrics.publishOnce()).resolves.toEqual({
      succeeded: 0,
      failed: 0,
      depth: 3,
      oldestAgeSeconds: 600,
    });

    const pass = await worker.runOnce();
    expect(pass).toMatchObject({ claimed: 3, delivered: 2, retrying: 1 });
    expect(receiver.requests).toHaveLength(3);
    // The 503 is retried later: still in the outbox, still the oldest.
    await expect(metrics.publishOnce()).resolves.toEqual({
      succeeded: 2,
      failed: 1,
      depth: 1,
      oldestAgeSeconds: 600,
    });
    // Counts start again after each publication.
    await expect(metrics.publishOnce()).resolves.toMatchObject({ succeeded: 0, failed: 0, depth: 1 });

    expect(published[2]).toEqual({
      webhookDeliveriesSucceeded: 2,
      webhookDeliveriesFailed: 1,
      webhookOutboxDepth: 1,
      oldestWebhookOutboxAge: 600,
    });
    client.destroy();
  });

  test('an unreadable outbox still publishes the counts, then fails the pass', async () => {
    const published: MetricValues[] = [];
    const metrics = new WebhookMetrics({
      deliveries: { backlog: () => Promise.reject(new Error('table unavailable')) },
      sink: { publish: (values) => published.push(values) },
      intervalMs: 60_000,
    });
    metrics.record({ claimed: 2, delivered: 1, retrying: 0, failed: 1, dead: 0, cancelled: 0 });
    await expect(metrics.publishOnce()).rejects.toThrow('table unavailable');
    expect(published).toEqual([{ webhookDeliveriesSucceeded: 1, webhookDeliveriesFailed: 1 }]);
  });
});
