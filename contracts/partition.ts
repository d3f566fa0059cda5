// Region and partition facts the deployment config validates against. Kept explicit (not read from
// aws-cdk-lib at runtime) so a region is only deployable once someone has decided it is supported;
// test/unit/config.test.ts cross-checks this list against aws-cdk-lib's region table so a region AWS
// launches (or a typo here) shows up as a failing test instead of silently.

/** Partitions this platform deploys to. Isolated (ISO) and sovereign partitions are out of scope. */
export type Partition = 'aws' | 'aws-cn' | 'aws-us-gov';

export interface PartitionInfo {
  readonly partition: Partition;
  /** DNS suffix of service endpoints, e.g. `execute-api.<region>.<dnsSuffix>`. */
  readonly dnsSuffix: string;
  /** Global Accelerator exists only in the commercial partition; elsewhere regional APIs are the ingress. */
  readonly hasGlobalAccelerator: boolean;
}

/**
 * Current AWS regions of the supported partitions (mirrors aws-cdk-lib 2.276's region facts). A new
 * commercial region also needs a Global Accelerator check (lib/accelerator-regions.ts).
 */
export const AWS_REGIONS: Readonly<Record<Partition, readonly string[]>> = Object.freeze({
  aws: Object.freeze([
    'af-south-1',
    'ap-east-1',
    'ap-east-2',
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
    'ap-southeast-6',
    'ap-southeast-7',
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
    'me-west-1',
    'mx-central-1',
    'sa-east-1',
    'us-east-1',
    'us-east-2',
    'us-west-1',
    'us-west-2',
  ]),
  'aws-cn': Object.freeze(['cn-north-1', 'cn-northwest-1']),
  'aws-us-gov': Object.freeze(['us-gov-east-1', 'us-gov-west-1']),
});

const KNOWN_REGIONS: ReadonlySet<string> = new Set(Object.values(AWS_REGIONS).flat());

/** Every known region, sorted. */
export const ALL_REGIONS: readonly string[] = Object.freeze([...KNOWN_REGIONS].sort());

export function isKnownRegion(region: string): boolean {
  return KNOWN_REGIONS.has(region);
}

const PARTITIONS: Readonly<Record<Partition, PartitionInfo>> = Object.freeze({
  aws: Object.freeze({ partition: 'aws', dnsSuffix: 'amazonaws.com', hasGlobalAccelerator: true }),
  'aws-cn': Object.freeze({
    partition: 'aws-cn',
    dnsSuffix: 'amazonaws.com.cn',
    hasGlobalAccelerator: false,
  }),
  'aws-us-gov': Object.freeze({
    partition: 'aws-us-gov',
    dnsSuffix: 'amazonaws.com',
    hasGlobalAccelerator: false,
  }),
});

// Region prefixes of partitions we do not support; without this they would fall through to "aws".
const UNSUPPORTED_PREFIXES = ['us-iso-', 'us-isob-', 'us-isof-', 'eu-isoe-', 'eusc-'];

/**
 * Partition facts for a region, derived from its name: `cn-*` → aws-cn, `us-gov-*` → aws-us-gov,
 * anything else → aws. Throws for regions of isolated/sovereign partitions, which this platform does not
 * support. Does not check that the region exists: use {@link isKnownRegion} (the config does).
 */
export function partitionOf(region: string): PartitionInfo {
  if (UNSUPPORTED_PREFIXES.some((prefix) => region.startsWith(prefix))) {
    throw new Error(`Region "${region}" belongs to a partition this platform does not support`);
  }
  if (region.startsWith('cn-')) return PARTITIONS['aws-cn'];
  if (region.startsWith('us-gov-')) return PARTITIONS['aws-us-gov'];
  return PARTITIONS.aws;
}
