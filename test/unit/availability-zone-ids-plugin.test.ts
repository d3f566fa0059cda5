// The CDK CLI plugin that looks up an account's AZ name → AZ ID map (bin/availability-zone-ids-lookup.ts):
// how the CLI loads and registers it, and its getValue against EC2 (aws-sdk-client-mock: no local EC2).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from '@jest/globals';
import { DescribeAvailabilityZonesCommand, EC2Client } from '@aws-sdk/client-ec2';
import type { AvailabilityZone } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { lookUpAvailabilityZoneIds, plugin } from '../../bin/availability-zone-ids-lookup.js';
import type { LookupArgs } from '../../bin/availability-zone-ids-lookup.js';
import { AZ_ID_LOOKUP_LOADED_ENV, AZ_ID_LOOKUP_PLUGIN } from '../../lib/availability-zones.js';

const ec2 = mockClient(EC2Client);
afterEach(() => {
  ec2.reset();
});

// What the CLI passes: the app's props plus account, region and the resolved bootstrap lookup role.
const args: LookupArgs = {
  pluginName: AZ_ID_LOOKUP_PLUGIN,
  account: '123456789012',
  region: 'us-east-1',
  dummyValue: {},
  lookupRoleArn: 'arn:aws-test:iam::123456789012:role/cdk-hnb659fds-lookup-role-123456789012-us-east-1',
};

const zones: { AvailabilityZones: AvailabilityZone[] } = {
  AvailabilityZones: [
    { ZoneName: 'us-east-1a', ZoneId: 'use1-az6', State: 'available', ZoneType: 'availability-zone' },
    { ZoneName: 'us-east-1b', ZoneId: 'use1-az3', State: 'available', ZoneType: 'availability-zone' },
    { ZoneName: 'us-east-1c', ZoneId: 'use1-az1', State: 'impaired', ZoneType: 'availability-zone' },
    { ZoneName: 'us-east-1d', ZoneId: 'use1-az2', State: 'available' },
    // An opted-in Local Zone: DescribeAvailabilityZones lists it, the VPC must not use it.
    { ZoneName: 'us-east-1-bos-1a', ZoneId: 'use1-bos1-az1', State: 'available', ZoneType: 'local-zone' },
  ],
};

describe('getValue', () => {
  test('maps the available standard AZs of the region, asked in that region', async () => {
    ec2.on(DescribeAvailabilityZonesCommand).resolves(zones);
    await expect(lookUpAvailabilityZoneIds(args)).resolves.toEqual({
      'us-east-1a': 'use1-az6',
      'us-east-1b': 'use1-az3',
      'us-east-1d': 'use1-az2',
    });
    expect(ec2.commandCalls(DescribeAvailabilityZonesCommand)).toHaveLength(1);
    const client = ec2.call(0).thisValue as EC2Client;
    await expect(client.config.region()).resolves.toBe('us-east-1');
  });

  test('falls back to the default credentials when the lookup role does not work', async () => {
    ec2
      .on(DescribeAvailabilityZonesCommand)
      .rejectsOnce(new Error('not authorized to perform sts:AssumeRole'))
      .resolves(zones);
    await expect(lookUpAvailabilityZoneIds(args)).resolves.toHaveProperty('us-east-1a', 'use1-az6');
    expect(ec2.commandCalls(DescribeAvailabilityZonesCommand)).toHaveLength(2);
    // Two clients: the lookup role's, then one with the default chain.
    expect(ec2.call(0).thisValue).not.toBe(ec2.call(1).thisValue);
  });

  test('says what failed with both credentials', async () => {
    ec2
      .on(DescribeAvailabilityZonesCommand)
      .rejectsOnce(new Error('role: access denied'))
      .rejectsOnce(new Error('default: no credentials'));
    await expect(lookUpAvailabilityZoneIds(args)).rejects.toThrow(
      `${AZ_ID_LOOKUP_PLUGIN}: DescribeAvailabilityZones in us-east-1 failed with the lookup role ` +
        `${String(args.lookupRoleArn)} (role: access denied) and with the default credentials (default: no credentials)`,
    );
  });

  test('without a lookup role: the default credentials only', async () => {
    ec2.on(DescribeAvailabilityZonesCommand).rejects(new Error('no credentials'));
    const { lookupRoleArn: _none, ...withoutRole } = args;
    await expect(lookUpAvailabilityZoneIds(withoutRole)).rejects.toThrow('no credentials');
    expect(ec2.commandCalls(DescribeAvailabilityZonesCommand)).toHaveLength(1);
  });

  test('a lookup without a region is refused before any call', async () => {
    await expect(lookUpAvailabilityZoneIds({ ...args, region: undefined })).rejects.toThrow(/needs a region/);
    expect(ec2.calls()).toHaveLength(0);
  });
});

describe('registration', () => {
  test('init registers the provider under the plugin name and tells the app it is loaded', async () => {
    const before = process.env[AZ_ID_LOOKUP_LOADED_ENV];
    delete process.env[AZ_ID_LOOKUP_LOADED_ENV];
    const registered = new Map<string, { getValue(a: LookupArgs): Promise<unknown> }>();
    try {
      expect(plugin.version).toBe('1');
      plugin.init({ registerContextProviderAlpha: (name, provider) => registered.set(name, provider) });
      expect([...registered.keys()]).toEqual([AZ_ID_LOOKUP_PLUGIN]);
      expect(process.env[AZ_ID_LOOKUP_LOADED_ENV]).toBe('1');
      ec2.on(DescribeAvailabilityZonesCommand).resolves(zones);
      await expect(registered.get(AZ_ID_LOOKUP_PLUGIN)?.getValue(args)).resolves.toHaveProperty(
        'us-east-1b',
        'use1-az3',
      );
    } finally {
      if (before === undefined) delete process.env[AZ_ID_LOOKUP_LOADED_ENV];
      else process.env[AZ_ID_LOOKUP_LOADED_ENV] = before;
    }
  });

  test('the pinned CDK CLI loads the .cjs entry with --plugin and its app sees the plugin loaded', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gco-az-plugin-'));
    try {
      const cli = spawnSync(
        process.execPath,
        [
          join(process.cwd(), 'node_modules/aws-cdk/bin/cdk'),
          '--no-notices',
          '--plugin',
          join(process.cwd(), 'bin/availability-zone-ids-plugin.cjs'),
          '--app',
          // A stand-in app: reports what the CLI's child process sees, then fails the synth on purpose.
          `node -e "console.log('loaded=' + process.env.${AZ_ID_LOOKUP_LOADED_ENV}); process.exit(3)"`,
          'synth',
        ],
        {
          cwd: dir,
          encoding: 'utf8',
          timeout: 60_000,
          env: {
            ...process.env,
            [AZ_ID_LOOKUP_LOADED_ENV]: '',
            CDK_DISABLE_CLI_TELEMETRY: 'true',
            AWS_EC2_METADATA_DISABLED: 'true',
            // The CLI's caches stay in the test's directory.
            CDK_HOME: join(dir, '.cdk'),
          },
        },
      );
      const output = `${cli.stdout}\n${cli.stderr}`;
      expect(output).not.toMatch(/Unable to (resolve|load) plug-in/);
      expect(output).toContain('loaded=1');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
