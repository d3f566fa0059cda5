// How a regional stack chooses its AZs: environment-agnostic (no account) it keeps Fn::GetAZs; with an
// account it reads the CDK's AZ names and the plugin's name→ID map from the context (as cdk.context.json
// holds them after `cdk deploy`), avoids the AZ IDs EKS refuses, and honours pinned IDs.
import { describe, expect, test } from '@jest/globals';
import { ContextProvider } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../lib/app-builder.js';
import type { PlatformApp } from '../../lib/app-builder.js';
import { AZ_ID_LOOKUP } from '../../lib/availability-zone-lookup.js';
import {
  AZ_ID_LOOKUP_LOADED_ENV,
  AZ_ID_LOOKUP_PLUGIN,
  chooseAvailabilityZones,
  excludedAzIds,
} from '../../lib/availability-zones.js';
import type { RegionalStack } from '../../lib/stacks/regional-stack.js';
import { regionalStackOf } from '../support/platform-app.js';
import {
  availabilityZoneContext,
  idsKey,
  namesKey,
  TEST_ACCOUNT,
  US_EAST_1_WITH_AZ3,
} from '../support/availability-zone-context.js';
import { assemblyOutdir } from '../support/suite-temp-dir.js';

// `null`: no account, as `npm run synth` without credentials.
function build(context: Record<string, unknown>, account: string | null = TEST_ACCOUNT): PlatformApp {
  return buildApp(
    context,
    // Bundling is proven elsewhere (test/infra/global-stack.test.ts); only the network matters here.
    { analyticsReporting: false, outdir: assemblyOutdir(), context: { 'aws:cdk:bundling-stacks': [] } },
    account === null ? {} : { account },
  );
}

interface SubnetResource {
  readonly Properties: { readonly AvailabilityZone: unknown; readonly MapPublicIpOnLaunch?: boolean };
}

/** AZ of every subnet, public and private, in logical-id order. */
function subnetAzs(template: Template): { public: unknown[]; private: unknown[] } {
  const subnets = Object.values(template.findResources('AWS::EC2::Subnet') as Record<string, SubnetResource>);
  return {
    public: subnets
      .filter((s) => s.Properties.MapPublicIpOnLaunch === true)
      .map((s) => s.Properties.AvailabilityZone),
    private: subnets
      .filter((s) => s.Properties.MapPublicIpOnLaunch !== true)
      .map((s) => s.Properties.AvailabilityZone),
  };
}

/** AZs of the subnets the EKS cluster's control plane is placed in. */
function clusterAzs(template: Template): unknown[] {
  const subnets = template.findResources('AWS::EC2::Subnet') as Record<string, SubnetResource>;
  const clusters = Object.values(template.findResources('AWS::EKS::Cluster')) as {
    Properties: { ResourcesVpcConfig: { SubnetIds: { Ref: string }[] } };
  }[];
  expect(clusters).toHaveLength(1);
  return (clusters[0]?.Properties.ResourcesVpcConfig.SubnetIds ?? []).map(
    (ref) => subnets[ref.Ref]?.Properties.AvailabilityZone,
  );
}

const errorsOf = (stack: RegionalStack): unknown[] =>
  Annotations.fromStack(stack)
    .findError('*', Match.anyValue())
    .map((m) => m.entry.data);

const missingKeys = (built: PlatformApp): string[] =>
  (built.app.synth().manifest.missing ?? []).map((m) => m.key);

/** Runs `fn` as the app runs under a CDK CLI that loaded the lookup plugin. */
function withPluginLoaded<T>(fn: () => T): T {
  const before = process.env[AZ_ID_LOOKUP_LOADED_ENV];
  process.env[AZ_ID_LOOKUP_LOADED_ENV] = '1';
  try {
    return fn();
  } finally {
    if (before === undefined) delete process.env[AZ_ID_LOOKUP_LOADED_ENV];
    else process.env[AZ_ID_LOOKUP_LOADED_ENV] = before;
  }
}

