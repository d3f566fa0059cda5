// The whole CDK app under every configuration the issue names: which stacks exist and where, a snapshot
// of every stack, cdk-nag (AwsSolutions + Serverless) on every stack, and no hard-coded partition.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { Template } from 'aws-cdk-lib/assertions';
import type { Stack } from 'aws-cdk-lib';
import { buildApp } from '../../lib/app-builder.js';
import type { PlatformApp } from '../../lib/app-builder.js';
import { ConfigError } from '../../lib/config.js';
import { TEST_ACCOUNT, testAccountContext } from '../support/availability-zone-context.js';
import {
  addNagPacks,
  cdkJsonContext,
  HARD_CODED_ARN,
  nagErrors,
  snapshotOf,
} from '../support/stack-templates.js';

// Version reporting embeds a library-version hash in every template; keep it out of the snapshots.
function build(context: Record<string, unknown>, account: string | undefined): PlatformApp {
  // Bundling is proven by test/infra/global-stack.test.ts and `npm run synth`; asset hashes are masked
  // in the snapshots anyway, so skipping it here only saves time.
  const built = buildApp(
    context,
    {
      analyticsReporting: false,
      context: { 'aws:cdk:bundling-stacks': [] },
    },
    account === undefined ? {} : { account },
  );
  // Aspects must be in place before the first synth.
  addNagPacks(built.app);
  return built;
}

const stacksOf = (built: PlatformApp): Stack[] => [
  built.globalStack,
  ...built.regionalStacks.values(),
  ...(built.analyticsStack ? [built.analyticsStack] : []),
];

// The optional account: the shape `cdk deploy` synthesizes (the CLI has credentials, so every stack has
// the account, and the AZ lookups are in cdk.context.json): 3 AZs and 3 NAT gateways per region.
const configs: [string, Record<string, unknown>, Record<string, string>, string?][] = [
  ['default (cdk.json)', cdkJsonContext(), { 'gco-global': 'us-east-2', 'gco-us-east-1': 'us-east-1' }],
  [
    'three regions',
    { project_name: 'acme', regions: ['us-east-1', 'eu-west-1', 'ap-southeast-2'] },
    {
      'acme-global': 'us-east-2',
      'acme-us-east-1': 'us-east-1',
      'acme-eu-west-1': 'eu-west-1',
      'acme-ap-southeast-2': 'ap-southeast-2',
    },
  ],
  [
    'aws-us-gov partition',
    { global_region: 'us-gov-west-1', regions: ['us-gov-west-1', 'us-gov-east-1'] },
    {
      'gco-global': 'us-gov-west-1',
      'gco-us-gov-west-1': 'us-gov-west-1',
      'gco-us-gov-east-1': 'us-gov-east-1',
    },
  ],
  [
    'analytics environment on',
    { analytics_environment: { enabled: true } },
    { 'gco-global': 'us-east-2', 'gco-us-east-1': 'us-east-1' },
  ],
  [
    'regional API enabled',
    { api_gateway: { regional_api_enabled: true } },
    { 'gco-global': 'us-east-2', 'gco-us-east-1': 'us-east-1' },
  ],
  [
    'analytics API enabled',
    { analytics_api: { enabled: true } },
    { 'gco-global': 'us-east-2', 'gco-us-east-1': 'us-east-1', 'gco-analytics': 'us-east-2' },
  ],
  [
    'default with account + AZ context',
    { ...cdkJsonContext(), ...testAccountContext() },
    { 'gco-global': 'us-east-2', 'gco-us-east-1': 'us-east-1' },
    TEST_ACCOUNT,
  ],
  [
    'three regions with account + AZ context',
    { project_name: 'acme', regions: ['us-east-1', 'eu-west-1', 'ap-southeast-2'], ...testAccountContext() },
    {
      'acme-global': 'us-east-2',
      'acme-us-east-1': 'us-east-1',
      'acme-eu-west-1': 'eu-west-1',
      'acme-ap-southeast-2': 'ap-southeast-2',
    },
    TEST_ACCOUNT,
  ],
];

describe.each(configs)('%s', (_name, context, expectedStacks, account) => {
  const built = build(context, account);

  test('creates the expected stacks, each in its region', () => {
    const actual = Object.fromEntries(stacksOf(built).map((s) => [s.stackName, s.region]));
    expect(actual).toEqual(expectedStacks);
  });

  test('regional stacks deploy after the global stack', () => {
    for (const stack of built.regionalStacks.values()) {
      expect(stack.dependencies).toContain(built.globalStack);
    }
  });

  test('every stack is tagged with the project and described', () => {
    const assembly = built.app.synth();
    for (const stack of stacksOf(built)) {
      // Stack tags reach CloudFormation through the cloud assembly, which propagates them to resources.
      expect(assembly.getStackByName(stack.stackName).tags).toEqual({ Project: built.config.projectName });
      expect(stack.templateOptions.description).toMatch(new RegExp(`^${built.config.projectName} `));
    }
  });

  test('every context lookup is answered (nothing left for the CLI to look up)', () => {
    expect(built.app.synth().manifest.missing ?? []).toEqual([]);
  });

  test('templates match their snapshots', () => {
    for (const stack of stacksOf(built)) {
      expect(snapshotOf(stack)).toMatchSnapshot(stack.stackName);
    }
  });

  test('cdk-nag AwsSolutions and Serverless: no unsuppressed error in any stack', () => {
    for (const stack of stacksOf(built)) {
      expect({ stack: stack.stackName, errors: nagErrors(stack) }).toEqual({
        stack: stack.stackName,
        errors: [],
      });
    }
  });

  test('no template hard-codes a partition', () => {
    for (const stack of stacksOf(built)) {
      const json = JSON.stringify(Template.fromStack(stack).toJSON());
      expect(json).not.toContain(HARD_CODED_ARN);
    }
  });
});

test('lib/ holds no hard-coded partition', () => {
  // grep exits 1 when nothing matches: that is the passing case.
  const grep = spawnSync('grep', ['-rln', HARD_CODED_ARN, 'lib', 'bin'], {
    encoding: 'utf8',
  });
  expect({ status: grep.status, files: grep.stdout.trim() }).toEqual({ status: 1, files: '' });
});

describe('invalid config', () => {
  test('buildApp throws ConfigError', () => {
    expect(() => buildApp({ regions: ['nope-1'] })).toThrow(ConfigError);
  });

  test('bin/app.ts prints the problems without a stack trace and exits non-zero', () => {
    let status = 0;
    let stderr = '';
    try {
      execFileSync(join(process.cwd(), 'node_modules/.bin/tsx'), ['bin/app.ts'], {
        // The CDK CLI hands the context to the app this way.
        env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify({ regions: ['nope-1'], stage: 'a b' }) },
        stdio: 'pipe',
        encoding: 'utf8',
      });
    } catch (error) {
      const failed = error as { status: number; stderr: string };
      status = failed.status;
      stderr = failed.stderr;
    }
    expect(status).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      'Invalid cdk.json context "regions[0]": expected a known AWS region code such as "us-east-1", got "nope-1"',
      'Invalid cdk.json context "stage": expected an API Gateway stage name: 1-128 letters, digits, hyphens or underscores, got "a b"',
    ]);
  });
});
