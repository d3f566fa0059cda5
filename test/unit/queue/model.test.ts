import { decodeCursor, encodeCursor } from '../../../cluster/manifest-processor/src/queue/cursor.js';
import {
  kubernetesManifest,
  QUEUE_JOB_LABEL,
} from '../../../cluster/manifest-processor/src/queue/dispatcher.js';
import { canonicalJson, requestHash } from '../../../cluster/manifest-processor/src/queue/idempotency.js';
import {
  dispatchOrder,
  itemToJob,
  jobToItem,
  jobView,
  kubernetesName,
  type QueuedJob,
} from '../../../cluster/manifest-processor/src/queue/record.js';
import { checkRequest, enqueuedJob } from '../../../cluster/manifest-processor/src/queue/submission.js';
import { RequestValidationError } from '../../../cluster/shared/errors.js';

function job(overrides: Partial<QueuedJob> = {}): QueuedJob {
  const submitted = enqueuedJob(
    {
      job_id: '0f8e3c2a-1b2c-4d5e-8f90-123456789abc',
      target_region: 'us-east-1',
      namespace: 'svc-jobs',
      priority: 0,
      labels: null,
      manifest: {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'train' },
        spec: { template: { spec: {} } },
      },
      max_spot_price: null,
      spot_instance_type: null,
      idempotency_key: null,
      request_hash: 'h',
    },
    '2025-01-02T03:04:05.678Z',
  );
  return { ...submitted, ...overrides };
}