describe('account whose us-east-1c is use1-az3 (EKS refuses it)', () => {
  const built = build(availabilityZoneContext(TEST_ACCOUNT, { 'us-east-1': US_EAST_1_WITH_AZ3 }));
  const stack = regionalStackOf(built, 'us-east-1');
  const template = Template.fromStack(stack);

  test('the context keys are the ones the CDK derives from the lookups', () => {
    expect(ContextProvider.getKey(stack, AZ_ID_LOOKUP).key).toBe(idsKey(TEST_ACCOUNT, 'us-east-1'));
    expect(ContextProvider.getKey(stack, { provider: 'availability-zones' }).key).toBe(
      namesKey(TEST_ACCOUNT, 'us-east-1'),
    );
    expect(stack.account).toBe(TEST_ACCOUNT);
  });

  test('the VPC spans 3 AZs without us-east-1c: 3 public and 3 private subnets, 3 NAT gateways', () => {
    expect(stack.network.vpc.availabilityZones).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1d']);
    expect(subnetAzs(template)).toEqual({
      public: ['us-east-1a', 'us-east-1b', 'us-east-1d'],
      private: ['us-east-1a', 'us-east-1b', 'us-east-1d'],
    });
    template.resourceCountIs('AWS::EC2::NatGateway', 3);
  });

  test('the EKS control plane is in the private subnets of those AZs', () => {
    expect(clusterAzs(template)).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1d']);
  });

  test('nothing is left to look up and nothing is wrong', () => {
    expect(missingKeys(built)).toEqual([]);
    expect(errorsOf(stack)).toEqual([]);
  });
});

test('configured AZ IDs are honoured, in their order, mapped to this account’s names', () => {
  const built = build({
    eks: { availability_zone_ids: { 'us-east-1': ['use1-az4', 'use1-az6'] } },
    ...availabilityZoneContext(TEST_ACCOUNT, { 'us-east-1': US_EAST_1_WITH_AZ3 }),
  });
  const stack = regionalStackOf(built, 'us-east-1');
  const template = Template.fromStack(stack);
  expect(subnetAzs(template)).toEqual({
    public: ['us-east-1e', 'us-east-1a'],
    private: ['us-east-1e', 'us-east-1a'],
  });
  expect(clusterAzs(template)).toEqual(['us-east-1e', 'us-east-1a']);
  template.resourceCountIs('AWS::EC2::NatGateway', 2);
  expect(errorsOf(stack)).toEqual([]);
});

test('a configured AZ ID the account does not have is a synth error that names it and the account’s AZs', () => {
  const built = build({
    eks: { availability_zone_ids: { 'us-east-1': ['use1-az1', 'use1-az9'] } },
    ...availabilityZoneContext(TEST_ACCOUNT, { 'us-east-1': US_EAST_1_WITH_AZ3 }),
  });
  expect(errorsOf(regionalStackOf(built, 'us-east-1'))).toEqual([
    'eks.availability_zone_ids.us-east-1 names use1-az9, which account 123456789012 does not have available ' +
      'in us-east-1 (its AZs: us-east-1a=use1-az6, us-east-1b=use1-az1, us-east-1c=use1-az3, ' +
      'us-east-1d=use1-az2, us-east-1e=use1-az4, us-east-1f=use1-az5); configure IDs from that list',
  ]);
});

test('fewer than two usable AZs is a synth error', () => {
  const built = build(
    availabilityZoneContext(TEST_ACCOUNT, {
      'us-east-1': { 'us-east-1a': 'use1-az3', 'us-east-1b': 'use1-az1' },
    }),
  );
  const errors = errorsOf(regionalStackOf(built, 'us-east-1'));
  expect(errors).toHaveLength(1);
  expect(errors[0]).toMatch(
    /^account 123456789012 has fewer than 2 usable Availability Zones in us-east-1 .*us-east-1a=use1-az3, us-east-1b=use1-az1; left out: use1-az3: EKS refuses control-plane subnets there\)/,
  );
});

