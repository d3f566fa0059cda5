import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import type { Stack } from 'aws-cdk-lib';
import { buildApp } from '../../lib/app-builder.js';
import type { PlatformApp } from '../../lib/app-builder.js';
import { ConfigError } from '../../lib/config.js';

// Version reporting embeds a library-version hash in every template; keep it out of the snapshots.
const build = (context: Record<string, unknown>): PlatformApp =>
  buildApp(context, { analyticsReporting: false });

const cdkJsonContext = (): Record<string, unknown> =>
  (JSON.parse(readFileSync(join(process.cwd(), 'cdk.json'), 'utf8')) as { context: Record<string, unknown> })
    .context;

const stacksOf = (built: PlatformApp): Stack[] => [built.globalStack, ...built.regionalStacks.values()];

// Built from parts so this file holds no hard-coded partition either.
const HARD_CODED_ARN = ['arn', 'aws'].join(':');

const configs: [string, Record<string, unknown>, Record<string, string>][] = [
  ['default (cdk.json)', cdkJsonContext(), { 'gco-global': 'us-east-2', 'gco-us-east-1': 'us-east-1' }],
  [
    'two regions',
    { project_name: 'acme', regions: ['us-east-1', 'eu-west-1'] },
    { 'acme-global': 'us-east-2', 'acme-us-east-1': 'us-east-1', 'acme-eu-west-1': 'eu-west-1' },
  ],
  [
    'us-gov',
    { global_region: 'us-gov-west-1', regions: ['us-gov-west-1', 'us-gov-east-1'] },
    {
      'gco-global': 'us-gov-west-1',
      'gco-us-gov-west-1': 'us-gov-west-1',
      'gco-us-gov-east-1': 'us-gov-east-1',
    },
  ],
];

describe.each(configs)('%s config', (_name, context, expectedStacks) => {
  const built = build(context);

  test('creates the global stack and one stack per region, each in its region', () => {
    const actual = Object.fromEntries(stacksOf(built).map((s) => [s.stackName, s.region]));
    expect(actual).toEqual(expectedStacks);
    expect(built.app.node.children.map((c) => c.node.id)).toEqual(Object.keys(expectedStacks));
  });

  test('every stack is tagged with the project and described', () => {
    const assembly = built.app.synth();
    for (const stack of stacksOf(built)) {
      // Stack tags reach CloudFormation through the cloud assembly, which propagates them to resources.
      expect(assembly.getStackByName(stack.stackName).tags).toEqual({ Project: built.config.projectName });
      expect(stack.templateOptions.description).toMatch(new RegExp(`^${built.config.projectName} `));
    }
  });

  test('templates match their snapshots', () => {
    for (const stack of stacksOf(built)) {
      expect(Template.fromStack(stack).toJSON()).toMatchSnapshot(stack.stackName);
    }
  });

  test(`no template hard-codes a partition`, () => {
    for (const stack of stacksOf(built)) {
      const json = JSON.stringify(Template.fromStack(stack).toJSON());
      expect(json).not.toContain(HARD_CODED_ARN);
      Template.fromStack(stack).hasOutput('Partition', { Value: { Ref: 'AWS::Partition' } });
    }
  });
});

describe('invalid config', () => {
  test('buildApp throws ConfigError', () => {
    expect(() => build({ regions: ['nope-1'] })).toThrow(ConfigError);
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
