// The AZ lookup end to end, through the pinned CDK CLI and the real app: the CLI finds the account, runs its
// own AZ-name lookup and the plugin's name→ID lookup, caches both in cdk.context.json and synthesizes the
// region with subnets outside use1-az3. STS and EC2 are a local HTTP server (AWS_ENDPOINT_URL) that
// answers the three query-protocol calls the CLI and the plugin make.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { idsKey, namesKey, TEST_ACCOUNT, US_EAST_1_WITH_AZ3 } from '../support/availability-zone-context.js';

const repo = process.cwd();
const calls: string[] = [];
let server: Server;
let endpoint = '';
let dir = '';

const xml = (root: string, namespace: string, inner: string): string =>
  `<${root} xmlns="${namespace}">${inner}</${root}>`;
const STS = 'https://sts.amazonaws.com/doc/2011-06-15/';

/** STS GetCallerIdentity and AssumeRole (refused: the account is not bootstrapped), EC2 DescribeAvailabilityZones. */
function answer(action: string): { status: number; body: string } {
  switch (action) {
    case 'GetCallerIdentity':
      return {
        status: 200,
        body: xml(
          'GetCallerIdentityResponse',
          STS,
          `<GetCallerIdentityResult><Arn>arn:aws:iam::${TEST_ACCOUNT}:user/deployer</Arn><UserId>AIDATEST</UserId>` +
            `<Account>${TEST_ACCOUNT}</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>1</RequestId></ResponseMetadata>`,
        ),
      };
    case 'AssumeRole':
      return {
        status: 403,
        body: xml(
          'ErrorResponse',
          STS,
          '<Error><Type>Sender</Type><Code>AccessDenied</Code><Message>no lookup role</Message></Error><RequestId>1</RequestId>',
        ),
      };
    case 'DescribeAvailabilityZones': {
      const items = Object.entries(US_EAST_1_WITH_AZ3)
        .map(
          ([name, id]) =>
            `<item><zoneName>${name}</zoneName><zoneId>${id}</zoneId><zoneState>available</zoneState>` +
            '<regionName>us-east-1</regionName><zoneType>availability-zone</zoneType></item>',
        )
        .join('');
      return {
        status: 200,
        body: xml(
          'DescribeAvailabilityZonesResponse',
          'http://ec2.amazonaws.com/doc/2016-11-15/',
          `<requestId>1</requestId><availabilityZoneInfo>${items}</availabilityZoneInfo>`,
        ),
      };
    }
    default:
      return {
        status: 400,
        body: `<ErrorResponse><Error><Code>Unsupported</Code><Message>${action}</Message></Error></ErrorResponse>`,
      };
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const action = new URLSearchParams(body).get('Action') ?? '?';
      calls.push(action);
      const { status, body: reply } = answer(action);
      res.writeHead(status, { 'content-type': 'text/xml' }).end(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // A project directory of its own: the CLI writes cdk.context.json and cdk.out there, not in the repository.
  dir = mkdtempSync(join(tmpdir(), 'gco-az-lookup-'));
  const cdkJson = JSON.parse(readFileSync(join(repo, 'cdk.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(
    join(dir, 'cdk.json'),
    JSON.stringify({ ...cdkJson, app: `${join(repo, 'node_modules/.bin/tsx')} ${join(repo, 'bin/app.ts')}` }),
  );
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** `cdk synth` of the us-east-1 stack with credentials for TEST_ACCOUNT, with or without the plugin. */
async function synth(withPlugin: boolean): Promise<{ code: number | null; output: string }> {
  const plugin = withPlugin ? ['--plugin', join(repo, 'bin/availability-zone-ids-plugin.cjs')] : [];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    AWS_ACCESS_KEY_ID: 'AKIDTEST',
    AWS_SECRET_ACCESS_KEY: 'test-secret',
    AWS_REGION: 'us-east-1',
    AWS_ENDPOINT_URL: endpoint,
    AWS_EC2_METADATA_DISABLED: 'true',
    CDK_DISABLE_CLI_TELEMETRY: 'true',
    // The CLI caches the account under CDK_HOME (default ~/.cdk) and the SDK reads ~/.aws: keep both
    // inside the test's directory.
    CDK_HOME: join(dir, '.cdk'),
    HOME: dir,
  };
  delete env.AWS_PROFILE;
  delete env.AWS_SESSION_TOKEN;
  const cli = join(repo, 'node_modules/aws-cdk/bin/cdk');
  const child = spawn(
    process.execPath,
    [cli, '--no-notices', ...plugin, 'synth', '--quiet', '--exclusively', 'gco-us-east-1'],
    {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, output };
}

const contextFile = (): Record<string, unknown> =>
  existsSync(join(dir, 'cdk.context.json'))
    ? (JSON.parse(readFileSync(join(dir, 'cdk.context.json'), 'utf8')) as Record<string, unknown>)
    : {};

test('without the plugin the synth fails with the message; with it the map is cached and use1-az3 avoided', async () => {
  const without = await synth(false);
  expect(without.code).toBe(1);
  expect(without.output).toContain(
    `The Availability Zone IDs of account ${TEST_ACCOUNT} in us-east-1 are not in cdk.context.json, and the lookup plugin that finds them is not loaded`,
  );
  expect(contextFile()[idsKey(TEST_ACCOUNT, 'us-east-1')]).toBeUndefined();

  calls.length = 0;
  const withPlugin = await synth(true);
  expect({ code: withPlugin.code, output: withPlugin.code === 0 ? '' : withPlugin.output }).toEqual({
    code: 0,
    output: '',
  });
  // The names were cached by the first run (and the account by the CLI): only the plugin called AWS. It
  // tried the lookup role, then the default credentials.
  expect(calls.filter((action) => action !== 'GetCallerIdentity')).toEqual([
    'AssumeRole',
    'DescribeAvailabilityZones',
  ]);
  expect(contextFile()).toEqual({
    [namesKey(TEST_ACCOUNT, 'us-east-1')]: Object.keys(US_EAST_1_WITH_AZ3),
    [idsKey(TEST_ACCOUNT, 'us-east-1')]: US_EAST_1_WITH_AZ3,
  });
  const template = JSON.parse(readFileSync(join(dir, 'cdk.out/gco-us-east-1.template.json'), 'utf8')) as {
    Resources: Record<string, { Type: string; Properties: { AvailabilityZone?: unknown } }>;
  };
  const resources = Object.values(template.Resources);
  expect(
    resources.filter((r) => r.Type === 'AWS::EC2::Subnet').map((r) => r.Properties.AvailabilityZone),
  ).toEqual(['us-east-1a', 'us-east-1b', 'us-east-1d', 'us-east-1a', 'us-east-1b', 'us-east-1d']);
  expect(resources.filter((r) => r.Type === 'AWS::EC2::NatGateway')).toHaveLength(3);
}, 300_000);
