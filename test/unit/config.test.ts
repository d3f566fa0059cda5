import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { RegionInfo } from 'aws-cdk-lib/region-info';
import { ConfigError, DEFAULT_CONTEXT, configFromApp, loadConfig } from '../../lib/config.js';
import { ALL_REGIONS, AWS_REGIONS, partitionOf } from '../../contracts/partition.js';
import type { ConfigProblem } from '../../lib/config.js';
import { assemblyOutdir } from '../support/suite-temp-dir.js';

/** The problems loadConfig reports for a context (fails the test when it accepts it). */
function problemsOf(context: Record<string, unknown>): readonly ConfigProblem[] {
  try {
    loadConfig(context);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(context)}`);
}

/** The single problem for a context, asserting its key path. */
function onlyProblem(context: Record<string, unknown>, path: string): ConfigProblem {
  const problems = problemsOf(context);
  expect(problems.map((p) => p.path)).toEqual([path]);
  return problems[0]!;
}

const cdkJsonContext = (): Record<string, unknown> =>
  (JSON.parse(readFileSync(join(process.cwd(), 'cdk.json'), 'utf8')) as { context: Record<string, unknown> })
    .context;

describe('defaults', () => {
  test('an empty context gives the documented defaults', () => {
    const c = loadConfig({});
    expect(c.projectName).toBe('gco');
    expect(c.globalRegion).toBe('us-east-2');
    expect(c.regions).toEqual(['us-east-1']);
    expect(c.stage).toBe('prod');
    expect(c.internalDomain).toBe('gco.internal');
    expect(c.apiGateway).toEqual({
      regionalApiEnabled: false,
      throttlingRateLimit: 1000,
      throttlingBurstLimit: 2000,
      globalEndpointType: 'EDGE',
    });
    expect(c.waf).toEqual({ enabled: true, rateLimitPerIp: 2000, maxBodySizeBytes: 65536 });
    expect(c.analyticsEnvironment).toEqual({ enabled: false });
    expect(c.analyticsApi).toEqual({
      enabled: false,
      region: 'us-east-2',
      stage: 'live',
      authorizerCacheTtlSeconds: 300,
      warehouseEnabled: false,
    });
    expect(c.tables).toEqual({ deletionProtection: true, pointInTimeRecovery: true });
    expect(c.partition).toEqual({ partition: 'aws', dnsSuffix: 'amazonaws.com', hasGlobalAccelerator: true });
    expect(c.removalPolicy).toBe('retain');
    expect(c.resourceGeneration).toBe(1);
    expect(c.monitoring).toEqual({ enabled: true, alarmEmailAddresses: [], alarmHttpsEndpoints: [] });
    expect(c.eks).toEqual({ availabilityZoneIds: {}, adminPrincipalArns: [] });
    expect(c.images).toEqual({ source: 'build' });
    expect(c.acceleratorRegions).toEqual(['us-east-1']);
    expect(c.hasAccelerator).toBe(true);
  });

  test('cdk.json spells out exactly the defaults', () => {
    expect(cdkJsonContext()).toEqual(DEFAULT_CONTEXT);
    expect(JSON.stringify(loadConfig(cdkJsonContext()))).toBe(JSON.stringify(loadConfig({})));
  });

  test('null means "use the default"', () => {
    const c = loadConfig({ stage: null, regions: null, waf: { enabled: null }, analytics_api: null });
    expect(c.stage).toBe('prod');
    expect(c.regions).toEqual(['us-east-1']);
    expect(c.waf.enabled).toBe(true);
  });

  test('derived names and hosts', () => {
    const c = loadConfig({ project_name: 'acme', regions: ['us-east-1', 'eu-west-1'] });
    expect(c.globalStackName).toBe('acme-global');
    expect(c.analyticsStackName).toBe('acme-analytics');
    expect(c.regionalStackName('eu-west-1')).toBe('acme-eu-west-1');
    expect(c.backendHostname).toBe('backend.acme.gco.internal');
  });

  test('regionalStackName refuses a region that is not deployed', () => {
    expect(() => loadConfig({}).regionalStackName('eu-west-1')).toThrow(/not one of the configured regions/);
  });

  test('the config is deeply frozen', () => {
    const c = loadConfig({});
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.regions)).toBe(true);
    expect(Object.isFrozen(c.apiGateway)).toBe(true);
  });

  test('the analytics region follows global_region unless set', () => {
    expect(loadConfig({ global_region: 'eu-west-1' }).analyticsApi.region).toBe('eu-west-1');
    expect(loadConfig({ analytics_api: { region: 'us-west-2' } }).analyticsApi.region).toBe('us-west-2');
  });
});

describe('project_name', () => {
  test.each(['a', 'gco', 'my-platform-2', 'a'.repeat(32)])('accepts %j', (name) => {
    expect(loadConfig({ project_name: name }).projectName).toBe(name);
  });

  test.each(['', 'Gco', '1gco', '-gco', 'gco-', 'g--co', 'g_co', 'g.co', 'a'.repeat(33), 5])(
    'rejects %j',
    (name) => {
      const p = onlyProblem({ project_name: name }, 'project_name');
      expect(p.expected).toMatch(/lowercase letters, digits or single hyphens/);
      expect(p.received).toBe(JSON.stringify(name));
    },
  );
});

describe('stage names', () => {
  test.each(['prod', 'v1_beta-2', 'A'.repeat(128)])('accepts %j', (stage) => {
    expect(loadConfig({ stage, analytics_api: { stage } }).stage).toBe(stage);
  });

  test.each(['', 'pro d', 'a/b', 'a.b', 'A'.repeat(129), 1])(
    'rejects %j for stage and analytics_api.stage',
    (stage) => {
      const problems = problemsOf({ stage, analytics_api: { stage } });
      expect(problems.map((p) => p.path)).toEqual(['stage', 'analytics_api.stage']);
      expect(problems[0]!.expected).toMatch(/1-128 letters, digits, hyphens or underscores/);
    },
  );
});

describe('internal_domain', () => {
  test.each(['gco.internal', 'svc.example.com', 'internal', 'a-b.c1'])('accepts %j', (domain) => {
    expect(loadConfig({ internal_domain: domain }).internalDomain).toBe(domain);
  });

  test.each([
    '',
    'Gco.internal',
    'gco..internal',
    '-gco.internal',
    'gco-.internal',
    'gco.internal.',
    'gco_x.internal',
    '10.0.0.1',
    `${'a'.repeat(64)}.internal`,
    true,
  ])('rejects %j', (domain) => {
    expect(onlyProblem({ internal_domain: domain }, 'internal_domain').expected).toMatch(/DNS name/);
  });

  test('rejects a domain that makes backend.<project>.<domain> longer than 253 characters', () => {
    const long = Array.from({ length: 4 }, () => 'a'.repeat(60)).join('.'); // 243 characters
    const p = onlyProblem({ internal_domain: long }, 'internal_domain');
    expect(p.expected).toMatch(/backend\.<project_name>\.<internal_domain>/);
    expect(p.received).toMatch(/255 characters/);
  });
});

describe('regions', () => {
  test('an unknown region is rejected with the key path and an example', () => {
    const p = onlyProblem({ regions: ['us-east-1', 'nope-1'] }, 'regions[1]');
    expect(p.expected).toBe('a known AWS region code such as "us-east-1"');
    expect(p.received).toBe('"nope-1"');
  });

  test('a near miss gets a "did you mean"', () => {
    expect(onlyProblem({ global_region: 'us-east2' }, 'global_region').expected).toMatch(
      /did you mean "us-east-2"/,
    );
  });

  test('an empty list is rejected', () => {
    expect(onlyProblem({ regions: [] }, 'regions').expected).toMatch(/non-empty list/);
  });

  test.each([5, { a: 1 }, true])('a non-list %j is rejected', (value) => {
    expect(onlyProblem({ regions: value }, 'regions').expected).toMatch(/non-empty list/);
  });

  test('a non-string entry is rejected', () => {
    expect(onlyProblem({ regions: ['us-east-1', 7] }, 'regions[1]').received).toBe('7');
  });

  test('a duplicate region is rejected', () => {
    const p = onlyProblem({ regions: ['us-east-1', 'eu-west-1', 'us-east-1'] }, 'regions');
    expect(p.expected).toBe('each region listed once');
    expect(p.received).toBe('"us-east-1" more than once');
  });

  test('regions of two partitions are rejected', () => {
    const p = onlyProblem({ regions: ['us-east-1', 'cn-north-1'], global_region: 'us-east-1' }, 'regions');
    expect(p.received).toBe('us-east-1 (aws), cn-north-1 (aws-cn)');
  });

  test('a global region in another partition than the regions is rejected', () => {
    const p = onlyProblem({ global_region: 'cn-north-1', regions: ['us-east-1'] }, 'global_region');
    expect(p.expected).toBe('a region in the aws partition, like "regions" (us-east-1)');
    expect(p.received).toBe('"cn-north-1" (aws-cn partition)');
  });

  test('an analytics region in another partition is rejected', () => {
    onlyProblem({ analytics_api: { region: 'us-gov-west-1' } }, 'analytics_api.region');
  });

  test('an unknown analytics region is rejected', () => {
    onlyProblem({ analytics_api: { region: 'mars-1' } }, 'analytics_api.region');
  });

  test('a whole deployment in aws-cn or aws-us-gov is accepted', () => {
    const cn = loadConfig({ global_region: 'cn-northwest-1', regions: ['cn-north-1', 'cn-northwest-1'] });
    expect(cn.partition.partition).toBe('aws-cn');
    const gov = loadConfig({ global_region: 'us-gov-west-1', regions: ['us-gov-east-1'] });
    expect(gov.partition.partition).toBe('aws-us-gov');
  });

  test('the region list matches aws-cdk-lib for the supported partitions', () => {
    const supported = new Set(Object.keys(AWS_REGIONS));
    const fromCdk = RegionInfo.regions
      .filter((r) => r.partition !== undefined && supported.has(r.partition))
      .map((r) => r.name)
      .sort();
    expect(ALL_REGIONS).toEqual(fromCdk);
    for (const [partition, regions] of Object.entries(AWS_REGIONS)) {
      for (const region of regions) expect(partitionOf(region).partition).toBe(partition);
    }
  });
});

describe('flags', () => {
  const flags = [
    'api_gateway.regional_api_enabled',
    'waf.enabled',
    'analytics_environment.enabled',
    'analytics_api.enabled',
    'tables.deletion_protection',
    'tables.point_in_time_recovery',
  ];

  test.each(flags.flatMap((flag) => ['yes', 1, 'TRUE', 'on'].map((v) => [flag, v] as const)))(
    '%s rejects %j',
    (flag, value) => {
      const [section, key] = flag.split('.') as [string, string];
      const p = onlyProblem({ [section]: { [key]: value } }, flag);
      expect(p.expected).toBe('true or false');
      expect(p.received).toBe(JSON.stringify(value));
    },
  );

  test('booleans and their -c string forms are accepted', () => {
    const c = loadConfig({
      api_gateway: { regional_api_enabled: 'true' },
      waf: { enabled: false },
      tables: { deletion_protection: 'false', point_in_time_recovery: false },
    });
    expect(c.apiGateway.regionalApiEnabled).toBe(true);
    expect(c.waf.enabled).toBe(false);
    expect(c.tables).toEqual({ deletionProtection: false, pointInTimeRecovery: false });
  });
});

describe('numbers', () => {
  test('the message names the key, the expectation and the value', () => {
    expect(() => loadConfig({ api_gateway: { throttling_rate_limit: -5 } })).toThrow(
      new ConfigError([
        { path: 'api_gateway.throttling_rate_limit', expected: 'a positive number', received: '-5' },
      ]),
    );
    try {
      loadConfig({ api_gateway: { throttling_rate_limit: -5 } });
    } catch (error) {
      expect((error as Error).message).toBe(
        'Invalid cdk.json context "api_gateway.throttling_rate_limit": expected a positive number, got -5',
      );
    }
  });

  test.each([-5, 0, 'abc', '', true])('throttling_rate_limit rejects %j', (value) => {
    onlyProblem({ api_gateway: { throttling_rate_limit: value } }, 'api_gateway.throttling_rate_limit');
  });

  test('throttling_rate_limit may be fractional', () => {
    expect(loadConfig({ api_gateway: { throttling_rate_limit: 0.5 } }).apiGateway.throttlingRateLimit).toBe(
      0.5,
    );
  });

  test.each([-1, 0, 2.5, '2.5', 'many'])('throttling_burst_limit rejects %j', (value) => {
    const p = onlyProblem(
      { api_gateway: { throttling_burst_limit: value } },
      'api_gateway.throttling_burst_limit',
    );
    expect(p.expected).toBe('a positive integer');
  });

  test('burst may be below the rate (AWS does not require burst >= rate)', () => {
    const c = loadConfig({ api_gateway: { throttling_rate_limit: 500, throttling_burst_limit: 100 } });
    expect(c.apiGateway.throttlingBurstLimit).toBe(100);
  });

  test.each([9, 2_000_000_001, 10.5, 0])('waf.rate_limit_per_ip rejects %j', (value) => {
    const p = onlyProblem({ waf: { rate_limit_per_ip: value } }, 'waf.rate_limit_per_ip');
    expect(p.expected).toMatch(/^an integer from 10 to 2000000000/);
  });

  test.each([10, 2_000_000_000])('waf.rate_limit_per_ip accepts %j', (value) => {
    expect(loadConfig({ waf: { rate_limit_per_ip: value } }).waf.rateLimitPerIp).toBe(value);
  });

  test.each([0, 65_537, 1_048_576, 1.5])('waf.max_body_size_bytes rejects %j', (value) => {
    const p = onlyProblem({ waf: { max_body_size_bytes: value } }, 'waf.max_body_size_bytes');
    expect(p.expected).toMatch(/^an integer from 1 to 65536/);
  });

  test.each([1, 65_536])('waf.max_body_size_bytes accepts %j', (value) => {
    expect(loadConfig({ waf: { max_body_size_bytes: value } }).waf.maxBodySizeBytes).toBe(value);
  });

  test.each([-1, 3601, 1.5])('analytics_api.authorizer_cache_ttl_seconds rejects %j', (value) => {
    const p = onlyProblem(
      { analytics_api: { authorizer_cache_ttl_seconds: value } },
      'analytics_api.authorizer_cache_ttl_seconds',
    );
    expect(p.expected).toMatch(/^an integer from 0 to 3600/);
  });

  test.each([0, 3600])('analytics_api.authorizer_cache_ttl_seconds accepts %j', (value) => {
    const c = loadConfig({ analytics_api: { authorizer_cache_ttl_seconds: value } });
    expect(c.analyticsApi.authorizerCacheTtlSeconds).toBe(value);
  });
});

describe('string values from `cdk -c key=value`', () => {
  test('JSON text is parsed for lists, numbers, booleans and objects', () => {
    const c = loadConfig({
      regions: '["us-east-1","us-west-2"]',
      api_gateway: '{"throttling_rate_limit":"250","regional_api_enabled":"true"}',
      waf: '{"enabled":false}',
      'tables.deletion_protection': 'false',
      'analytics_api.authorizer_cache_ttl_seconds': '0',
    });
    expect(c.regions).toEqual(['us-east-1', 'us-west-2']);
    expect(c.apiGateway.throttlingRateLimit).toBe(250);
    expect(c.apiGateway.regionalApiEnabled).toBe(true);
    expect(c.waf.enabled).toBe(false);
    expect(c.tables.deletionProtection).toBe(false);
    expect(c.analyticsApi.authorizerCacheTtlSeconds).toBe(0);
  });

  test('a comma-separated region list is accepted', () => {
    expect(loadConfig({ regions: 'us-east-1, eu-west-1' }).regions).toEqual(['us-east-1', 'eu-west-1']);
    expect(loadConfig({ regions: 'eu-west-1' }).regions).toEqual(['eu-west-1']);
  });

  test('a single unknown region given as text is reported with its index', () => {
    expect(onlyProblem({ regions: '["nope-1"]' }, 'regions[0]').received).toBe('"nope-1"');
  });

  test('string fields are not JSON-parsed', () => {
    expect(loadConfig({ stage: '123' }).stage).toBe('123');
  });

  test('section.key overrides win over the section object', () => {
    const c = loadConfig({ waf: { enabled: true, rate_limit_per_ip: 500 }, 'waf.enabled': 'false' });
    expect(c.waf).toEqual({ enabled: false, rateLimitPerIp: 500, maxBodySizeBytes: 65536 });
  });

  test('a non-boolean flag from -c is reported as the text received', () => {
    expect(onlyProblem({ 'waf.enabled': 'yes' }, 'waf.enabled').received).toBe('"yes"');
  });

  test('a section that is not an object is rejected', () => {
    const p = onlyProblem({ waf: 'false' }, 'waf');
    expect(p.expected).toBe('an object with the keys enabled, rate_limit_per_ip, max_body_size_bytes');
  });
});

describe('unknown keys', () => {
  test('an unknown top-level key is rejected with a hint', () => {
    const p = onlyProblem({ regoins: ['us-east-1'] }, 'regoins');
    expect(p.expected).toMatch(/did you mean "regions"/);
    expect(p.received).toBe('an unknown key');
  });

  test('an unknown key inside a section is rejected with a hint', () => {
    expect(onlyProblem({ waf: { enable: true } }, 'waf.enable').expected).toMatch(/did you mean "enabled"/);
    expect(onlyProblem({ 'tables.pitr': true }, 'tables.pitr').expected).toMatch(/point_in_time_recovery/);
  });

  test('an unknown section in a dotted key is rejected with a hint', () => {
    expect(onlyProblem({ 'wafs.enabled': true }, 'wafs.enabled').expected).toMatch(/did you mean "waf"/);
  });

  test('keys owned by the CDK toolkit are ignored', () => {
    expect(() =>
      loadConfig({
        'aws:cdk:enable-path-metadata': true,
        '@aws-cdk/core:failSynthOnValidationErrors': false,
        'availability-zones:account=123456789012:region=us-east-1': ['us-east-1a'],
        'acknowledged-issue-numbers': [1234],
        'cli-telemetry': false,
        $dontSaveContext: true,
      }),
    ).not.toThrow();
  });
});

describe('error reporting', () => {
  test('every problem is reported together, one line each', () => {
    const context = {
      project_name: 'Bad Name',
      regions: ['nope-1', 'us-east-1', 'us-east-1'],
      stage: 'a b',
      api_gateway: { throttling_rate_limit: 0, throttling_burst_limit: 1.5 },
      waf: { enabled: 'yes', extra: 1 },
      analytics_api: { authorizer_cache_ttl_seconds: 9999 },
      typo_key: 1,
    };
    const paths = problemsOf(context).map((p) => p.path);
    expect(paths).toEqual([
      'project_name',
      'regions[0]',
      'regions',
      'stage',
      'api_gateway.throttling_rate_limit',
      'api_gateway.throttling_burst_limit',
      'waf.extra',
      'waf.enabled',
      'analytics_api.authorizer_cache_ttl_seconds',
      'typo_key',
    ]);
    expect(() => loadConfig(context)).toThrow(ConfigError);
    try {
      loadConfig(context);
    } catch (error) {
      const lines = (error as Error).message.split('\n');
      expect(lines).toHaveLength(paths.length);
      for (const [i, line] of lines.entries()) {
        expect(line.startsWith(`Invalid cdk.json context "${paths[i]}": expected `)).toBe(true);
        expect(line).toMatch(/, got .+$/);
      }
    }
  });

  test('ConfigError is an Error named ConfigError', () => {
    const error = new ConfigError([{ path: 'stage', expected: 'x', received: 'y' }]);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ConfigError');
  });
});

describe('partitions', () => {
  test.each([
    ['us-east-1', 'aws', 'amazonaws.com', true],
    ['eu-west-1', 'aws', 'amazonaws.com', true],
    ['cn-north-1', 'aws-cn', 'amazonaws.com.cn', false],
    ['cn-northwest-1', 'aws-cn', 'amazonaws.com.cn', false],
    ['us-gov-west-1', 'aws-us-gov', 'amazonaws.com', false],
    ['us-gov-east-1', 'aws-us-gov', 'amazonaws.com', false],
  ])('%s is in %s (%s), Global Accelerator: %s', (region, partition, dnsSuffix, hasGlobalAccelerator) => {
    expect(partitionOf(region)).toEqual({ partition, dnsSuffix, hasGlobalAccelerator });
  });

  test.each(['us-iso-east-1', 'us-isob-east-1', 'eusc-de-east-1'])(
    'unsupported partition region %s throws',
    (region) => {
      expect(() => partitionOf(region)).toThrow(/does not support/);
    },
  );

  test('regional APIs open to the account when opted in or without an accelerator', () => {
    expect(loadConfig({}).regionalApiOpenToAccount('us-east-1')).toBe(false);
    const optedIn = loadConfig({ api_gateway: { regional_api_enabled: true } });
    expect(optedIn.regionalApiOpenToAccount('us-east-1')).toBe(true);
    const gov = loadConfig({ global_region: 'us-gov-west-1', regions: ['us-gov-west-1'] });
    expect(gov.partition.hasGlobalAccelerator).toBe(false);
    expect(gov.hasAccelerator).toBe(false);
    expect(gov.acceleratorRegions).toEqual([]);
    expect(gov.regionalApiOpenToAccount('us-gov-west-1')).toBe(true);
  });

  test('a region Global Accelerator does not support gets no endpoint group and an open regional API', () => {
    const c = loadConfig({ regions: ['us-east-1', 'mx-central-1'] });
    expect(c.acceleratorRegions).toEqual(['us-east-1']);
    expect(c.hasAccelerator).toBe(true);
    expect(c.regionalApiOpenToAccount('us-east-1')).toBe(false);
    expect(c.regionalApiOpenToAccount('mx-central-1')).toBe(true);
    // No supported region at all: no accelerator, every regional API is the ingress.
    const none = loadConfig({ global_region: 'me-west-1', regions: ['me-west-1', 'ap-southeast-7'] });
    expect(none.hasAccelerator).toBe(false);
    expect(none.regionalApiOpenToAccount('me-west-1')).toBe(true);
  });
});

describe('configFromApp', () => {
  test('reads every key from the app context', () => {
    const app = new App({
      outdir: assemblyOutdir(),
      context: {
        project_name: 'demo',
        regions: '["eu-west-1"]',
        'waf.enabled': 'false',
        global_region: 'eu-west-1',
      },
    });
    const c = configFromApp(app);
    expect(c.projectName).toBe('demo');
    expect(c.regions).toEqual(['eu-west-1']);
    expect(c.waf.enabled).toBe(false);
  });

  test('throws ConfigError for a bad app context', () => {
    expect(() =>
      configFromApp(new App({ outdir: assemblyOutdir(), context: { regions: '["nope-1"]' } })),
    ).toThrow(ConfigError);
  });
});

describe('api_gateway.global_endpoint_type', () => {
  test('null is EDGE in aws and REGIONAL elsewhere; "regional" makes the global API REGIONAL', () => {
    expect(loadConfig({}).apiGateway.globalEndpointType).toBe('EDGE');
    const gov = loadConfig({ global_region: 'us-gov-west-1', regions: ['us-gov-west-1'] });
    expect(gov.apiGateway.globalEndpointType).toBe('REGIONAL');
    const regional = loadConfig({ api_gateway: { global_endpoint_type: 'regional' } });
    expect(regional.apiGateway.globalEndpointType).toBe('REGIONAL');
    expect(loadConfig({ 'api_gateway.global_endpoint_type': 'edge' }).apiGateway.globalEndpointType).toBe(
      'EDGE',
    );
  });

  test('"edge" outside the commercial partition is refused', () => {
    const p = onlyProblem(
      { global_region: 'cn-north-1', regions: ['cn-north-1'], api_gateway: { global_endpoint_type: 'edge' } },
      'api_gateway.global_endpoint_type',
    );
    expect(p.expected).toMatch(/aws-cn partition/);
  });

  test.each(['EDGE', 'private', 1])('rejects %j', (value) => {
    const p = onlyProblem(
      { api_gateway: { global_endpoint_type: value } },
      'api_gateway.global_endpoint_type',
    );
    expect(p.expected).toBe('one of "edge", "regional"');
  });
});

describe('removal_policy, resource_generation and table protection', () => {
  test('"destroy" turns deletion protection off unless set', () => {
    const c = loadConfig({ removal_policy: 'destroy' });
    expect(c.removalPolicy).toBe('destroy');
    expect(c.tables.deletionProtection).toBe(false);
  });

  test('"destroy" with deletion protection on is refused with the reason', () => {
    const p = onlyProblem(
      { removal_policy: 'destroy', tables: { deletion_protection: true } },
      'tables.deletion_protection',
    );
    expect(p.expected).toMatch(/cdk destroy/);
  });

  test('"retain" may still turn deletion protection off', () => {
    expect(loadConfig({ tables: { deletion_protection: false } }).tables.deletionProtection).toBe(false);
  });

  test.each(['keep', 'DESTROY', true])('removal_policy rejects %j', (value) => {
    onlyProblem({ removal_policy: value }, 'removal_policy');
  });

  test.each([0, 1000, 1.5, '2x'])('resource_generation rejects %j', (value) => {
    onlyProblem({ resource_generation: value }, 'resource_generation');
  });

  test('resource_generation accepts 1..999, also as -c text', () => {
    expect(loadConfig({ resource_generation: '3' }).resourceGeneration).toBe(3);
    expect(loadConfig({ resource_generation: 999 }).resourceGeneration).toBe(999);
  });
});

describe('monitoring', () => {
  test('subscriptions are validated one by one', () => {
    const c = loadConfig({
      monitoring: {
        alarm_email_addresses: ['oncall@example.com'],
        alarm_https_endpoints: ['https://events.example.com/sns'],
      },
    });
    expect(c.monitoring.alarmEmailAddresses).toEqual(['oncall@example.com']);
    expect(c.monitoring.alarmHttpsEndpoints).toEqual(['https://events.example.com/sns']);
    expect(
      loadConfig({ 'monitoring.alarm_email_addresses': 'a@example.com,b@example.com' }).monitoring
        .alarmEmailAddresses,
    ).toEqual(['a@example.com', 'b@example.com']);
  });

  test.each([
    ['monitoring.alarm_email_addresses', ['not-an-address'], 'monitoring.alarm_email_addresses[0]'],
    [
      'monitoring.alarm_email_addresses',
      ['a@example.com', 'a@example.com'],
      'monitoring.alarm_email_addresses[1]',
    ],
    [
      'monitoring.alarm_https_endpoints',
      ['http://plain.example.com/'],
      'monitoring.alarm_https_endpoints[0]',
    ],
    ['monitoring.alarm_https_endpoints', 5, 'monitoring.alarm_https_endpoints'],
    ['monitoring.enabled', 'yes', 'monitoring.enabled'],
  ])('%s rejects %j', (key, value, path) => {
    const [section, name] = key.split('.') as [string, string];
    onlyProblem({ [section]: { [name]: value } }, path);
  });

  test('an unknown monitoring key is refused with a suggestion', () => {
    const p = onlyProblem({ monitoring: { alarm_emails: [] } }, 'monitoring.alarm_emails');
    expect(p.expected).toMatch(/alarm_email_addresses/);
  });
});

describe('eks', () => {
  test('AZ IDs per region are kept in order', () => {
    const c = loadConfig({
      regions: ['us-east-1', 'eu-west-1'],
      eks: { availability_zone_ids: { 'us-east-1': ['use1-az4', 'use1-az1', 'use1-az2'] } },
    });
    expect(c.eks.availabilityZoneIds).toEqual({ 'us-east-1': ['use1-az4', 'use1-az1', 'use1-az2'] });
  });

  test.each([
    [{ 'us-east-1': ['use1-az3', 'use1-az1'] }, 'eks.availability_zone_ids.us-east-1[0]', /EKS accepts/],
    [{ 'us-east-1': ['euw1-az1', 'use1-az1'] }, 'eks.availability_zone_ids.us-east-1[0]', /use1-az1/],
    [{ 'us-east-1': ['use1-az1'] }, 'eks.availability_zone_ids.us-east-1', /2 to 6/],
    [{ 'us-east-1': ['use1-az1', 'use1-az1'] }, 'eks.availability_zone_ids.us-east-1[1]', /once/],
    [{ 'eu-west-1': ['euw1-az1', 'euw1-az2'] }, 'eks.availability_zone_ids.eu-west-1', /configured regions/],
    [['use1-az1'], 'eks.availability_zone_ids', /region to AZ ID list/],
  ])('availability_zone_ids %j is refused', (value, path, expected) => {
    const p = onlyProblem({ eks: { availability_zone_ids: value } }, path);
    expect(p.expected).toMatch(expected);
  });

  test('admin principals must be role or user ARNs of the deployment partition', () => {
    const arn = 'arn:aws:iam::123456789012:role/PlatformAdmin';
    expect(loadConfig({ eks: { admin_principal_arns: [arn] } }).eks.adminPrincipalArns).toEqual([arn]);
    onlyProblem(
      { eks: { admin_principal_arns: ['arn:aws:iam::123456789012:group/Admins'] } },
      'eks.admin_principal_arns[0]',
    );
    onlyProblem({ eks: { admin_principal_arns: ['PlatformAdmin'] } }, 'eks.admin_principal_arns[0]');
    const p = onlyProblem(
      { global_region: 'us-gov-west-1', regions: ['us-gov-west-1'], eks: { admin_principal_arns: [arn] } },
      'eks.admin_principal_arns',
    );
    expect(p.expected).toMatch(/aws-us-gov/);
  });
});

describe('images', () => {
  test('registry and tag together select pre-built images', () => {
    const c = loadConfig({
      images: { registry: '123456789012.dkr.ecr.{region}.amazonaws.com/gco', tag: 'v1.2.3' },
    });
    expect(c.images).toEqual({
      source: 'prebuilt',
      registry: '123456789012.dkr.ecr.{region}.amazonaws.com/gco',
      tag: 'v1.2.3',
    });
  });

  test('one without the other is refused, naming the missing key', () => {
    const p = onlyProblem({ images: { tag: 'v1' } }, 'images.registry');
    expect(p.expected).toMatch(/images.tag is set/);
    onlyProblem({ images: { registry: 'registry.example.com/gco' } }, 'images.tag');
  });

  test.each([
    [{ registry: 'Registry.Example.com/gco', tag: 'v1' }, 'images.registry'],
    [{ registry: 'registry.example.com/gco/', tag: 'v1' }, 'images.registry'],
    [{ registry: 'registry.example.com/gco:v1', tag: 'v1' }, 'images.registry'],
    [{ registry: 'registry.example.com/gco', tag: '-v1' }, 'images.tag'],
    [{ registry: 'registry.example.com/gco', tag: 'a'.repeat(129) }, 'images.tag'],
  ])('%j is refused', (images, path) => {
    onlyProblem({ images }, path);
  });
});

describe('features refused where their services do not exist (lib/feature-regions.ts)', () => {
  const studio = (globalRegion: string, regions: string[]) => ({
    global_region: globalRegion,
    regions,
    analytics_environment: { enabled: true },
  });

  test.each([
    ['ca-west-1', ['ca-west-1'], 'SageMaker'],
    ['mx-central-1', ['us-east-1'], 'SageMaker'],
    ['ap-south-2', ['ap-south-2'], 'SageMaker'],
    ['ap-southeast-4', ['ap-southeast-4'], 'SageMaker'],
    ['cn-north-1', ['cn-north-1'], 'Cognito'],
    ['cn-northwest-1', ['cn-north-1'], 'Cognito'],
  ])('the studio in %s is refused, naming the region and %s', (region, regions, service) => {
    const p = onlyProblem(studio(region, regions), 'analytics_environment.enabled');
    expect(p.expected).toContain(`global_region is ${region}`);
    expect(p.expected).toContain(service);
    expect(p.expected).toMatch(/https:\/\//);
    expect(p.received).toBe('true');
  });

  test('the message of the ConfigError names the service and the region', () => {
    expect(() => loadConfig(studio('ca-west-1', ['ca-west-1']))).toThrow(
      /analytics_environment\.enabled.*ca-west-1.*SageMaker AI domains/,
    );
  });

  test.each(['us-east-2', 'eu-west-1', 'us-gov-west-1'])('the studio in %s is accepted', (region) => {
    expect(loadConfig(studio(region, [region])).analyticsEnvironment.enabled).toBe(true);
  });

  test('the studio switched off in ca-west-1 is fine: only an enabled feature is checked', () => {
    expect(loadConfig({ global_region: 'ca-west-1', regions: ['ca-west-1'] }).globalRegion).toBe('ca-west-1');
  });

  test('the warehouse is accepted wherever Redshift Serverless exists (every known region today)', () => {
    for (const region of ['us-east-1', 'cn-north-1', 'us-gov-west-1', 'mx-central-1']) {
      const config = loadConfig({
        global_region: region,
        regions: [region],
        analytics_api: { enabled: true, warehouse_enabled: true },
      });
      expect(config.analyticsApi.warehouseEnabled).toBe(true);
    }
  });
});
