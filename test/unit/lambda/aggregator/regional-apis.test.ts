import { describe, expect, test } from '@jest/globals';
import { GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import { readAggregatorConfig } from '../../../../contracts/env/aggregator.js';
import { SsmDiscovery, discoveryFor } from '../../../../lambda/shared/regional-apis.js';
import {
  normalizeApiUrl,
  parseRegionList,
  parseRegionalApis,
  withExpectedRegions,
} from '../../../../contracts/regional-apis.js';

const URL1 = 'https://abc123.execute-api.us-east-1.amazonaws.com/prod';

describe('REGIONAL_APIS', () => {
  test('region → base URL, normalized and sorted', () => {
    expect(
      parseRegionalApis(
        JSON.stringify({
          'us-east-1': `${URL1}/`,
          'cn-north-1': 'https://x.execute-api.cn-north-1.amazonaws.com.cn/prod',
        }),
      ),
    ).toEqual({
      apis: [
        { region: 'cn-north-1', url: 'https://x.execute-api.cn-north-1.amazonaws.com.cn/prod' },
        { region: 'us-east-1', url: URL1 },
      ],
      problems: [],
    });
  });

  test('a bad URL makes that region a problem, not a silent gap', () => {
    const result = parseRegionalApis(
      JSON.stringify({
        'us-east-1': URL1,
        'eu-west-1': 'http://abc.execute-api.eu-west-1.amazonaws.com/prod',
        'us-west-2': 7,
      }),
    );
    expect(result.apis.map((a) => a.region)).toEqual(['us-east-1']);
    expect(result.problems).toEqual([
      { region: 'eu-west-1', error: 'regional API URL must use https' },
      { region: 'us-west-2', error: 'regional API URL is not a string' },
    ]);
  });

  test('malformed JSON, non-objects and non-region keys are configuration errors', () => {
    expect(() => parseRegionalApis('{')).toThrow('REGIONAL_APIS is not valid JSON');
    expect(() => parseRegionalApis('["us-east-1"]')).toThrow('must be a JSON object');
    expect(() => parseRegionalApis(JSON.stringify({ prod: URL1 }))).toThrow('"prod" is not a region name');
  });

  test('URL rules: https (http only on loopback), no credentials/query/fragment', () => {
    expect(normalizeApiUrl('http://127.0.0.1:8080/prod/')).toEqual({ url: 'http://127.0.0.1:8080/prod' });
    expect(normalizeApiUrl('http://localhost:8080/prod')).toEqual({ url: 'http://localhost:8080/prod' });
    expect(normalizeApiUrl('ftp://x/prod')).toHaveProperty('error');
    expect(normalizeApiUrl('https://u:p@x/prod')).toHaveProperty('error');
    expect(normalizeApiUrl(`${URL1}?a=1`)).toHaveProperty('error');
    expect(normalizeApiUrl('not a url')).toEqual({ error: 'regional API URL is not a valid URL' });
  });
});

describe('REGIONS', () => {
  test('comma list or JSON array; deduplicated and sorted', () => {
    expect(parseRegionList(' us-east-1, eu-west-1 ,us-east-1')).toEqual(['eu-west-1', 'us-east-1']);
    expect(parseRegionList('["us-gov-west-1"]')).toEqual(['us-gov-west-1']);
    expect(parseRegionList(undefined)).toEqual([]);
    expect(parseRegionList('')).toEqual([]);
    expect(() => parseRegionList('us-east-1,mars')).toThrow('"mars" is not a region name');
  });

  test('expected regions missing from discovery become problems', () => {
    const result = withExpectedRegions(
      { apis: [{ region: 'us-east-1', url: URL1 }], problems: [{ region: 'eu-west-1', error: 'bad' }] },
      ['us-east-1', 'eu-west-1', 'ap-south-1'],
    );
    expect(result.problems).toEqual([
      { region: 'eu-west-1', error: 'bad' },
      { region: 'ap-south-1', error: 'regional API not discovered' },
    ]);
  });
});

describe('SsmDiscovery', () => {
  const ssm = mockClient(SSMClient);
  const client = new SSMClient({ region: 'us-east-2' });

  test('reads every page under the path; ignores names that are not regions', async () => {
    ssm.reset();
    ssm
      .on(GetParametersByPathCommand)
      .resolves({
        Parameters: [
          { Name: '/gco/regional-api/us-east-1', Value: URL1 },
          { Name: '/gco/regional-api/notes', Value: 'hello' },
        ],
        NextToken: 't2',
      })
      .on(GetParametersByPathCommand, { NextToken: 't2' })
      .resolves({
        Parameters: [
          {
            Name: '/gco/regional-api/eu-west-1',
            Value: 'https://e.execute-api.eu-west-1.amazonaws.com/prod/',
          },
        ],
      });
    const result = await new SsmDiscovery({ client, path: '/gco/regional-api/', ttlMs: 1000 }).discover();
    expect(result).toEqual({
      apis: [
        { region: 'eu-west-1', url: 'https://e.execute-api.eu-west-1.amazonaws.com/prod' },
        { region: 'us-east-1', url: URL1 },
      ],
      problems: [],
    });
    const calls = ssm.commandCalls(GetParametersByPathCommand);
    expect(calls.map((c) => c.args[0].input)).toEqual([
      { Path: '/gco/regional-api/', Recursive: false, WithDecryption: false },
      { Path: '/gco/regional-api/', Recursive: false, WithDecryption: false, NextToken: 't2' },
    ]);
  });

  test('caches for the TTL, refreshes after it, serves the stale list when a refresh fails', async () => {
    ssm.reset();
    let clock = 0;
    const stale: unknown[] = [];
    ssm
      .on(GetParametersByPathCommand)
      .resolvesOnce({ Parameters: [{ Name: '/p/us-east-1', Value: URL1 }] })
      .rejects(new Error('throttled'));
    const discovery = new SsmDiscovery({
      client,
      path: '/p',
      ttlMs: 1000,
      now: () => clock,
      onStale: (e) => stale.push(e),
    });
    const first = await discovery.discover();
    clock = 999;
    expect(await discovery.discover()).toBe(first);
    expect(ssm.commandCalls(GetParametersByPathCommand)).toHaveLength(1);
    clock = 1000;
    expect(await discovery.discover()).toBe(first);
    expect(ssm.commandCalls(GetParametersByPathCommand)).toHaveLength(2);
    expect(stale).toHaveLength(1);
  });

  test('without a previous answer a failure propagates; concurrent callers share one read', async () => {
    ssm.reset();
    ssm.on(GetParametersByPathCommand).rejects(new Error('AccessDenied'));
    const discovery = new SsmDiscovery({ client, path: '/p', ttlMs: 1000 });
    await expect(discovery.discover()).rejects.toThrow('AccessDenied');
    ssm.reset();
    ssm.on(GetParametersByPathCommand).resolves({ Parameters: [] });
    await Promise.all([discovery.discover(), discovery.discover(), discovery.discover()]);
    expect(ssm.commandCalls(GetParametersByPathCommand)).toHaveLength(1);
  });
});

describe('discovery from the environment', () => {
  const discoveryFromEnv = (env: NodeJS.ProcessEnv) => discoveryFor(readAggregatorConfig(env).discovery);

  test('REGIONAL_APIS wins over the parameter path', () => {
    expect(
      discoveryFromEnv({
        REGIONAL_APIS: JSON.stringify({ 'us-east-1': URL1 }),
        REGIONAL_API_PARAMETER_PATH: '/gco/regional-api',
      }).source,
    ).toBe('env');
    expect(
      discoveryFromEnv({ REGIONAL_API_PARAMETER_PATH: '/gco/regional-api', AWS_REGION: 'us-east-2' }).source,
    ).toBe('ssm');
  });

  test('nothing configured, a bad path or a bad TTL are readable errors', () => {
    expect(() => discoveryFromEnv({})).toThrow('REGIONAL_APIS: required, or REGIONAL_API_PARAMETER_PATH');
    expect(() => discoveryFromEnv({ REGIONAL_API_PARAMETER_PATH: 'gco' })).toThrow(
      'REGIONAL_API_PARAMETER_PATH',
    );
    expect(() =>
      discoveryFromEnv({
        REGIONAL_API_PARAMETER_PATH: '/gco/regional-api',
        REGIONAL_API_CACHE_TTL_SECONDS: '-1',
      }),
    ).toThrow('REGIONAL_API_CACHE_TTL_SECONDS');
  });
});
