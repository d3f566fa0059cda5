/**
 * Every environment contract of the cluster services that something writes (the local platform) reads
 * back what its writer wrote: a renamed or re-scaled variable fails here, not in a deployment. A service
 * reads all its contracts with one reader, so its startup error names every problem at once.
 */
import { createCostMonitorFromEnv } from '../../cluster/cost-monitor/src/app.js';
import { costMonitorEnvironment, loadCostMonitorConfig } from '../../cluster/cost-monitor/src/config.js';
import {
  healthMonitorEnvironment,
  loadHealthMonitorConfig,
} from '../../cluster/health-monitor/src/config.js';
import {
  inferenceProxyEnvironment,
  loadInferenceProxyEnvConfig,
} from '../../cluster/inference-proxy/src/config.js';
import { createManifestProcessorFromEnv } from '../../cluster/manifest-processor/src/app.js';
import {
  loadManifestProcessorConfig,
  manifestProcessorEnvironment,
} from '../../cluster/manifest-processor/src/config.js';
import {
  costMonitorClientEnvironment,
  loadCostMonitorClientSettings,
} from '../../cluster/manifest-processor/src/cost/client.js';
import {
  DEFAULT_POLICY_CONFIG,
  loadPolicyConfig,
  policyEnvironment,
} from '../../cluster/manifest-processor/src/policy/index.js';
import { loadQueueConfig, queueEnvironment } from '../../cluster/manifest-processor/src/queue/index.js';
import {
  loadWebhookConfig,
  webhookEnvironment,
} from '../../cluster/manifest-processor/src/webhooks/index.js';
import { EnvironmentError } from '../../contracts/env/reader.js';

describe('environment contracts round-trip: load(environment(v)) equals v', () => {
  test('health-monitor', () => {
    const v = {
      clusterName: 'gco-eu-west-1',
      region: 'eu-west-1',
      thresholds: { cpuPercent: 70, memoryPercent: -1, gpuPercent: 99.5, pendingPods: 0 },
      refreshIntervalSeconds: 12,
    };
    expect(loadHealthMonitorConfig(healthMonitorEnvironment(v))).toEqual(v);
  });

  test('manifest-processor', () => {
    const v = { clusterName: 'gco-us-west-2', region: 'us-west-2', defaultJobNamespace: 'team-a' };
    expect(loadManifestProcessorConfig(manifestProcessorEnvironment(v))).toEqual(v);
  });

  test('validation policy: every setting, and empty lists where they are allowed', () => {
    const v = {
      allowedNamespaces: ['team-a', 'team-b'],
      allowedKinds: ['batch/v1/Job', 'Pod'],
      maxDepth: 12,
      maxCpuCores: 0.5,
      maxMemoryBytes: 2 * 2 ** 30,
      maxGpus: 0,
      trustedRegistries: ['ghcr.io/acme', 'registry.local:5000'],
      trustedDockerHubOrgs: [],
      projectRegistries: ['123456789012.dkr.ecr.us-east-1.amazonaws.com'],
      reservedServiceAccounts: [],
      requireRunAsNonRoot: true,
      allowedCapabilities: ['NET_BIND_SERVICE'],
    };
    expect(loadPolicyConfig(policyEnvironment(v))).toEqual(v);
    expect(loadPolicyConfig(policyEnvironment(DEFAULT_POLICY_CONFIG))).toEqual(DEFAULT_POLICY_CONFIG);
  });

  test('central job queue', () => {
    const v = {
      tableName: 'gco-job-queue',
      region: 'ap-south-1',
      deploymentRegions: ['ap-south-1', 'eu-west-1'],
      workerEnabled: true,
      pollIntervalMs: 1_000,
      leaseMs: 90_000,
      maxAttempts: 4,
      batchSize: 7,
      dispatchConcurrency: 3,
      spotRecheckMs: 0,
      spotCacheMs: 15_000,
      retentionDays: 9,
      idempotencyTtlHours: 36,
      maxConsecutiveFailures: 5,
      workerId: 'mp-7-abc123',
    };
    expect(loadQueueConfig(queueEnvironment(v))).toEqual(v);
  });

  test('webhooks (the event age travels in whole hours)', () => {
    const v = {
      webhooksTable: 'gco-webhooks',
      deliveriesTable: 'gco-webhook-deliveries',
      allowPrivateTargets: true,
      deliveryEnabled: false,
      pollIntervalMs: 1_000,
      timeoutMs: 5_000,
      maxAttempts: 3,
      retryBaseMs: 100,
      retryMaxMs: 10_000,
      leaseMs: 30_000,
      batchSize: 4,
      eventMaxAgeMs: 6 * 3_600_000,
      retentionDays: 2,
      workerId: 'replica-1',
    };
    expect(loadWebhookConfig(webhookEnvironment(v))).toEqual(v);
  });

  test('manifest-processor → cost-monitor client', () => {
    const v = {
      baseUrl: 'https://127.0.0.1:8443',
      caFile: '/etc/gco/internal-ca.pem',
      timeoutMs: 3_000,
      servername: 'cost-monitor',
    };
    expect(loadCostMonitorClientSettings(costMonitorClientEnvironment(v))).toEqual(v);
  });

  test('cost-monitor', () => {
    const v = {
      region: 'us-east-1',
      clusterName: 'gco-us-east-1',
      opencostUrl: 'http://127.0.0.1:9003',
      opencostTimeoutMs: 2_000,
      bucket: 'gco-cost-reports',
      table: 'gco-cost-reports',
      intervalMinutes: 15,
      settleMinutes: 0,
    };
    expect(loadCostMonitorConfig(costMonitorEnvironment(v))).toEqual(v);
  });

  test('inference-proxy', () => {
    const v = {
      config: {
        region: 'us-east-1',
        upstreamTimeoutMs: 1_500,
        streamIdleTimeoutMs: 2_000,
        endpointCacheTtlMs: 0,
      },
      tableName: 'gco-inference-endpoints',
      caFile: '/etc/gco/internal-ca.pem',
      tablesRegion: 'us-east-2',
      dynamodbEndpoint: 'http://127.0.0.1:8000',
    };
    expect(loadInferenceProxyEnvConfig(inferenceProxyEnvironment(v))).toEqual(v);
  });
});

describe('createXxxFromEnv reads all of a service’s contracts with one reader', () => {
  const problemsOf = async (start: Promise<unknown>): Promise<readonly string[]> => {
    const error: unknown = await start.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EnvironmentError);
    return (error as EnvironmentError).problems;
  };

  test('manifest-processor: one startup error names every missing variable of every contract', async () => {
    const problems = await problemsOf(createManifestProcessorFromEnv({}));
    for (const name of [
      'JOB_QUEUE_TABLE',
      'QUEUE_REGION',
      'JOB_TEMPLATES_TABLE',
      'WEBHOOKS_TABLE',
      'WEBHOOK_DELIVERIES_TABLE',
      'COST_MONITOR_CA_FILE',
    ]) {
      expect(problems.some((p) => p.startsWith(`${name}: `))).toBe(true);
    }
  });

  test('cost-monitor: the bucket and the claims table', async () => {
    const problems = await problemsOf(createCostMonitorFromEnv({ REPORT_INTERVAL_MINUTES: '7' }));
    expect(problems).toEqual([
      'COST_REPORTS_BUCKET: required (the S3 bucket of the cost reports)',
      'COST_REPORTS_TABLE: required (name of the cost-reports table)',
      'REPORT_INTERVAL_MINUTES: must divide 1440 (a day), got 7',
    ]);
  });
});