describe('canonical request hash', () => {
  test('key order does not matter, array order and values do', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
    expect(requestHash({ a: 1, b: 2 })).toBe(requestHash({ b: 2, a: 1 }));
    expect(requestHash({ a: [1, 2] })).not.toBe(requestHash({ a: [2, 1] }));
    expect(requestHash({ a: 1 })).not.toBe(requestHash({ a: '1' }));
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(requestHash({})).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('dispatch order', () => {
  test('higher priority first, then older, then id', () => {
    const keys = [
      job({ priority: 0, created_at: '2025-01-01T00:00:00.000Z', job_id: 'a' }),
      job({ priority: 100, created_at: '2025-01-03T00:00:00.000Z', job_id: 'b' }),
      job({ priority: 50, created_at: '2025-01-02T00:00:00.000Z', job_id: 'c' }),
      job({ priority: 50, created_at: '2025-01-01T00:00:00.000Z', job_id: 'd' }),
      job({ priority: 9, created_at: '2025-01-01T00:00:00.000Z', job_id: 'e' }),
      job({ priority: 10, created_at: '2025-01-05T00:00:00.000Z', job_id: 'f' }),
    ].map((j) => [dispatchOrder(j), j.job_id] as const);
    expect(keys.sort(([x], [y]) => (x < y ? -1 : 1)).map(([, id]) => id)).toEqual([
      'b',
      'd',
      'c',
      'f',
      'e',
      'a',
    ]);
    expect(dispatchOrder(job({ priority: 100 }))).toMatch(/^000#/);
    expect(dispatchOrder(job({ priority: 0 }))).toMatch(/^100#/);
  });
});

describe('item encoding', () => {
  test('a job survives the round trip; only queued jobs are in dispatch-index', () => {
    const original = job({
      labels: { team: 'ml' },
      max_spot_price: 0.4,
      spot_instance_type: 'g5.xlarge',
      idempotency_key: 'k',
    });
    const item = jobToItem(original);
    expect(item.dispatch_region).toBe('us-east-1');
    expect(item.record_type).toBe('job');
    expect(itemToJob(item)).toEqual(original);
    expect(jobToItem(job({ status: 'cancelled' })).dispatch_region).toBeUndefined();
  });

  test('idempotency records and unknown items are not jobs', () => {
    expect(itemToJob({ pk: 'idempotency#k', job_id: 'x', request_hash: 'h' })).toBeUndefined();
    expect(itemToJob(undefined)).toBeUndefined();
    expect(itemToJob({ ...jobToItem(job()), status: 'exploded' })).toBeUndefined();
  });

  test('the view shows times as ISO strings and the lease only while claimed', () => {
    const claimed = jobView(
      job({ status: 'claimed', lease_expires_at: Date.UTC(2025, 0, 1), claimed_by: 'w' }),
    );
    expect(claimed.lease_expires_at).toBe('2025-01-01T00:00:00.000Z');
    expect(jobView(job({ next_check_at: 0 })).next_check_at).toBe('1970-01-01T00:00:00.000Z');
    expect(jobView(job(), { manifest: false })).not.toHaveProperty('manifest');
  });
});

describe('Kubernetes name and manifest', () => {
  test('the name is derived from the manifest name and the queue job id, within 63 characters', () => {
    expect(kubernetesName(job())).toBe('train-q0f8e3c2a1b');
    const long = kubernetesName(job({ manifest: { metadata: { name: `${'x'.repeat(51)}-yyyy` } } }));
    expect(long).toBe(`${'x'.repeat(51)}-q0f8e3c2a1b`);
    expect(long).toHaveLength(63);
    // Truncation never leaves a dash before the suffix.
    const cut = kubernetesName(job({ manifest: { metadata: { name: `${'x'.repeat(50)}-yyyy` } } }));
    expect(cut).toBe(`${'x'.repeat(50)}-q0f8e3c2a1b`);
    expect(kubernetesName(job({ manifest: { metadata: { generateName: 'batch-' } } }))).toBe(
      'batch-q0f8e3c2a1b',
    );
    expect(kubernetesName(job({ manifest: {} }))).toBe('job-q0f8e3c2a1b');
  });

  test('the manifest gets the name, namespace and queue label; server fields go; the input is untouched', () => {
    const input = job({
      namespace: 'default',
      manifest: {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { generateName: 'x-', resourceVersion: '5', uid: 'u', labels: { app: 'a' } },
        spec: { template: { metadata: { labels: { app: 'a' } }, spec: {} } },
        status: { active: 1 },
      },
    });
    const snapshot = structuredClone(input.manifest);
    const out = kubernetesManifest(input);
    expect(out.metadata).toEqual({
      name: 'x-q0f8e3c2a1b',
      namespace: 'default',
      labels: { app: 'a', [QUEUE_JOB_LABEL]: input.job_id },
    });
    expect(out.spec?.template.metadata?.labels).toEqual({ app: 'a', [QUEUE_JOB_LABEL]: input.job_id });
    expect(out.status).toBeUndefined();
    expect(input.manifest).toEqual(snapshot);
  });
});

describe('list cursors', () => {
  const key = (region?: string) => ({
    pk: 'job-1',
    created_at: '2025-01-02T03:04:05.678Z',
    ...(region ? { target_region: region } : { record_type: 'job' }),
  });

  test('round trip for region and overall listings', () => {
    expect(decodeCursor(encodeCursor(key('us-east-1'))!, 'us-east-1')).toEqual(key('us-east-1'));
    expect(decodeCursor(encodeCursor(key())!, undefined)).toEqual(key());
    expect(encodeCursor(undefined)).toBeNull();
  });

  test.each([
    ['another region', encodeCursor(key('us-east-1'))!, 'eu-west-1'],
    ['region cursor in the overall listing', encodeCursor(key('us-east-1'))!, undefined],
    ['overall cursor in a region listing', encodeCursor(key())!, 'us-east-1'],
    ['not base64url', 'a+b/c=', undefined],
    ['not JSON', Buffer.from('hello').toString('base64url'), undefined],
    [
      'wrong version',
      Buffer.from('{"v":2,"pk":"a","ca":"2025-01-01T00:00:00Z"}').toString('base64url'),
      undefined,
    ],
    ['bad time', Buffer.from('{"v":1,"pk":"a","ca":"yesterday"}').toString('base64url'), undefined],
    ['array', Buffer.from('[1]').toString('base64url'), undefined],
  ])('rejects %s with a 422 on query.cursor', (_name, raw, region) => {
    try {
      decodeCursor(raw, region);
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(RequestValidationError);
      expect((error as RequestValidationError).items[0]?.loc).toEqual(['query', 'cursor']);
    }
  });
});

describe('request checks beyond the schema', () => {
  const body = (extra: Record<string, unknown> = {}) => ({
    manifest: { apiVersion: 'batch/v1', kind: 'Job' },
    target_region: 'us-east-1',
    namespace: 'svc-jobs',
    priority: 0,
    ...extra,
  });
  const locs = (b: ReturnType<typeof body>) => {
    try {
      checkRequest(b, ['us-east-1']);
      return [];
    } catch (error) {
      return (error as RequestValidationError).items.map((i) => i.loc.join('.'));
    }
  };

  test('spot fields come together; null counts as absent', () => {
    expect(locs(body({ max_spot_price: 1, spot_instance_type: 'm5.large' }))).toEqual([]);
    expect(locs(body({ max_spot_price: null, spot_instance_type: null }))).toEqual([]);
    expect(locs(body({ max_spot_price: 1 }))).toEqual(['body.spot_instance_type']);
    expect(locs(body({ spot_instance_type: 'm5.large', max_spot_price: null }))).toEqual([
      'body.max_spot_price',
    ]);
  });

  test('the target region is one of the deployment regions', () => {
    expect(locs(body({ target_region: 'us-eats-1' }))).toEqual(['body.target_region']);
  });

  test('only batch/v1 Job manifests', () => {
    expect(locs(body({ manifest: { apiVersion: 'batch/v1', kind: 'CronJob' } }))).toEqual([
      'body.manifest.kind',
    ]);
    expect(locs(body({ manifest: {} }))).toEqual(['body.manifest.apiVersion', 'body.manifest.kind']);
  });
});
