/**
 * CDK CLI context-provider plugin: an account's AZ name → AZ ID map for one region, which the regional
 * stacks need to keep their subnets out of the AZ IDs EKS refuses (lib/availability-zone-lookup.ts). The
 * CLI calls it for a missing `plugin:account=…:pluginName=gco-availability-zone-ids:region=…` context
 * key and caches the answer in cdk.context.json, like its own lookups.
 *
 * The CLI hands plugins no credentials (only the props, the account, the region and the resolved
 * bootstrap lookup role ARN), so this does what the CLI's own lookups do: assume the lookup role, and
 * fall back to the default credential chain when that is not possible.
 *
 * Loaded through bin/availability-zone-ids-plugin.cjs (the CLI require()s plugins; a different base
 * name, so module resolution never takes one file for the other).
 */
import { DescribeAvailabilityZonesCommand, EC2Client } from '@aws-sdk/client-ec2';
import type { EC2ClientConfig } from '@aws-sdk/client-ec2';
import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import { AZ_ID_LOOKUP_LOADED_ENV, AZ_ID_LOOKUP_PLUGIN } from '../lib/availability-zones.js';
import type { AzIdsByName } from '../lib/availability-zones.js';

/** What the CLI passes to `getValue`: the app's lookup props with account, region and lookupRoleArn. */
export type LookupArgs = Readonly<Record<string, unknown>>;

/** The part of the CLI's PluginHost (toolkit-lib `PluginHost`) a context-provider plugin uses. */
export interface ContextProviderHost {
  registerContextProviderAlpha(
    name: string,
    provider: { getValue(args: LookupArgs): Promise<unknown> },
  ): void;
}

/** The name→ID map of the standard AZs (no Local or Wavelength Zones) available to the account. */
export async function lookUpAvailabilityZoneIds(args: LookupArgs): Promise<AzIdsByName> {
  const { region, lookupRoleArn } = args;
  if (typeof region !== 'string' || region === '') {
    throw new Error(`${AZ_ID_LOOKUP_PLUGIN}: the lookup needs a region, got ${JSON.stringify(region)}`);
  }
  if (typeof lookupRoleArn !== 'string' || lookupRoleArn === '') return describe({ region });
  try {
    return await describe({
      region,
      credentials: fromTemporaryCredentials({
        params: { RoleArn: lookupRoleArn, RoleSessionName: 'gco-availability-zone-ids' },
        clientConfig: { region },
      }),
    });
  } catch (roleError) {
    try {
      return await describe({ region });
    } catch (defaultError) {
      throw new Error(
        `${AZ_ID_LOOKUP_PLUGIN}: DescribeAvailabilityZones in ${region} failed with the lookup role ` +
          `${lookupRoleArn} (${messageOf(roleError)}) and with the default credentials (${messageOf(defaultError)})`,
      );
    }
  }
}

async function describe(config: EC2ClientConfig): Promise<AzIdsByName> {
  const ec2 = new EC2Client(config);
  try {
    const { AvailabilityZones: zones = [] } = await ec2.send(new DescribeAvailabilityZonesCommand({}));
    const map: Record<string, string> = {};
    for (const zone of zones) {
      // The CDK's own AZ lookup keeps State "available" only; the VPC chooses among those names.
      if (zone.State !== 'available' || (zone.ZoneType ?? 'availability-zone') !== 'availability-zone')
        continue;
      if (zone.ZoneName && zone.ZoneId) map[zone.ZoneName] = zone.ZoneId;
    }
    return map;
  } finally {
    ec2.destroy();
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The plugin module the CLI loads (`version: '1'` is what its PluginHost accepts). */
export const plugin = {
  version: '1' as const,
  init(host: ContextProviderHost): void {
    host.registerContextProviderAlpha(AZ_ID_LOOKUP_PLUGIN, { getValue: lookUpAvailabilityZoneIds });
    // The app (a child process of the CLI) sees this and asks for the map instead of failing.
    process.env[AZ_ID_LOOKUP_LOADED_ENV] = '1';
  },
};
