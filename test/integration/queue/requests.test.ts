/**
 * DynamoDB requests the worker spends per job, counted on the client (noise-free, unlike timings): a
 * job costs its claim, the write that marks it dispatched and the status sync's writes (running, if
 * the sync sees the Job run, and its end), plus a share of the dispatch-index reads. The claim reads
 * back only the attributes it set, not the stored manifest (UpdateItem ReturnValues UPDATED_NEW:
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html#DDB-UpdateItem-request-ReturnValues),
 * and a pass that finds nothing changed writes nothing.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { QueueStore } from '../../../cluster/manifest-processor/src/queue/index.js';
import type { Transition } from '../../../cluster/manifest-processor/src/queue/store.js';
import { jobManifest, REGION, startQueueHarness, type QueueHarness } from './harness.js';

const JOBS = 6;

interface Request {
  command: string;
  returnValues: string | undefined;
  /** Attribute names of an UpdateItem's answer (what it read back). */
  returned: string[];
}

/** A DynamoDB client that records every request it sends and what each answered. */
function countingClient(client: DynamoDBClient, requests: Request[]): DynamoDBClient {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      const input = args.input as { ReturnValues?: string };
      const output = out.output as { Attributes?: Record<string, unknown> };
      requests.push({
        command: context.commandName ?? '?',
        returnValues: input.ReturnValues,
        returned: Object.keys(output.Attributes ?? {}),
      });
      return out;
    },
    { step: 'initialize', name: 'countRequests' },
  );
  return client;
}

const named = (requests: readonly Request[], command: string) =>
  requests.filter((r) => r.command.startsWith(command));

describe('central job queue: DynamoDB requests per job', () => {
  let h: QueueHarness;
  afterEach(async () => {
    await h.close();
  });

  it('claims, marks and syncs each job with at most four writes and never reads a manifest back', async () => {
    h = await startQueueHarness();
    const requests: Request[] = [];
    const store = new QueueStore(countingClient(h.dynamo.client(), requests), h.store.tableName);
    const worker = h.makeWorker('worker-counted', { store });
    const ids: string[] = [];
    for (let i = 0; i < JOBS; i++) {
      const res = await h.submit({ manifest: jobManifest(`counted-${i}`), target_region: REGION });
      expect(res.status).toBe(200);
      ids.push(String(res.body.job_id));
    }

    const first = await worker.pollOnce(JOBS);
    expect(first.dispatched).toHaveLength(JOBS);
    await h.waitFor(async () => {
      await worker.pollOnce(JOBS);
      const jobs = await Promise.all(ids.map((id) => h.store.getJob(id)));
      return jobs.every((j) => j?.status === 'succeeded');
    });
    expect(h.queueJobs()).toHaveLength(JOBS);

    const updates = named(requests, 'UpdateItem');
    // Claim + dispatched + finished for every job; `running` only for jobs the sync saw run.
    expect(updates.length).toBeGreaterThanOrEqual(3 * JOBS);
    expect(updates.length).toBeLessThanOrEqual(4 * JOBS);
    // The dispatcher applies the manifest it read from dispatch-index; no write sends a job back whole.
    expect(updates.filter((u) => u.returned.includes('manifest'))).toEqual([]);
    expect(updates.filter((u) => u.returnValues === 'ALL_NEW')).toEqual([]);
    const claims = updates.filter((u) => u.returned.includes('claimed_by'));
    expect(claims).toHaveLength(JOBS);
    for (const claim of claims) expect(claim.returned).toEqual(expect.arrayContaining(['attempts']));
    // Nothing on the happy path needs a single-item read.
    expect(named(requests, 'GetItem')).toEqual([]);

    // Everything finished: another pass reads the indexes and writes nothing.
    requests.length = 0;
    const idle = await worker.pollOnce(JOBS);
    expect(idle.dispatched).toEqual([]);
    expect(idle.synced).toEqual([]);
    expect(named(requests, 'UpdateItem')).toEqual([]);
    expect(named(requests, 'PutItem')).toEqual([]);
  });

  it('a claim that reads back only what it set gives the job as stored; a lost one gives nothing', async () => {
    h = await startQueueHarness();
    const res = await h.submit({ manifest: jobManifest('claimed-once'), target_region: REGION });
    expect(res.status).toBe(200);
    const jobId = String(res.body.job_id);
    const [candidate] = (await h.store.dispatchable(REGION, h.clock.now(), 10)).jobs;
    expect(candidate?.job_id).toBe(jobId);
    const now = h.clock.now();
    const claim: Transition = {
      expect: { status: 'queued', claimed_by: null },
      set: {
        status: 'claimed',
        claimed_by: 'worker-a',
        lease_region: REGION,
        lease_expires_at: now + 30_000,
        dispatch_region: null,
        dispatch_order: null,
        waiting_reason: null,
        next_check_at: null,
      },
      incrementAttempts: true,
      now,
      current: candidate!,
    };
    const claimed = await h.store.tryTransition(jobId, claim);
    expect(claimed).toEqual(await h.store.getJob(jobId));
    expect(claimed).toMatchObject({ status: 'claimed', claimed_by: 'worker-a', attempts: 1 });
    expect(claimed?.manifest).toEqual(candidate!.manifest);

    // The same candidate again (an index that still lists it): the condition fails, nothing is written.
    const before = await h.store.getJob(jobId);
    expect(
      await h.store.tryTransition(jobId, { ...claim, set: { ...claim.set, claimed_by: 'worker-b' } }),
    ).toBeUndefined();
    expect(await h.store.getJob(jobId)).toEqual(before);
  });

  it('refuses to lay a write that sets the Kubernetes reference over a job read earlier', async () => {
    h = await startQueueHarness();
    const res = await h.submit({ manifest: jobManifest('needs-read-back'), target_region: REGION });
    expect(res.status).toBe(200);
    const jobId = String(res.body.job_id);
    const current = await h.store.getJob(jobId);
    await expect(
      h.store.tryTransition(jobId, {
        expect: { status: 'queued' },
        set: { k8s_uid: 'uid-1' },
        now: h.clock.now(),
        current: current!,
      }),
    ).rejects.toThrow(/must read the item back/);
    // Refused before writing: the item is as it was.
    expect(await h.store.getJob(jobId)).toEqual(current);
  });
});
