import { createHmac } from 'node:crypto';
import { verifySignature, type Lookup } from '../../../cluster/manifest-processor/src/webhooks/index.js';
import { sleep, waitFor } from '../../support/wait-for.js';
import { startWebhookHarness, type Received, type WebhookHarness } from './harness.js';

const SECRET = 'delivery-secret-0123456789abcdef';

/** The receiver-side recipe of docs/webhooks.md, written out independently of the service's own helper. */
function checkSignature(req: Received, secret: string): void {
  const header = String(req.headers['x-gco-signature']);
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  expect(match).not.toBeNull();
  const [, t, v1] = match!;
  expect(Math.abs(Date.now() / 1000 - Number(t))).toBeLessThan(60);
  expect(v1).toBe(createHmac('sha256', secret).update(`${t}.${req.body}`).digest('hex'));
  expect(verifySignature(secret, header, req.body)).toBe(true);
}

describe('webhook delivery', () => {
  let h: WebhookHarness;
  afterEach(async () => {
    await h.close();
  });

  test('two replicas: each transition is delivered exactly once, signed, in order', async () => {
    h = await startWebhookHarness({ instances: 2 });
    const receiver = await h.startReceiver();
    const register = async (body: Record<string, unknown>) => {
      const res = await h.call('POST', '/api/v1/webhooks', body);
      expect(res.status).toBe(200);
      return res.body.webhook_id as string;
    };
    const all = await register({
      url: `${receiver.url}/all`,
      events: ['job.started', 'job.completed', 'job.failed'],
      namespace: 'svc-jobs',
      secret: SECRET,
    });
    const failures = await register({ url: `${receiver.url}/failures`, events: ['job.failed'] });
    await register({ url: `${receiver.url}/elsewhere`, events: ['job.started'], namespace: 'default' });
    h.startLoops();

    const ok = await h.createJob('hello');
    const bad = await h.createJob('boom', { fail: true });
    await waitFor(() => receiver.requests.length >= 5, 15_000);
    // Keep both replicas polling a while longer, then force one more pass on each: nothing new may arrive.
    await sleep(500);
    await h.runAll();
    expect(receiver.requests).toHaveLength(5);

    const seen = receiver.requests.map((r) => `${r.path} ${r.json.job.name} ${r.json.event}`);
    expect([...seen].sort()).toEqual([
      '/all boom job.failed',
      '/all boom job.started',
      '/all hello job.completed',
      '/all hello job.started',
      '/failures boom job.failed',
    ]);
    // Started is enqueued while the pods are still pending, so it goes out well before the end event.
    for (const job of ['hello', 'boom']) {
      const order = seen.filter((s) => s.startsWith(`/all ${job} `));
      expect(order[0]).toBe(`/all ${job} job.started`);
    }

    for (const req of receiver.requests) {
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['x-gco-event']).toBe(req.json.event);
      expect(req.headers['x-gco-delivery']).toBe(req.json.delivery_id);
      expect(req.json.delivery_id).toMatch(/^[0-9a-f]{64}$/);
      expect(new Date(req.json.timestamp).toISOString()).toBe(req.json.timestamp);
      if (req.path === '/all') {
        expect(req.json.webhook_id).toBe(all);
        checkSignature(req, SECRET);
      } else {
        expect(req.json.webhook_id).toBe(failures);
        expect(req.headers['x-gco-signature']).toBeUndefined();
      }
    }
    const completed = receiver.requests.find((r) => r.json.event === 'job.completed')!;
    expect(completed.json.job).toMatchObject({
      namespace: 'svc-jobs',
      name: 'hello',
      uid: ok.metadata?.uid,
      status: 'succeeded',
      succeeded: 1,
      region: 'us-east-1',
      cluster: 'sim',
    });
    const failed = receiver.requests.find((r) => r.path === '/failures')!;
    expect(failed.json.job).toMatchObject({ name: 'boom', uid: bad.metadata?.uid, status: 'failed' });

    const outbox = await h.deliveries.list();
    expect(outbox).toHaveLength(5);
    for (const item of outbox) {
      expect(item).toMatchObject({ status: 'delivered', attempts: 1, last_error: null, lease_owner: null });
      expect(item.history).toEqual([expect.objectContaining({ outcome: 'delivered', status_code: 200 })]);
    }
  });

  test('replicas racing on the same jobs and the same due items: one enqueue, one claim, one request', async () => {
    h = await startWebhookHarness({ instances: 3 });
    const receiver = await h.startReceiver();
    await h.call('POST', '/api/v1/webhooks', { url: `${receiver.url}/h`, events: ['job.started'] });
    await h.createJob('raced');
    await waitFor(async () => {
      const passes = await Promise.all(h.instances.map((i) => i.watcher.runOnce()));
      const enqueued = passes.reduce((sum, p) => sum + p.enqueued, 0);
      expect(enqueued).toBeLessThanOrEqual(1);
      return enqueued === 1 || undefined;
    });
    const passes = await Promise.all(h.instances.map((i) => i.worker.runOnce()));
    expect(passes.reduce((sum, p) => sum + p.claimed, 0)).toBe(1);
    expect(passes.reduce((sum, p) => sum + p.delivered, 0)).toBe(1);
    await Promise.all(h.instances.map((i) => i.worker.runOnce()));
    expect(receiver.requests).toHaveLength(1);
  });

  test('a 500 is retried with backoff until the receiver answers 200', async () => {
    h = await startWebhookHarness();
    const receiver = await h.startReceiver((_req, index) => (index === 0 ? 500 : 200));
    await h.call('POST', '/api/v1/webhooks', { url: `${receiver.url}/hook`, events: ['job.completed'] });
    h.startLoops();
    await h.createJob('retry-me');
    const [item] = await waitFor(async () => {
      const items = await h.deliveries.list();
      return items[0]?.status === 'delivered' ? items : undefined;
    });
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests[0]!.body).toBe(receiver.requests[1]!.body);
    expect(receiver.requests[1]!.headers['x-gco-delivery']).toBe(item!.delivery_id);
    expect(item).toMatchObject({ status: 'delivered', attempts: 2, last_status_code: 200, last_error: null });
    expect(item!.history.map((a) => [a.attempt, a.outcome, a.status_code])).toEqual([
      [1, 'retry', 500],
      [2, 'delivered', 200],
    ]);
    expect(item!.history[0]!.error).toBe('HTTP 500: receiver says hi');
  });

  test('a 400 is not retried', async () => {
    h = await startWebhookHarness();
    const receiver = await h.startReceiver(() => 400);
    await h.call('POST', '/api/v1/webhooks', { url: `${receiver.url}/hook`, events: ['job.completed'] });
    h.startLoops();
    await h.createJob('rejected');
    const [item] = await waitFor(async () => {
      const items = await h.deliveries.list();
      return items[0]?.status === 'failed' ? items : undefined;
    });
    await sleep(400);
    await h.runAll();
    expect(receiver.requests).toHaveLength(1);
    expect(item).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_status_code: 400,
      next_attempt_at: null,
    });
  });

  test('retryable failures stop after maxAttempts (dead)', async () => {
    h = await startWebhookHarness({ config: { maxAttempts: 3 } });
    const receiver = await h.startReceiver(() => 503);
    await h.call('POST', '/api/v1/webhooks', { url: `${receiver.url}/hook`, events: ['job.completed'] });
    h.startLoops();
    await h.createJob('never-ok');
    const [item] = await waitFor(async () => {
      const items = await h.deliveries.list();
      return items[0]?.status === 'dead' ? items : undefined;
    });
    await sleep(300);
    expect(receiver.requests).toHaveLength(3);
    expect(item!.history.map((a) => a.outcome)).toEqual(['retry', 'retry', 'dead']);
  });

  test('a target whose DNS turns private after registration is refused at delivery', async () => {
    let answer = '93.184.216.34';
    const lookup: Lookup = async () => [{ address: answer, family: 4 }];
    h = await startWebhookHarness({ allowPrivateTargets: false, lookup });
    const res = await h.call('POST', '/api/v1/webhooks', {
      url: 'https://hooks.example.com/x',
      events: ['job.started'],
    });
    expect(res.status).toBe(200);
    answer = '10.0.0.7'; // rebinding
    await h.createJob('rebind');
    const [item] = await waitFor(async () => {
      await h.runAll();
      const items = await h.deliveries.list();
      return items[0] && items[0].status !== 'pending' ? items : undefined;
    });
    expect(item).toMatchObject({ status: 'failed', attempts: 1, last_status_code: null });
    expect(item!.last_error).toMatch(/target refused: host hooks\.example\.com resolves to 10\.0\.0\.7/);
  });

  test('deleting a webhook cancels its undelivered deliveries', async () => {
    h = await startWebhookHarness();
    const receiver = await h.startReceiver();
    const created = await h.call('POST', '/api/v1/webhooks', {
      url: `${receiver.url}/h`,
      events: ['job.started'],
    });
    await h.createJob('cancel-me');
    const watcher = h.instances[0]!.watcher;
    await waitFor(async () => (await watcher.runOnce()).enqueued === 1 || undefined);
    expect((await h.call('DELETE', `/api/v1/webhooks/${created.body.webhook_id}`)).status).toBe(200);
    expect(await h.instances[0]!.worker.runOnce()).toMatchObject({ claimed: 1, cancelled: 1 });
    expect((await h.deliveries.list())[0]).toMatchObject({ status: 'cancelled', next_attempt_at: null });
    expect(receiver.requests).toHaveLength(0);
  });

  test('a webhook receives transitions from its registration on, not the history before it', async () => {
    h = await startWebhookHarness();
    const receiver = await h.startReceiver();
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    h.sim.put({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'old', namespace: 'svc-jobs', annotations: { 'sim.gco.dev/unmanaged': 'true' } },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'm', image: 'x' }] } } },
      status: {
        startTime: hourAgo,
        completionTime: hourAgo,
        succeeded: 1,
        conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: hourAgo }],
      },
    });
    await h.call('POST', '/api/v1/webhooks', {
      url: `${receiver.url}/h`,
      events: ['job.started', 'job.completed'],
    });
    expect(await h.instances[0]!.watcher.runOnce()).toEqual({ jobs: 1, enqueued: 0 });
    await h.createJob('new');
    await waitFor(async () => ((await h.instances[0]!.watcher.runOnce()).enqueued > 0 ? true : undefined));
    const outbox = await h.deliveries.list();
    expect(outbox.map((i) => i.job_name)).toEqual(['new']);
  });
});
