/**
 * Every environment contract of the edge Lambdas round-trips: what its writer sets (the stacks, the
 * local platform) its reader reads back unchanged, so a variable renamed on one side fails here.
 */
import { describe, expect, test } from '@jest/globals';
import { aggregatorEnvironment, readAggregatorConfig } from '../../../contracts/env/aggregator.js';
import { eventsEnvironment, readEventsConfig } from '../../../contracts/env/analytics-events.js';
import {
  readWarehouseSetupConfig,
  warehouseSetupEnvironment,
} from '../../../contracts/env/analytics-warehouse-setup.js';
import {
  controlPlaneProxyEnvironment,
  readControlPlaneProxyConfig,
} from '../../../lambda/control-plane-proxy/config.js';
import {
  inferenceProxyEnvironment,
  readInferenceProxyConfig,
} from '../../../lambda/inference-stream-proxy/config.js';
import { keyStoresEnvironment, readKeyStoresConfig } from '../../../contracts/env/key-stores.js';
import { EnvReader } from '../../../contracts/env/reader.js';
import {
  functionRegionEnvironment,
  readFunctionRegionConfig,
} from '../../../lambda/shared/function-region.js';
import { proxyEnvironment, readProxyConfig, type ProxyConfig } from '../../../contracts/env/proxy.js';
import { readStudioLoginConfig, studioLoginEnvironment } from '../../../contracts/env/studio-login.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:111122223333:secret:gco-signing-AbCdEf';

const GLOBAL_PROXY: ProxyConfig = {
  mode: 'global',
  backendHostname: 'backend.gco.gco.internal',
  backendPort: 8443,
  caPem: PEM,
  signingKeySecretArn: SECRET_ARN,
  acceleratorDns: 'a1234.awsglobalaccelerator.com',
  albCacheTtlMs: 60_000,
};

const REGIONAL_PROXY: ProxyConfig = {
  mode: 'regional',
  backendHostname: 'backend.gco.gco.internal',
  backendPort: 443,
  caPem: PEM,
  signingKeySecretArn: SECRET_ARN,
  albHostParameter: '/gco/us-east-1/alb-host',
  accountId: '111122223333',
  albCacheTtlMs: 300_000,
};

function readProxy(env: NodeJS.ProcessEnv): ProxyConfig {
  const r = new EnvReader(env);
  const config = readProxyConfig(r);
  r.finish();
  return config;
}

