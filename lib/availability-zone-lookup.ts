/**
 * Which AZ names a regional stack's VPC (and so its subnets, NAT gateways and EKS cluster) uses, from two
 * lookups cached in cdk.context.json: the CDK's own `availability-zones` (names only) and this app's
 * name→ID map (bin/availability-zone-ids-plugin.cjs). Only an account-specific stack looks anything up;
 * an environment-agnostic one (`npm run synth` without credentials) keeps CloudFormation's Fn::GetAZs.
 */
import { Annotations, ContextProvider, Stack, Token } from 'aws-cdk-lib';
import type { GetContextKeyOptions } from 'aws-cdk-lib';
import { ContextProvider as LookupProvider } from 'aws-cdk-lib/cloud-assembly-schema';
import { PROVIDER_ERROR_KEY } from 'aws-cdk-lib/cx-api';
import type { Construct } from 'constructs';
import {
  AZ_ID_LOOKUP_LOADED_ENV,
  AZ_ID_LOOKUP_PLUGIN,
  chooseAvailabilityZones,
  excludedAzIds,
  MAX_CHOSEN_AZS,
} from './availability-zones.js';
import type { AzIdsByName } from './availability-zones.js';

export interface AvailabilityZoneOptions {
  /** `eks.availability_zone_ids[region]`, when configured. */
  readonly configuredIds?: readonly string[];
  /** The region is an accelerator endpoint group (`config.acceleratorRegions`). */
  readonly accelerated: boolean;
}

/** The lookup of this account's name→ID map for the stack's region. */
export const AZ_ID_LOOKUP: GetContextKeyOptions = {
  provider: LookupProvider.PLUGIN,
  props: { pluginName: AZ_ID_LOOKUP_PLUGIN },
};

/**
 * The AZ names for the VPC, or undefined for an environment-agnostic stack. A problem (configured ID
 * the account lacks, fewer than two usable AZs, lookup not possible) is an error annotation on `scope`:
 * `cdk synth`/`cdk deploy` print it and fail, as they do for the CDK's own lookup errors.
 */
export function availabilityZonesFor(
  scope: Construct,
  options: AvailabilityZoneOptions,
): string[] | undefined {
  const stack = Stack.of(scope);
  if (Token.isUnresolved(stack.account) || Token.isUnresolved(stack.region)) return undefined;
  const { account, region } = stack;
  const names = stack.availabilityZones;
  const fallback = names.slice(0, MAX_CHOSEN_AZS);
  const excluded = excludedAzIds(region, { accelerated: options.accelerated });
  // No ID to avoid and none pinned: any of the account's names will do, no second lookup needed.
  if (!options.configuredIds && excluded.size === 0) return fallback;

  const cached: unknown = scope.node.tryGetContext(ContextProvider.getKey(scope, AZ_ID_LOOKUP).key);
  if (cached === undefined && process.env[AZ_ID_LOOKUP_LOADED_ENV] !== '1') {
    Annotations.of(scope).addError(
      `The Availability Zone IDs of account ${account} in ${region} are not in cdk.context.json, and the ` +
        'lookup plugin that finds them is not loaded. Run the CDK CLI as "npm run cdk -- <command>" (it ' +
        'loads bin/availability-zone-ids-plugin.cjs), or add --plugin "$PWD/bin/availability-zone-ids-plugin.cjs".',
    );
    return fallback;
  }
  // Reports the map as missing context when it is (the CLI then runs the plugin and synthesizes again).
  const idsByName: unknown = ContextProvider.getValue(scope, { ...AZ_ID_LOOKUP, dummyValue: {} }).value;
  // Until both lookups are in, the names are placeholders and this synth is thrown away.
  if (
    !lookedUp(scope, { provider: LookupProvider.AVAILABILITY_ZONE_PROVIDER }) ||
    !lookedUp(scope, AZ_ID_LOOKUP)
  ) {
    return fallback;
  }
  if (!isAzIdMap(idsByName)) {
    Annotations.of(scope).addError(
      `cdk.context.json holds no name→ID map for ${region} under "${ContextProvider.getKey(scope, AZ_ID_LOOKUP).key}": ` +
        `reset it with "npx cdk context --reset" and synthesize again`,
    );
    return fallback;
  }
  const choice = chooseAvailabilityZones({
    region,
    account,
    names,
    idsByName,
    excluded,
    ...(options.configuredIds ? { configuredIds: options.configuredIds } : {}),
  });
  if ('error' in choice) {
    Annotations.of(scope).addError(choice.error);
    return fallback;
  }
  return choice.names;
}

/** The lookup's value is in the context and is not a lookup failure. */
function lookedUp(scope: Construct, lookup: GetContextKeyOptions): boolean {
  const value: unknown = scope.node.tryGetContext(ContextProvider.getKey(scope, lookup).key);
  return value !== undefined && !(typeof value === 'object' && value !== null && PROVIDER_ERROR_KEY in value);
}

function isAzIdMap(value: unknown): value is AzIdsByName {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((id) => typeof id === 'string')
  );
}
