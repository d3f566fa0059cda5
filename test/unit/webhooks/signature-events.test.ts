import { createHmac } from 'node:crypto';
import type { V1Job } from '@kubernetes/client-node';
import {
  backoffMs,
  checkWebhookConfig,
  deliveryId,
  deriveJobEvents,
  isRetryableStatus,
  jobPayload,
  loadWebhookConfig,
  signatureHeader,
  verifySignature,
} from '../../../cluster/manifest-processor/src/webhooks/index.js';

describe('webhook signatures', () => {
  const secret = 'receiver-secret-0123456789';
  const body = '{"event":"job.completed"}';

  test('t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>', () => {
    const now = 1_700_000_000_123;
    const header = signatureHeader(secret, body, now);
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(header).toBe(`t=1700000000,v1=${expected}`);
    expect(verifySignature(secret, header, body, { now })).toBe(true);
  });

  test('tampering, a wrong secret, a stale timestamp or a malformed header fail verification', () => {
    const now = Date.now();
    const header = signatureHeader(secret, body, now);
    expect(verifySignature(secret, header, `${body} `, { now })).toBe(false);
    expect(verifySignature('another-secret-0123456789', header, body, { now })).toBe(false);
    expect(verifySignature(secret, header, body, { now: now + 301_000 })).toBe(false);
    expect(verifySignature(secret, header, body, { now: now + 299_000 })).toBe(true);
    expect(verifySignature(secret, undefined, body)).toBe(false);
    expect(verifySignature(secret, 'v1=abc', body)).toBe(false);
    expect(verifySignature(secret, header.replace(/^t=\d+/, 't=1'), body, { now })).toBe(false);
  });
});

describe('job events', () => {
  const t0 = Date.parse('2025-01-01T00:00:00Z');
  const job = (status: V1Job['status'], extra: Partial<V1Job> = {}): V1Job => ({
    metadata: { name: 'j', namespace: 'svc-jobs', uid: 'u-1', creationTimestamp: new Date(t0) },
    ...extra,
    status,
  });
  const cond = (type: string, at: number) => ({
    type,
    status: 'True',
    lastTransitionTime: new Date(at),
    reason: type === 'Failed' ? 'BackoffLimitExceeded' : 'CompletionsReached',
    message: 'm',
  });

  test.each([
    ['not started yet', {}, []],
    ['suspended (no startTime)', { active: 0 }, []],
    ['started, pods pending', { startTime: new Date(t0 + 1000), active: 1 }, ['job.started']],
    ['running', { startTime: new Date(t0 + 1000), active: 1, ready: 1 }, ['job.started']],
    [
      'completed',
      {
        startTime: new Date(t0 + 1000),
        completionTime: new Date(t0 + 5000),
        conditions: [cond('Complete', t0 + 5000)],
      },
      ['job.started', 'job.completed'],
    ],
    ['failed before any pod ran', { conditions: [cond('Failed', t0 + 7000)] }, ['job.started', 'job.failed']],
  ])('%s', (_name, status, events) => {
    expect(deriveJobEvents(job(status as V1Job['status']), t0 + 10_000).map((e) => e.event)).toEqual(events);
  });

  test('event times come from the job; the payload describes the job', () => {
    const done = job({
      startTime: new Date(t0 + 1000),
      completionTime: new Date(t0 + 5000),
      succeeded: 1,
      conditions: [cond('Complete', t0 + 5000)],
    });
    expect(deriveJobEvents(done, 0)).toEqual([
      { event: 'job.started', at: t0 + 1000 },
      { event: 'job.completed', at: t0 + 5000 },
    ]);
    expect(jobPayload(done, { region: 'us-east-1', cluster: 'c' })).toMatchObject({
      namespace: 'svc-jobs',
      name: 'j',
      uid: 'u-1',
      status: 'succeeded',
      started_at: '2025-01-01T00:00:01.000Z',
      completed_at: '2025-01-01T00:00:05.000Z',
      succeeded: 1,
      reason: 'CompletionsReached',
      region: 'us-east-1',
      cluster: 'c',
    });
  });

  test('delivery ids are deterministic per (webhook, job uid, event)', () => {
    const id = deliveryId('w1', 'u1', 'job.started');
    expect(id).toMatch(/^[0-9a-f]{64}$/);
    expect(deliveryId('w1', 'u1', 'job.started')).toBe(id);
    expect(
      new Set([
        id,
        deliveryId('w2', 'u1', 'job.started'),
        deliveryId('w1', 'u2', 'job.started'),
        deliveryId('w1', 'u1', 'job.failed'),
      ]).size,
    ).toBe(4);
  });
});

describe('retry policy and configuration', () => {
  test('exponential backoff with jitter, capped', () => {
    expect(backoffMs(1, 1000, 60_000, () => 0)).toBe(500);
    expect(backoffMs(1, 1000, 60_000, () => 1)).toBe(1000);
    expect(backoffMs(3, 1000, 60_000, () => 1)).toBe(4000);
    expect(backoffMs(20, 1000, 60_000, () => 1)).toBe(60_000);
    expect([408, 429, 500, 502, 503].every(isRetryableStatus)).toBe(true);
    expect([200, 301, 400, 401, 404, 410, 422].some(isRetryableStatus)).toBe(false);
  });

  test('loadWebhookConfig: defaults, names the missing tables and bad values', () => {
    const tables = { WEBHOOKS_TABLE: 'gco-webhooks', WEBHOOK_DELIVERIES_TABLE: 'gco-webhook-deliveries' };
    const config = loadWebhookConfig({ ...tables, HOSTNAME: 'pod-1' });
    expect(config).toMatchObject({
      webhooksTable: 'gco-webhooks',
      deliveriesTable: 'gco-webhook-deliveries',
      allowPrivateTargets: false,
      deliveryEnabled: true,
      pollIntervalMs: 5000,
      timeoutMs: 10_000,
      maxAttempts: 6,
      leaseMs: 60_000,
    });
    expect(config.workerId).toMatch(/^pod-1-[0-9a-f]{6}$/);
    expect(checkWebhookConfig(config)).toEqual([]);
    expect(loadWebhookConfig({ ...tables, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).allowPrivateTargets).toBe(
      true,
    );
    expect(() => loadWebhookConfig({})).toThrow(
      /WEBHOOKS_TABLE: required[\s\S]*WEBHOOK_DELIVERIES_TABLE: required/,
    );
    expect(() => loadWebhookConfig({ ...tables, WEBHOOK_MAX_ATTEMPTS: '0' })).toThrow(/WEBHOOK_MAX_ATTEMPTS/);
    expect(() => loadWebhookConfig({ ...tables, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'maybe' })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE_TARGETS/,
    );
    expect(() =>
      loadWebhookConfig({ ...tables, WEBHOOK_TIMEOUT_MS: '60000', WEBHOOK_LEASE_MS: '30000' }),
    ).toThrow(/WEBHOOK_LEASE_MS/);
  });
});
