/** Spot-gated jobs: EC2 DescribeSpotPriceHistory through aws-sdk-client-mock. */
import { DescribeSpotPriceHistoryCommand } from '@aws-sdk/client-ec2';
import { jobManifest, REGION, startQueueHarness, type QueueHarness } from './harness.js';

describe('central job queue: spot price gate', () => {
  let h: QueueHarness;
  afterEach(async () => {
    await h.close();
  });

  const get = async (jobId: string) => (await h.call('GET', `/api/v1/queue/jobs/${jobId}`)).body;
  const poll = async (limit = 5) => (await h.call('POST', `/api/v1/queue/poll?limit=${limit}`)).body;
  const queue = async (body: Record<string, unknown>) => {
    const res = await h.submit({ target_region: REGION, ...body });
    expect(res.status).toBe(200);
    h.clock.offsetMs += 1000;
    return res.body.job_id as string;
  };
  const gated = (name: string, max: number, type = 'g5.xlarge', priority = 0) => ({
    manifest: jobManifest(name),
    max_spot_price: max,
    spot_instance_type: type,
    priority,
  });

  describe('rechecked on every pass', () => {
    beforeEach(async () => {
      h = await startQueueHarness();
    });

    test('waits while the price is above the maximum (and says why), dispatches once it drops', async () => {
      h.setSpotPrices('g5.xlarge', { 'us-east-1a': 0.61, 'us-east-1b': 0.52 });
      const jobId = await queue(gated('gpu', 0.4));

      const first = await poll();
      const reason = 'spot price 0.52 > max 0.40 for g5.xlarge in us-east-1';
      expect(first.waiting).toEqual([{ job_id: jobId, reason }]);
      expect(first.dispatched).toEqual([]);
      const waiting = await get(jobId);
      expect(waiting).toMatchObject({
        status: 'queued',
        waiting_reason: reason,
        last_spot_price: 0.52,
        attempts: 0,
      });
      expect(waiting.next_check_at).toEqual(expect.any(String));
      expect(h.queueJobs()).toHaveLength(0);

      // The EC2 question: Linux/UNIX prices of that type, now, in the target region's client.
      const input = h.ec2.commandCalls(DescribeSpotPriceHistoryCommand)[0]?.args[0].input;
      expect(input).toMatchObject({
        InstanceTypes: ['g5.xlarge'],
        ProductDescriptions: expect.arrayContaining(['Linux/UNIX']),
      });
      expect(input?.StartTime).toBeInstanceOf(Date);

      h.setSpotPrices('g5.xlarge', { 'us-east-1a': 0.45, 'us-east-1b': 0.4 }); // at the maximum is enough
      const second = await poll();
      expect(second.dispatched.map((d: { job_id: string }) => d.job_id)).toEqual([jobId]);
      expect(await get(jobId)).toMatchObject({
        status: 'dispatched',
        waiting_reason: null,
        next_check_at: null,
        last_spot_price: 0.4,
        attempts: 1,
      });
      expect(h.queueJobs(jobId)).toHaveLength(1);
    });

    test('a waiting high-priority job does not hold back the rest of the queue', async () => {
      h.setSpotPrices('p4d.24xlarge', { 'us-east-1a': 12.5 });
      const waiting = await queue(gated('big', 9, 'p4d.24xlarge', 100));
      const normal = await queue({ manifest: jobManifest('small'), priority: 1 });
      const pass = await poll(1);
      expect(pass.waiting.map((w: { job_id: string }) => w.job_id)).toEqual([waiting]);
      expect(pass.dispatched.map((d: { job_id: string }) => d.job_id)).toEqual([normal]);
    });

    test('no price, or EC2 failing, keeps the job waiting with that reason', async () => {
      const none = await queue(gated('unknown-type', 1, 'x9.nothing'));
      await poll();
      expect((await get(none)).waiting_reason).toBe('no spot price is available for x9.nothing in us-east-1');

      h.ec2.on(DescribeSpotPriceHistoryCommand).rejects(new Error('Rate exceeded'));
      await poll();
      expect((await get(none)).waiting_reason).toBe(
        'spot price of x9.nothing in us-east-1 could not be read: Rate exceeded',
      );
      expect((await get(none)).status).toBe('queued');
    });

    test('a waiting job can be cancelled', async () => {
      h.setSpotPrices('g5.xlarge', { 'us-east-1a': 1 });
      const jobId = await queue(gated('gpu', 0.4));
      await poll();
      const del = await h.call('DELETE', `/api/v1/queue/jobs/${jobId}`);
      expect(del.body).toMatchObject({ status: 'cancelled', waiting_reason: null });
      h.setSpotPrices('g5.xlarge', { 'us-east-1a': 0.1 });
      expect((await poll()).dispatched).toEqual([]);
    });
  });

  describe('with a recheck interval', () => {
    beforeEach(async () => {
      h = await startQueueHarness({ spotRecheckMs: 60_000 });
    });

    test('a waiting job is not looked at again before next_check_at', async () => {
      h.setSpotPrices('g5.xlarge', { 'us-east-1a': 0.9 });
      const jobId = await queue(gated('gpu', 0.4));
      await poll();
      const waiting = await get(jobId);
      expect(Date.parse(waiting.next_check_at)).toBe(Date.parse(waiting.updated_at) + 60_000);

      h.setSpotPrices('g5.xlarge', { 'us-east-1a': 0.2 });
      h.ec2.resetHistory();
      expect(await poll()).toMatchObject({ waiting: [], dispatched: [] });
      expect(h.ec2.commandCalls(DescribeSpotPriceHistoryCommand)).toHaveLength(0);

      h.clock.offsetMs += 60_000;
      expect((await poll()).dispatched.map((d: { job_id: string }) => d.job_id)).toEqual([jobId]);
    });
  });
});
