import { AWS_REGIONS } from '../contracts/partition.js';

/**
 * Commercial regions where AWS Global Accelerator supports no endpoints, from the Global Accelerator
 * developer guide, "AWS Region availability for AWS Global Accelerator", as of 2026-11. A region added to
 * contracts/partition.ts must be checked against that page and listed here when it is missing there.
 */
const REGIONS_WITHOUT_ACCELERATOR: readonly string[] = Object.freeze([
  'ap-east-2',
  'ap-southeast-6',
  'ap-southeast-7',
  'me-west-1',
  'mx-central-1',
]);

/**
 * Regions where AWS Global Accelerator supports endpoints (an endpoint group in the region): the
 * commercial regions but those above.
 *
 * A deployment region outside this list gets no endpoint group: its regional API is its ingress (open to
 * the account's principals, as in partitions without an accelerator), and the global API's workload
 * routes never reach it (docs/operations.md, "Adding and removing a region").
 */
export const ACCELERATOR_REGIONS: readonly string[] = Object.freeze(
  AWS_REGIONS.aws.filter((region) => !REGIONS_WITHOUT_ACCELERATOR.includes(region)),
);

/**
 * AZ IDs where Global Accelerator does not support endpoints in otherwise supported regions (same
 * source): the regional VPC of an accelerator region avoids them (lib/constructs/regional-network.ts).
 */
export const ACCELERATOR_EXCLUDED_AZ_IDS: readonly string[] = Object.freeze([
  'usw1-az2',
  'apne1-az3',
  'cac1-az3',
]);

/** Whether Global Accelerator can have an endpoint group in `region`. */
export function acceleratorSupports(region: string): boolean {
  return ACCELERATOR_REGIONS.includes(region);
}
