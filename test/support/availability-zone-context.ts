// The two lookups a regional stack makes when the account is known, as cdk.context.json holds them after
// `cdk synth`/`cdk deploy` with credentials: the CDK's AZ names and the plugin's name→ID map.
import { AZ_ID_LOOKUP_PLUGIN } from '../../lib/availability-zones.js';

/** The test account; any 12 digits. */
export const TEST_ACCOUNT = '123456789012';

/** us-east-1 of an account whose us-east-1c is use1-az3, where EKS refuses control-plane subnets. */
export const US_EAST_1_WITH_AZ3: Readonly<Record<string, string>> = {
  'us-east-1a': 'use1-az6',
  'us-east-1b': 'use1-az1',
  'us-east-1c': 'use1-az3',
  'us-east-1d': 'use1-az2',
  'us-east-1e': 'use1-az4',
  'us-east-1f': 'use1-az5',
};

/** An account's name→ID maps of the other regions the tests deploy to. */
const OTHER_REGIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'us-east-2': { 'us-east-2a': 'use2-az1', 'us-east-2b': 'use2-az2', 'us-east-2c': 'use2-az3' },
  'eu-west-1': { 'eu-west-1a': 'euw1-az3', 'eu-west-1b': 'euw1-az1', 'eu-west-1c': 'euw1-az2' },
  'ap-southeast-2': {
    'ap-southeast-2a': 'apse2-az3',
    'ap-southeast-2b': 'apse2-az1',
    'ap-southeast-2c': 'apse2-az2',
  },
  'ap-northeast-1': {
    'ap-northeast-1a': 'apne1-az4',
    'ap-northeast-1c': 'apne1-az1',
    'ap-northeast-1d': 'apne1-az2',
  },
};

/** cdk.context.json key of the CDK's AZ-name lookup. */
export const namesKey = (account: string, region: string): string =>
  `availability-zones:account=${account}:region=${region}`;

/** cdk.context.json key of the plugin's name→ID lookup. */
export const idsKey = (account: string, region: string): string =>
  `plugin:account=${account}:pluginName=${AZ_ID_LOOKUP_PLUGIN}:region=${region}`;

/** Both lookups for every region of `maps`, as context entries. */
export function availabilityZoneContext(
  account: string,
  maps: Readonly<Record<string, Readonly<Record<string, string>>>>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(maps).flatMap(([region, map]) => [
      [namesKey(account, region), Object.keys(map)],
      [idsKey(account, region), map],
    ]),
  );
}

/** Both lookups for us-east-1 (with use1-az3 as us-east-1c) and every region of OTHER_REGIONS. */
export const testAccountContext = (): Record<string, unknown> =>
  availabilityZoneContext(TEST_ACCOUNT, { 'us-east-1': US_EAST_1_WITH_AZ3, ...OTHER_REGIONS });
