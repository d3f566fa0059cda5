/**
 * Availability Zone facts the regional VPC and EKS cluster are placed by. AZ *names* (us-east-1a) map to
 * different physical zones in every account; AZ *IDs* (use1-az1) do not, so every rule here is in IDs.
 */

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
