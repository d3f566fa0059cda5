/**
 * Discovery of a deployed stage: `gco` (the real executable) reads the API URLs from CloudFormation
 * DescribeStacks — answered by the local stand-in speaking the query protocol to the real SDK client —
 * with credentials from the standard chain. The stand-in serves the outputs the synthesized stacks
 * really declare (read from the templates here), so the CLI's output names cannot drift from lib/stacks.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../../lib/app-builder.js';
import {
  STACK_OUTPUTS,
  analyticsStackName,
  globalStackName,
  regionalStackName,
} from '../../../cli/stack-outputs.js';
import {
  startCloudFormationStandIn,
  type CloudFormationStandIn,
} from '../../../local/aws-stand-ins/index.js';
import { staticCredentialStore } from '../../../local/credentials.js';
import { gco, jsonLines } from './support/gco-process.js';
import { assemblyOutdir, suiteTempDir } from '../../support/suite-temp-dir.js';

const CREDENTIALS = { accessKeyId: 'AKIADISCOVERYTEST001', secretAccessKey: 'discovery-secret' };
const URLS = {
  global: 'https://g1a2b3c4d5.execute-api.us-east-2.amazonaws.com/prod/',
  regional: 'https://r1a2b3c4d5.execute-api.us-east-1.amazonaws.com/prod/',
  analytics: 'https://a1a2b3c4d5.execute-api.us-east-2.amazonaws.com/live/',
};

/** Output keys of each synthesized stack. */
let outputs: { global: string[]; regional: string[]; analytics: string[] };
let names: { global: string; regional: string; analytics: string };
let cloudformation: CloudFormationStandIn;
let env: Record<string, string>;

const outputKeys = (template: Template) =>
  Object.keys((template.toJSON() as { Outputs?: object }).Outputs ?? {});

/** Every synthesized output, with the API URLs a deployment would have resolved. */
function deployedOutputs(keys: string[], urls: Record<string, string>): Record<string, string> {
  return Object.fromEntries(keys.map((key) => [key, urls[key] ?? `value of ${key}`]));
}

beforeAll(async () => {
  const built = buildApp(
    { analytics_api: { enabled: true } },
    { analyticsReporting: false, outdir: assemblyOutdir(), context: { 'aws:cdk:bundling-stacks': [] } },
  );
  const regional = built.regionalStacks.get('us-east-1');
  if (regional === undefined || built.analyticsStack === undefined) throw new Error('stacks missing');
  names = {
    global: built.globalStack.stackName,
    regional: regional.stackName,
    analytics: built.analyticsStack.stackName,
  };
  outputs = {
    global: outputKeys(Template.fromStack(built.globalStack)),
    regional: outputKeys(Template.fromStack(regional)),
    analytics: outputKeys(Template.fromStack(built.analyticsStack)),
  };

  cloudformation = await startCloudFormationStandIn({
    accountId: '000000000000',
    credentials: staticCredentialStore([
      {
        ...CREDENTIALS,
        principal: {
          arn: 'arn:aws:iam::000000000000:user/dev',
          accountId: '000000000000',
          userId: 'AIDADEV',
        },
      },
    ]),
  });
  cloudformation.putStack('us-east-2', {
    name: names.global,
    outputs: deployedOutputs(outputs.global, { [STACK_OUTPUTS.globalApiUrl]: URLS.global }),
  });
  cloudformation.putStack('us-east-1', {
    name: names.regional,
    outputs: deployedOutputs(outputs.regional, { [STACK_OUTPUTS.regionalApiUrl]: URLS.regional }),
  });
  cloudformation.putStack('us-east-2', {
    name: names.analytics,
    outputs: deployedOutputs(outputs.analytics, { [STACK_OUTPUTS.analyticsApiUrl]: URLS.analytics }),
  });
  // A stack of an older platform version without the URL output.
  cloudformation.putStack('us-east-2', { name: 'old-global', outputs: { Partition: 'aws' } });
  env = {
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_CLOUDFORMATION: cloudformation.endpoint,
  };
}, 120_000);
afterAll(() => cloudformation?.close());

test('the stacks gco reads are the stacks the app synthesizes, with the outputs gco reads', () => {
  expect(names).toEqual({
    global: globalStackName('gco'),
    regional: regionalStackName('gco', 'us-east-1'),
    analytics: analyticsStackName('gco'),
  });
  expect(outputs.global).toContain(STACK_OUTPUTS.globalApiUrl);
  expect(outputs.regional).toContain(STACK_OUTPUTS.regionalApiUrl);
  expect(outputs.analytics).toContain(STACK_OUTPUTS.analyticsApiUrl);
});

describe('gco endpoints through DescribeStacks', () => {
  test('the global and analytics APIs, signed for their regions', async () => {
    const result = await gco(['endpoints', '-o', 'json'], { env });
    expect(result.code).toBe(0);
    expect(jsonLines(result)).toEqual([
      [
        { use: 'control plane, inference', url: URLS.global.slice(0, -1), region: 'us-east-2' },
        {
          use: 'aggregate (status, health, --all-regions)',
          url: URLS.global.slice(0, -1),
          region: 'us-east-2',
        },
        { use: 'analytics', url: URLS.analytics.slice(0, -1), region: 'us-east-2' },
      ],
    ]);
  });

  test('--region reads the regional stack in its own region', async () => {
    const result = await gco(['--region', 'us-east-1', 'endpoints', '-o', 'json'], { env });
    expect(result.code).toBe(0);
    expect((jsonLines(result)[0] as { url: string; region: string }[])[0]).toMatchObject({
      url: URLS.regional.slice(0, -1),
      region: 'us-east-1',
    });
  });

  test('a project that is not deployed: exit 3 naming the stack and what to check', async () => {
    const result = await gco(['--project', 'nothere', 'endpoints'], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('Stack nothere-global does not exist in us-east-2');
    expect(result.stderr).toMatch(/hint: .*--project/);
  });

  test('a stack without the output: exit 3', async () => {
    const result = await gco(['--project', 'old', 'health'], { env });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      `Stack old-global in us-east-2 has no output ${STACK_OUTPUTS.globalApiUrl}`,
    );
  });

  test('credentials CloudFormation refuses: exit 3 with what to do', async () => {
    const result = await gco(['health'], { env: { ...env, AWS_SECRET_ACCESS_KEY: 'wrong' } });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/AWS refused the credentials/);
  });

  test('answers are cached briefly on disk: a second run needs no CloudFormation', async () => {
    const cacheEnv = {
      ...env,
      GCO_CACHE_DIR: join(suiteTempDir('gco-discovery-cache-'), 'cache'),
    };
    expect((await gco(['endpoints', '-o', 'json'], { env: cacheEnv })).code).toBe(0);
    const unreachable = { ...cacheEnv, AWS_ENDPOINT_URL_CLOUDFORMATION: 'http://127.0.0.1:9' };
    const cached = await gco(['endpoints', '-o', 'json'], { env: unreachable });
    expect(cached.code).toBe(0);
    expect((jsonLines(cached)[0] as { url: string }[])[0]?.url).toBe(URLS.global.slice(0, -1));
    const uncached = await gco(['endpoints'], { env: { ...unreachable, GCO_DISCOVERY_TTL_SECONDS: '0' } });
    expect(uncached.code).toBe(3);
    expect(uncached.stderr).toContain('Could not read stack gco-global in us-east-2');
  });
});
