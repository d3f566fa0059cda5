/**
 * Availability Zone facts the regional VPC and EKS cluster are placed by. AZ *names* (us-east-1a) map to
 * different physical zones in every account; AZ *IDs* (use1-az1) do not, so every rule here is in IDs.
 */
import { ACCELERATOR_EXCLUDED_AZ_IDS } from './accelerator-regions.js';

/**
 * AZ IDs where EKS refuses control-plane subnets ("Cannot create cluster ... because us-east-1e, the
 * targeted availability zone, does not currently have sufficient capacity"): documented in the EKS user
 * guide (cluster VPC considerations). A subnet in one of them makes CreateCluster fail.
 */
export const EKS_EXCLUDED_AZ_IDS: readonly string[] = Object.freeze(['use1-az3', 'usw1-az2', 'cac1-az3']);

const COMPASS: Readonly<Record<string, string>> = {
  north: 'n',
  south: 's',
  east: 'e',
  west: 'w',
  central: 'c',
  northeast: 'ne',
  northwest: 'nw',
  southeast: 'se',
  southwest: 'sw',
};

/**
 * The AZ ID prefix of a region: `us-east-1` → `use1`, `ap-southeast-2` → `apse2`, `us-gov-west-1` →
 * `usgw1`, `cn-northwest-1` → `cnnw1`.
 */
export function azIdPrefix(region: string): string {
  const parts = region.split('-');
  const number = parts.pop() ?? '';
  const [area = '', ...rest] = parts;
  const middle = rest.map((part) => (part === 'gov' ? 'g' : (COMPASS[part] ?? part))).join('');
  return `${area}${middle}${number}`;
}

/** Whether `id` is an AZ ID of `region` (shape only: `<prefix>-az<n>`). */
export function isAvailabilityZoneId(id: string, region: string): boolean {
  return new RegExp(`^${azIdPrefix(region)}-az\\d{1,2}$`).test(id);
}

/**
 * Name the AZ ID lookup registers under in the CDK CLI (bin/availability-zone-ids-plugin.cjs); part of
 * the cdk.context.json key `plugin:account=<account>:pluginName=<this>:region=<region>`.
 */
export const AZ_ID_LOOKUP_PLUGIN = 'gco-availability-zone-ids';

/**
 * Set to "1" by the plugin in the CDK CLI's environment, which the app process inherits: a missing
 * name→ID map can be looked up (reported as missing context) instead of failing the synth.
 */
export const AZ_ID_LOOKUP_LOADED_ENV = 'GCO_AZ_ID_LOOKUP_LOADED';

/** An account's AZ name → AZ ID map for one region, as the lookup stores it in cdk.context.json. */
export type AzIdsByName = Readonly<Record<string, string>>;

// Why an AZ ID is left out; the text ends up in error messages.
const EKS_REASON = 'EKS refuses control-plane subnets there';
const ACCELERATOR_REASON = 'Global Accelerator takes no endpoints there';

/**
 * The AZ IDs of `region` the VPC avoids, with the reason: the EKS ones always, the Global Accelerator
 * ones when the region is an accelerator endpoint group (every AZ of the internal ALB should take
 * accelerated traffic; ap-northeast-1 has three AZs besides apne1-az3).
 */
export function excludedAzIds(
  region: string,
  options: { readonly accelerated: boolean },
): ReadonlyMap<string, string> {
  const prefix = `${azIdPrefix(region)}-`;
  const excluded = new Map<string, string>();
  if (options.accelerated) {
    for (const id of ACCELERATOR_EXCLUDED_AZ_IDS) excluded.set(id, ACCELERATOR_REASON);
  }
  // EKS last: its reason wins for an ID on both lists.
  for (const id of EKS_EXCLUDED_AZ_IDS) excluded.set(id, EKS_REASON);
  return new Map([...excluded].filter(([id]) => id.startsWith(prefix)));
}

/** The most AZs the VPC spans when it chooses them itself (one NAT gateway each). */
export const MAX_CHOSEN_AZS = 3;

export interface AzChoiceRequest {
  readonly region: string;
  readonly account: string;
  /** The account's AZ names in the region, in the CDK's order (its `availability-zones` lookup). */
  readonly names: readonly string[];
  /** The account's name→ID map for the region (the plugin lookup). */
  readonly idsByName: AzIdsByName;
  /** From `excludedAzIds`. */
  readonly excluded: ReadonlyMap<string, string>;
  /** `eks.availability_zone_ids[region]`, when configured: used as given, in that order. */
  readonly configuredIds?: readonly string[];
}

export type AzChoice = { readonly names: string[] } | { readonly error: string };

/**
 * The AZ names the VPC and the cluster use: the configured IDs mapped back to this account's names, or
 * else the first `MAX_CHOSEN_AZS` names whose ID is not excluded. At least two (EKS needs two).
 */
export function chooseAvailabilityZones(request: AzChoiceRequest): AzChoice {
  const { region, account, names, idsByName, excluded, configuredIds } = request;
  const describe = (): string =>
    names.map((name) => `${name}=${idsByName[name] ?? 'unknown ID'}`).join(', ') || 'none';
  if (configuredIds) {
    const nameById = new Map(names.flatMap((name) => (idsByName[name] ? [[idsByName[name], name]] : [])));
    const missing = configuredIds.filter((id) => !nameById.has(id));
    if (missing.length > 0) {
      return {
        error:
          `eks.availability_zone_ids.${region} names ${missing.join(', ')}, which account ${account} does ` +
          `not have available in ${region} (its AZs: ${describe()}); configure IDs from that list`,
      };
    }
    return { names: configuredIds.map((id) => nameById.get(id) ?? id) };
  }
  const usable = names.filter((name) => {
    const id = idsByName[name];
    return id !== undefined && !excluded.has(id);
  });
  if (usable.length < 2) {
    const reasons = [...excluded].map(([id, reason]) => `${id}: ${reason}`).join('; ');
    return {
      error:
        `account ${account} has fewer than 2 usable Availability Zones in ${region} for the VPC and EKS ` +
        `(its AZs: ${describe()}; left out: ${reasons || 'none'}). If the AZs changed, refresh the lookup ` +
        `with "npx cdk context --reset" on its key; otherwise pin IDs in eks.availability_zone_ids.${region}`,
    };
  }
  return { names: usable.slice(0, MAX_CHOSEN_AZS) };
}