describe('name→ID map not in the context yet', () => {
  const namesOnly = { [namesKey(TEST_ACCOUNT, 'us-east-1')]: Object.keys(US_EAST_1_WITH_AZ3) };

  test('without the lookup plugin loaded: a synth error telling how to load it', () => {
    const built = build(namesOnly);
    const errors = errorsOf(regionalStackOf(built, 'us-east-1'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^The Availability Zone IDs of account 123456789012 in us-east-1 are not in cdk\.context\.json/,
    );
    expect(errors[0]).toContain('npm run cdk -- <command>');
    expect(errors[0]).toContain('--plugin "$PWD/bin/availability-zone-ids-plugin.cjs"');
    // The CLI is not asked for a lookup it has no provider for.
    expect(missingKeys(built)).toEqual([]);
  });

  test('with the plugin loaded: reported as missing context for the CLI to look up, no error', () => {
    const built = withPluginLoaded(() => build(namesOnly));
    const stack = regionalStackOf(built, 'us-east-1');
    expect(errorsOf(stack)).toEqual([]);
    const missing = built.app.synth().manifest.missing ?? [];
    expect(missing.map((m) => ({ key: m.key, provider: m.provider }))).toEqual([
      { key: idsKey(TEST_ACCOUNT, 'us-east-1'), provider: 'plugin' },
    ]);
    expect(missing[0]?.props).toMatchObject({
      account: TEST_ACCOUNT,
      region: 'us-east-1',
      pluginName: AZ_ID_LOOKUP_PLUGIN,
    });
    // This pass is thrown away; it only must not fail before the CLI has looked the map up.
    expect(stack.network.vpc.availabilityZones).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1c']);
  });

  test('first pass (neither lookup done yet): both reported, no error', () => {
    const built = withPluginLoaded(() => build({}));
    expect(errorsOf(regionalStackOf(built, 'us-east-1'))).toEqual([]);
    expect(missingKeys(built).sort()).toEqual(
      [idsKey(TEST_ACCOUNT, 'us-east-1'), namesKey(TEST_ACCOUNT, 'us-east-1')].sort(),
    );
  });
});

test('a region without an excluded AZ ID needs only the CDK’s names: no ID lookup, first 3 names', () => {
  const built = build({
    regions: ['eu-west-1'],
    [namesKey(TEST_ACCOUNT, 'eu-west-1')]: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'],
  });
  const stack = regionalStackOf(built, 'eu-west-1');
  expect(stack.network.vpc.availabilityZones).toEqual(['eu-west-1a', 'eu-west-1b', 'eu-west-1c']);
  expect(missingKeys(built)).toEqual([]);
  expect(errorsOf(stack)).toEqual([]);
});

test('an accelerator region avoids the AZ ID Global Accelerator takes no endpoints in', () => {
  const built = build({
    regions: ['ap-northeast-1'],
    ...availabilityZoneContext(TEST_ACCOUNT, {
      'ap-northeast-1': {
        'ap-northeast-1a': 'apne1-az4',
        'ap-northeast-1b': 'apne1-az3',
        'ap-northeast-1c': 'apne1-az1',
        'ap-northeast-1d': 'apne1-az2',
      },
    }),
  });
  const stack = regionalStackOf(built, 'ap-northeast-1');
  expect(stack.network.vpc.availabilityZones).toEqual([
    'ap-northeast-1a',
    'ap-northeast-1c',
    'ap-northeast-1d',
  ]);
  expect(errorsOf(stack)).toEqual([]);
});

test('no account (npm run synth without credentials): Fn::GetAZs, 2 AZs, no lookup', () => {
  const built = build({}, null);
  const stack = regionalStackOf(built, 'us-east-1');
  const template = Template.fromStack(stack);
  template.resourceCountIs('AWS::EC2::NatGateway', 2);
  expect(subnetAzs(template).private).toEqual([
    { 'Fn::Select': [0, { 'Fn::GetAZs': '' }] },
    { 'Fn::Select': [1, { 'Fn::GetAZs': '' }] },
  ]);
  expect(missingKeys(built)).toEqual([]);
});

describe('excludedAzIds', () => {
  test('per region, with the reason', () => {
    expect([...excludedAzIds('us-east-1', { accelerated: true })]).toEqual([
      ['use1-az3', 'EKS refuses control-plane subnets there'],
    ]);
    expect([...excludedAzIds('us-west-1', { accelerated: true })]).toEqual([
      ['usw1-az2', 'EKS refuses control-plane subnets there'],
    ]);
    expect([...excludedAzIds('ap-northeast-1', { accelerated: true })]).toEqual([
      ['apne1-az3', 'Global Accelerator takes no endpoints there'],
    ]);
    expect([...excludedAzIds('ap-northeast-1', { accelerated: false })]).toEqual([]);
    expect([...excludedAzIds('eu-west-1', { accelerated: true })]).toEqual([]);
  });
});

describe('chooseAvailabilityZones', () => {
  const request = {
    region: 'us-east-1',
    account: TEST_ACCOUNT,
    names: Object.keys(US_EAST_1_WITH_AZ3),
    idsByName: US_EAST_1_WITH_AZ3,
    excluded: excludedAzIds('us-east-1', { accelerated: true }),
  };

  test('at most three, in the names’ order, none excluded', () => {
    expect(chooseAvailabilityZones(request)).toEqual({ names: ['us-east-1a', 'us-east-1b', 'us-east-1d'] });
  });

  test('a name missing from the ID map is not used (a Local Zone, or a zone that became available since)', () => {
    const { 'us-east-1b': _dropped, ...withoutB } = US_EAST_1_WITH_AZ3;
    expect(chooseAvailabilityZones({ ...request, idsByName: withoutB })).toEqual({
      names: ['us-east-1a', 'us-east-1d', 'us-east-1e'],
    });
  });

  test('configured IDs: all of them, as given', () => {
    expect(
      chooseAvailabilityZones({
        ...request,
        configuredIds: ['use1-az5', 'use1-az1', 'use1-az2', 'use1-az4'],
      }),
    ).toEqual({ names: ['us-east-1f', 'us-east-1b', 'us-east-1d', 'us-east-1e'] });
  });
});
