/**
 * Regions where AWS Global Accelerator supports endpoints (an endpoint group in the region), from the
 * Global Accelerator developer guide, "AWS Region availability for AWS Global Accelerator", as of
 * 2026-11. Kept explicit so a new region is behind the accelerator only once someone has checked;
 * test/unit/accelerator-regions.test.ts keeps it inside the known commercial regions.
 *
 * A deployment region outside this list gets no endpoint group: its regional API is its ingress (open to
 * the account's principals, as in partitions without an accelerator), and the global API's workload
 * routes never reach it (docs/operations.md, "Adding and removing a region").
 */
export const ACCELERATOR_REGIONS: readonly string[] = Object.freeze([
  'af-south-1',
  'ap-east-1',
  'ap-northeast-1',
  'ap-northeast-2',
  'ap-northeast-3',
  'ap-south-1',
  'ap-south-2',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-southeast-3',
  'ap-southeast-4',
  'ap-southeast-5',
  'ca-central-1',
  'ca-west-1',
  'eu-central-1',
  'eu-central-2',
  'eu-north-1',
  'eu-south-1',
  'eu-south-2',
  'eu-west-1',
  'eu-west-2',
  'eu-west-3',
  'il-central-1',
  'me-central-1',
  'me-south-1',
  'sa-east-1',
  'us-east-1',
  'us-east-2',
  'us-west-1',
  'us-west-2',
]);

/**
 * AZ IDs where Global Accelerator does not support endpoints in otherwise supported regions (same
 * source). An internal ALB with a subnet there still works; traffic to that AZ is not accelerated.
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