describe('readX(xEnvironment(v)) equals v', () => {
  test.each([GLOBAL_PROXY, REGIONAL_PROXY])('both proxies ($mode)', (config) => {
    expect(readProxy(proxyEnvironment(config))).toEqual(config);
  });

  test('control-plane proxy', () => {
    const config = { ...REGIONAL_PROXY, forwardTimeoutMs: 20_000, maxResponseBytes: 1_048_576 };
    expect(readControlPlaneProxyConfig(controlPlaneProxyEnvironment(config))).toEqual(config);
  });

  test('inference proxy', () => {
    const config = { ...GLOBAL_PROXY, headerTimeoutMs: 10_000, streamTimeoutMs: 600_000 };
    expect(readInferenceProxyConfig(inferenceProxyEnvironment(config))).toEqual(config);
  });

  test('aggregator, discovery from SSM', () => {
    const config = {
      discovery: {
        source: 'ssm' as const,
        parameterPath: '/gco/regional-api',
        parameterRegion: 'us-east-2',
        cacheTtlSeconds: 60,
      },
      budgetMs: 20_000,
      regionTimeoutMs: 8_000,
      expectedRegions: ['eu-west-1', 'us-east-1'],
    };
    expect(readAggregatorConfig(aggregatorEnvironment(config))).toEqual(config);
  });

  test('aggregator, fixed regional APIs', () => {
    const config = {
      discovery: {
        source: 'env' as const,
        result: {
          apis: [
            { region: 'eu-west-1', url: 'https://b.execute-api.eu-west-1.amazonaws.com/prod' },
            { region: 'us-east-1', url: 'https://a.execute-api.us-east-1.amazonaws.com/prod' },
          ],
          problems: [],
        },
      },
      budgetMs: 27_000,
      expectedRegions: [],
    };
    expect(readAggregatorConfig(aggregatorEnvironment(config))).toEqual(config);
  });

  test('studio login', () => {
    const config = {
      domainId: 'd-abc123',
      profileClaim: 'sub',
      urlExpiresInSeconds: 120,
      sessionExpiresInSeconds: 7_200,
      region: 'us-west-2',
    };
    expect(readStudioLoginConfig(studioLoginEnvironment(config))).toEqual(config);
  });

  test('analytics key stores (admin, authorizer)', () => {
    const config = { applicationsTable: 'gco-analytics-applications', authorizationsTable: 'gco-auth' };
    expect(readKeyStoresConfig(keyStoresEnvironment(config))).toEqual(config);
  });

  test('analytics events', () => {
    const config = {
      applicationsTable: 'gco-analytics-applications',
      idempotencyTable: 'gco-analytics-idempotency',
      streamName: 'gco-analytics-events',
      idempotencyTtlSeconds: 86_400,
    };
    expect(readEventsConfig(eventsEnvironment(config))).toEqual(config);
  });

  test.each([
    ['without a warehouse', { streamName: 'gco-analytics-events', waitMs: 25_000 }],
    [
      'with a warehouse',
      {
        streamName: 'gco-analytics-events',
        warehouse: {
          workgroupName: 'gco-analytics',
          database: 'analytics',
          streamRoleArn: 'arn:aws:iam::111122223333:role/gco-stream-reader',
        },
        waitMs: 10_000,
      },
    ],
  ])('analytics warehouse setup, %s', (_name, config) => {
    expect(readWarehouseSetupConfig(warehouseSetupEnvironment(config))).toEqual(config);
  });

  test('signing-key rotation and internal CA (their region)', () => {
    const config = { region: 'us-gov-west-1' };
    expect(readFunctionRegionConfig(functionRegionEnvironment(config))).toEqual(config);
  });
});

describe('writers leave out what the stacks do not set, and readers fill in the defaults', () => {
  test('proxies: the regional stack writes no port, cache TTL or account', () => {
    const { backendPort: _port, albCacheTtlMs: _ttl, accountId: _account, ...written } = REGIONAL_PROXY;
    const env = proxyEnvironment(written);
    expect(Object.keys(env).sort()).toEqual([
      'ALB_HOST_PARAMETER',
      'BACKEND_HOSTNAME',
      'INTERNAL_CA_PEM',
      'MODE',
      'SIGNING_KEY_SECRET_ARN',
    ]);
    expect(readProxy(env)).toEqual({ ...written, backendPort: 443, albCacheTtlMs: 300_000 });
  });

  test('aggregator: the global stack writes the parameter path and the regions', () => {
    const env = aggregatorEnvironment({
      discovery: { source: 'ssm', parameterPath: '/gco/regional-api' },
      expectedRegions: ['us-east-1', 'eu-west-1'],
    });
    expect(env).toEqual({ REGIONAL_API_PARAMETER_PATH: '/gco/regional-api', REGIONS: 'us-east-1,eu-west-1' });
    expect(readAggregatorConfig(env)).toEqual({
      discovery: { source: 'ssm', parameterPath: '/gco/regional-api', cacheTtlSeconds: 300 },
      budgetMs: 27_000,
      expectedRegions: ['eu-west-1', 'us-east-1'],
    });
  });

  test('studio login: the domain only', () => {
    expect(studioLoginEnvironment({ domainId: 'd-1' })).toEqual({ STUDIO_DOMAIN_ID: 'd-1' });
  });

  test('analytics: no warehouse, no waits or windows', () => {
    expect(warehouseSetupEnvironment({ streamName: 's' })).toEqual({ EVENTS_STREAM_NAME: 's' });
    expect(
      readEventsConfig(eventsEnvironment({ applicationsTable: 'a', idempotencyTable: 'i', streamName: 's' })),
    ).toMatchObject({ idempotencyTtlSeconds: 3_600 });
  });
});
