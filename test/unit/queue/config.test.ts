import { loadQueueConfig, QUEUE_DEFAULTS } from '../../../cluster/manifest-processor/src/queue/config.js';
import { EnvironmentError } from '../../../contracts/env/reader.js';

describe('loadQueueConfig', () => {
  const base = { JOB_QUEUE_TABLE: 'gco-job-queue', QUEUE_REGION: 'us-east-1', HOSTNAME: 'mp-0' };

  test('defaults', () => {
    const config = loadQueueConfig(base);
    expect(config).toMatchObject({
      tableName: 'gco-job-queue',
      region: 'us-east-1',
      workerEnabled: false,
      ...QUEUE_DEFAULTS,
    });
    expect(config.workerId).toMatch(/^mp-0-[0-9a-f]{6}$/);
  });

  test('every variable', () => {
    expect(
      loadQueueConfig({
        ...base,
        CENTRAL_QUEUE_WORKER_ENABLED: 'true',
        QUEUE_POLL_INTERVAL_MS: '1000',
        QUEUE_LEASE_MS: '120000',
        QUEUE_MAX_ATTEMPTS: '5',
        QUEUE_BATCH_SIZE: '10',
        QUEUE_DISPATCH_CONCURRENCY: '16',
        QUEUE_SPOT_RECHECK_MS: '0',
        QUEUE_SPOT_CACHE_MS: '0',
        QUEUE_RETENTION_DAYS: '7',
        QUEUE_IDEMPOTENCY_TTL_HOURS: '48',
        QUEUE_MAX_CONSECUTIVE_FAILURES: '3',
        QUEUE_WORKER_ID: 'w-1',
        DEPLOYMENT_REGIONS: 'us-east-1, eu-west-1',
      }),
    ).toEqual({
      tableName: 'gco-job-queue',
      region: 'us-east-1',
      deploymentRegions: ['us-east-1', 'eu-west-1'],
      workerEnabled: true,
      pollIntervalMs: 1000,
      leaseMs: 120_000,
      maxAttempts: 5,
      batchSize: 10,
      dispatchConcurrency: 16,
      spotRecheckMs: 0,
      spotCacheMs: 0,
      retentionDays: 7,
      idempotencyTtlHours: 48,
      maxConsecutiveFailures: 3,
      workerId: 'w-1',
    });
  });

  test('the deployment regions default to the worker’s own and must include it', () => {
    expect(loadQueueConfig(base).deploymentRegions).toEqual(['us-east-1']);
    expect(() => loadQueueConfig({ ...base, DEPLOYMENT_REGIONS: 'eu-west-1' })).toThrow(
      /DEPLOYMENT_REGIONS: must include this worker's region us-east-1/,
    );
  });

  test('the region falls back to REGION, then AWS_REGION', () => {
    expect(loadQueueConfig({ JOB_QUEUE_TABLE: 't', REGION: 'eu-west-1' }).region).toBe('eu-west-1');
    expect(loadQueueConfig({ JOB_QUEUE_TABLE: 't', AWS_REGION: 'ap-south-1' }).region).toBe('ap-south-1');
  });

  test('errors name the variables', () => {
    expect(() => loadQueueConfig({})).toThrow(EnvironmentError);
    expect(() => loadQueueConfig({})).toThrow(/JOB_QUEUE_TABLE[\s\S]*QUEUE_REGION/);
    expect(() => loadQueueConfig({ ...base, QUEUE_LEASE_MS: '10' })).toThrow(/QUEUE_LEASE_MS/);
    expect(() => loadQueueConfig({ ...base, QUEUE_MAX_ATTEMPTS: '1.5' })).toThrow(/QUEUE_MAX_ATTEMPTS/);
    expect(() => loadQueueConfig({ ...base, QUEUE_DISPATCH_CONCURRENCY: '0' })).toThrow(
      /QUEUE_DISPATCH_CONCURRENCY/,
    );
    expect(() => loadQueueConfig({ ...base, QUEUE_DISPATCH_CONCURRENCY: '65' })).toThrow(
      /QUEUE_DISPATCH_CONCURRENCY/,
    );
    expect(() => loadQueueConfig({ ...base, CENTRAL_QUEUE_WORKER_ENABLED: 'maybe' })).toThrow(
      /CENTRAL_QUEUE_WORKER_ENABLED/,
    );
  });
});
