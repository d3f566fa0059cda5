// Typed, validated deployment config read from the CDK context (cdk.json "context" plus `-c key=value`).
// loadConfig() is pure so tests and tools can validate a context object without building an app; it
// collects every problem and throws them together so one synth run shows everything to fix.
import type { App } from 'aws-cdk-lib';
import { acceleratorSupports } from './accelerator-regions.js';
import { azIdPrefix, EKS_EXCLUDED_AZ_IDS, isAvailabilityZoneId } from './availability-zones.js';
import { ALL_REGIONS, isKnownRegion, partitionOf } from '../contracts/partition.js';
import type { PartitionInfo } from '../contracts/partition.js';
import {
  DEFAULT_GPU_NODE_POOL_CONTEXT,
  readGpuNodePool,
  type GpuNodePoolConfig,
} from './gpu-node-pool-config.js';

// AWS WAF rate-based statement Limit: valid range 10..2,000,000,000 requests per evaluation window.
const WAF_RATE_LIMIT_MIN = 10;
const WAF_RATE_LIMIT_MAX = 2_000_000_000;
// API Gateway forwards at most 64 KiB of a body to WAF (AssociationConfig KB_64; the default is 16 KiB).
// A larger cap could never be enforced: WAF does not see the bytes beyond the inspection limit.
const WAF_MAX_BODY_INSPECTION_BYTES = 65_536;
// API Gateway authorizer result TTL: 0 (caching off) to 3600 seconds.
const AUTHORIZER_CACHE_TTL_MAX_SECONDS = 3600;

/**
 * Defaults, in cdk.json's snake_case shape. cdk.json repeats them so every knob is visible; a unit test
 * keeps the two equal. `analytics_api.region: null` means "same as global_region".
 */
export const DEFAULT_CONTEXT = deepFreeze({
  project_name: 'gco',
  global_region: 'us-east-2',
  regions: ['us-east-1'],
  stage: 'prod',
  // ".internal" is reserved by ICANN for private use, so it can never collide with a public name.
  internal_domain: 'gco.internal',
  api_gateway: {
    regional_api_enabled: false,
    throttling_rate_limit: 1000,
    throttling_burst_limit: 2000,
    // null: EDGE where the partition has edge-optimized APIs, REGIONAL elsewhere. "regional" lifts the
    // edge's 30 s idle limit on global inference streams (docs/edge-lambdas.md).
    global_endpoint_type: null,
  },
  // 64 KiB body cap on non-inference routes: far above any job manifest, and the largest size WAF can
  // enforce on API Gateway (bigger bodies reach WAF truncated). Inference bodies (1 MiB) are capped by
  // the inference proxy instead, and the services enforce their own 1 MiB limit.
  waf: { enabled: true, rate_limit_per_ip: 2000, max_body_size_bytes: WAF_MAX_BODY_INSPECTION_BYTES },
  analytics_environment: { enabled: false },
  analytics_api: {
    enabled: false,
    region: null,
    stage: 'live',
    authorizer_cache_ttl_seconds: 300,
    warehouse_enabled: false,
  },
  // null: on (true) unless removal_policy is "destroy", where it must be off for `cdk destroy` to work.
  tables: { deletion_protection: null, point_in_time_recovery: true },
  // What `cdk destroy` does with data (tables, buckets, streams, log groups, the warehouse namespace).
  removal_policy: 'retain',
  // Suffix (-g<N>) on the fixed names of retained resources when > 1: redeploy beside what a destroyed
  // deployment kept (docs/operations.md, "Teardown and redeploy").
  resource_generation: 1,
  monitoring: { enabled: true, alarm_email_addresses: [], alarm_https_endpoints: [] },
  eks: {
    // Per deployment region, the AZ IDs (e.g. "use1-az1") of the VPC and cluster; {} = chosen at synth.
    availability_zone_ids: {},
    // IAM role/user ARNs given cluster admin through EKS access entries.
    admin_principal_arns: [],
  },
  // Pre-built images (npm run images:build): registry "<acct>.dkr.ecr.{region}.amazonaws.com/gco" and a
  // tag; both null = build the four images locally with Docker at deploy time.
  images: { registry: null, tag: null },
  gpu_node_pool: DEFAULT_GPU_NODE_POOL_CONTEXT,
});

interface ApiGatewayConfig {
  /** Let other principals of the account call regional APIs directly (always on without an accelerator). */
  readonly regionalApiEnabled: boolean;
  /** Stage steady-state throttle, requests per second. */
  readonly throttlingRateLimit: number;
  /** Stage burst throttle, requests. */
  readonly throttlingBurstLimit: number;
  /** Endpoint type of the global API (EDGE only in the commercial partition). */
  readonly globalEndpointType: 'EDGE' | 'REGIONAL';
}

export interface WafConfig {
  readonly enabled: boolean;
  /** Requests per client IP per 5-minute window before WAF blocks. */
  readonly rateLimitPerIp: number;
  /** Body size cap on non-inference routes, bytes. */
  readonly maxBodySizeBytes: number;
}

interface AnalyticsEnvironmentConfig {
  readonly enabled: boolean;
}

interface AnalyticsApiConfig {
  readonly enabled: boolean;
  readonly region: string;
  readonly stage: string;
  readonly authorizerCacheTtlSeconds: number;
  /** Adds the Redshift Serverless warehouse (VPC, namespace, workgroup) to the analytics stack. */
  readonly warehouseEnabled: boolean;
}

export interface TablesConfig {
  readonly deletionProtection: boolean;
  readonly pointInTimeRecovery: boolean;
}

/** `retain`: `cdk destroy` keeps data resources; `destroy`: deletes them with their data. */
export type RemovalPolicyName = 'retain' | 'destroy';

export interface MonitoringConfig {
  /** Alarms, the alarm topic and dashboards. */
  readonly enabled: boolean;
  /** Email subscriptions of the alarm topic (each must confirm the subscription). */
  readonly alarmEmailAddresses: readonly string[];
  /** HTTPS subscriptions of the alarm topic (e.g. a paging service's endpoint). */
  readonly alarmHttpsEndpoints: readonly string[];
}

interface EksConfig {
  /** Configured AZ IDs by region; a region not listed has its AZs chosen at synth time. */
  readonly availabilityZoneIds: Readonly<Record<string, readonly string[]>>;
  /** Principals given cluster admin (AmazonEKSClusterAdminPolicy) through access entries. */
  readonly adminPrincipalArns: readonly string[];
}

/** Where the service images come from. */
export type ImagesConfig =
  | { readonly source: 'build' }
  | {
      readonly source: 'prebuilt';
      /** Repository prefix; `{region}` is replaced by the deployment region. */
      readonly registry: string;
      readonly tag: string;
    };

export interface PlatformConfig {
  readonly projectName: string;
  readonly globalRegion: string;
  readonly regions: readonly string[];
  readonly stage: string;
  readonly internalDomain: string;
  readonly apiGateway: ApiGatewayConfig;
  readonly waf: WafConfig;
  readonly analyticsEnvironment: AnalyticsEnvironmentConfig;
  readonly analyticsApi: AnalyticsApiConfig;
  readonly tables: TablesConfig;
  readonly removalPolicy: RemovalPolicyName;
  /** 1 = the plain names; N > 1 adds `-g<N>` to the fixed names of retained resources. */
  readonly resourceGeneration: number;
  readonly monitoring: MonitoringConfig;
  readonly eks: EksConfig;
  readonly images: ImagesConfig;
  readonly gpuNodePool: GpuNodePoolConfig;
  /** The one partition every configured region is in. */
  readonly partition: PartitionInfo;
  /** TLS SNI / host name the edge presents to the regional load balancers. */
  readonly backendHostname: string;
  /**
   * Deployment regions that get an accelerator endpoint group: all of them in a partition with Global
   * Accelerator, except regions Global Accelerator does not support (lib/accelerator-regions.ts).
   */
  readonly acceleratorRegions: readonly string[];
  /** The deployment has an accelerator: the partition has one and at least one region is supported. */
  readonly hasAccelerator: boolean;
  /**
   * The region's API accepts the account's principals: opted in (regional_api_enabled), or forced where
   * the region is not behind the accelerator (its workload traffic has no other way in).
   */
  regionalApiOpenToAccount(region: string): boolean;
  readonly globalStackName: string;
  readonly analyticsStackName: string;
  /** `<project>-<region>`; throws for a region that is not in `regions`. */
  regionalStackName(region: string): string;
}

export interface ConfigProblem {
  /** Key path as written in cdk.json, e.g. `api_gateway.throttling_rate_limit` or `regions[1]`. */
  readonly path: string;
  readonly expected: string;
  /** What was found, rendered for humans (JSON for values). */
  readonly received: string;
}

/** Every problem found in the context; the message has one line per problem. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    super(
      problems
        .map((p) => `Invalid cdk.json context "${p.path}": expected ${p.expected}, got ${p.received}`)
        .join('\n'),
    );
    this.problems = problems;
  }
}

/** Reads the config from everything in the app's context (cdk.json, cdk.context.json, `-c`). */
export function configFromApp(app: App): PlatformConfig {
  const context: unknown = app.node.getAllContext();
  return loadConfig(isRecord(context) ? context : {});
}

/**
 * Validates a raw CDK context object and returns the typed config, or throws one ConfigError listing
 * every problem. Keys owned by the CDK itself (`aws:cdk:*`, `@aws-cdk/*` feature flags, lookup caches)
 * are ignored. Values may be strings as `-c key=value` delivers them: JSON text is parsed for booleans,
 * numbers, lists and objects; `-c section.key=value` overrides one key of an object section.
 */
export function loadConfig(context: Record<string, unknown>): PlatformConfig {
  const r = new Reader();
  const top = splitContext(context, r);
  const sec = (name: SectionName): Record<string, unknown> => readSection(name, top, r);
  // One reader per section, in cdk.json's order, so the problems are listed in that order too.
  const { base, checkedGlobalRegion } = readTopLevel(r, top.values);
  const { apiGateway, globalEndpointChoice } = readApiGateway(r, sec('api_gateway'));
  const waf = readWaf(r, sec('waf'));
  const analyticsEnvironment = readAnalyticsEnvironment(r, sec('analytics_environment'));
  const { analyticsApi, analyticsRegion } = readAnalyticsApi(r, sec('analytics_api'), base.globalRegion);
  const { removalPolicy, resourceGeneration } = readRetention(r, top.values);
  const tables = readTables(r, sec('tables'), removalPolicy);
  const monitoring = readMonitoring(r, sec('monitoring'));
  const eks = readEks(r, sec('eks'), base.regions);
  const images = readImages(r, sec('images'));
  const gpuNodePool = readGpuNodePool(sec('gpu_node_pool'), (path, expected, got) =>
    r.fail(path, expected, got),
  );

  const backendHostname = readBackendHostname(r, base.projectName, base.internalDomain);
  const partition = checkOnePartition(r, base.regions, checkedGlobalRegion, analyticsRegion);
  const globalEndpointType = decideGlobalEndpointType(r, globalEndpointChoice, partition);
  checkAdminPrincipalPartitions(r, eks.adminPrincipalArns, partition);

  r.problems.push(...top.unknown);
  if (r.problems.length > 0) throw new ConfigError(r.problems);

  return deepFreeze(
    withDerivedValues({
      ...base,
      apiGateway: { ...apiGateway, globalEndpointType },
      waf,
      analyticsEnvironment,
      analyticsApi,
      tables,
      removalPolicy,
      resourceGeneration,
      monitoring,
      eks,
      images,
      gpuNodePool,
      partition,
      backendHostname,
    }),
  );
}

/** What the readers decide; the rest of PlatformConfig follows from it. */
type ReadConfig = Omit<
  PlatformConfig,
  | 'acceleratorRegions'
  | 'hasAccelerator'
  | 'regionalApiOpenToAccount'
  | 'globalStackName'
  | 'analyticsStackName'
  | 'regionalStackName'
>;

function withDerivedValues(read: ReadConfig): PlatformConfig {
  const { projectName, regions } = read;
  const acceleratorRegions = read.partition.hasGlobalAccelerator ? regions.filter(acceleratorSupports) : [];
  const regionSet = new Set(regions);
  return {
    ...read,
    acceleratorRegions,
    hasAccelerator: acceleratorRegions.length > 0,
    regionalApiOpenToAccount: (region: string): boolean =>
      read.apiGateway.regionalApiEnabled || !acceleratorRegions.includes(region),
    globalStackName: `${projectName}-global`,
    analyticsStackName: `${projectName}-analytics`,
    regionalStackName: (region: string): string => {
      if (!regionSet.has(region)) {
        throw new Error(`"${region}" is not one of the configured regions (${regions.join(', ')})`);
      }
      return `${projectName}-${region}`;
    },
  };
}

// ---- section readers -----------------------------------------------------------------------------

type TopLevel = Pick<PlatformConfig, 'projectName' | 'globalRegion' | 'regions' | 'stage' | 'internalDomain'>;

/** The top-level keys; `checkedGlobalRegion` is the global region only when it is valid. */
function readTopLevel(
  r: Reader,
  values: Record<string, unknown>,
): { readonly base: TopLevel; readonly checkedGlobalRegion: string | undefined } {
  const projectName = r.string('project_name', values.project_name, DEFAULT_CONTEXT.project_name, {
    ok: (s) => /^[a-z](?:[a-z0-9]|-(?=[a-z0-9])){0,31}$/.test(s),
    expected:
      '1-32 lowercase letters, digits or single hyphens, starting with a letter and not ending with a hyphen',
  });
  // Invalid regions are reported and left out, so the partition check only compares real regions.
  const checkedGlobalRegion = r.region(
    'global_region',
    values.global_region ?? DEFAULT_CONTEXT.global_region,
  );
  const regions = r.regionList('regions', values.regions ?? DEFAULT_CONTEXT.regions);
  const stage = r.string('stage', values.stage, DEFAULT_CONTEXT.stage, STAGE_RULE);
  const internalDomain = r.string(
    'internal_domain',
    values.internal_domain,
    DEFAULT_CONTEXT.internal_domain,
    {
      ok: isDnsName,
      expected:
        'a lowercase DNS name such as "gco.internal" (dot-separated labels of 1-63 letters, digits or hyphens, ' +
        'no label starting or ending with a hyphen, no trailing dot)',
    },
  );
  const globalRegion = checkedGlobalRegion ?? DEFAULT_CONTEXT.global_region;
  return { base: { projectName, globalRegion, regions, stage, internalDomain }, checkedGlobalRegion };
}

/** `api_gateway`; the global endpoint type is decided once the partition is known. */
function readApiGateway(
  r: Reader,
  api: Record<string, unknown>,
): { readonly apiGateway: ApiGatewayConfig; readonly globalEndpointChoice: 'edge' | 'regional' | undefined } {
  const defaults = DEFAULT_CONTEXT.api_gateway;
  const apiGateway: ApiGatewayConfig = {
    regionalApiEnabled: r.boolean(
      'api_gateway.regional_api_enabled',
      api.regional_api_enabled,
      defaults.regional_api_enabled,
    ),
    throttlingRateLimit: r.number(
      'api_gateway.throttling_rate_limit',
      api.throttling_rate_limit,
      defaults.throttling_rate_limit,
      { ok: (n) => n > 0, expected: 'a positive number' },
    ),
    throttlingBurstLimit: r.number(
      'api_gateway.throttling_burst_limit',
      api.throttling_burst_limit,
      defaults.throttling_burst_limit,
      { ok: (n) => Number.isInteger(n) && n > 0, expected: 'a positive integer' },
    ),
    globalEndpointType: 'EDGE', // decided by decideGlobalEndpointType
  };
  const globalEndpointChoice = r.choice('api_gateway.global_endpoint_type', api.global_endpoint_type, [
    'edge',
    'regional',
  ]);
  return { apiGateway, globalEndpointChoice };
}

function readWaf(r: Reader, waf: Record<string, unknown>): WafConfig {
  const defaults = DEFAULT_CONTEXT.waf;
  return {
    enabled: r.boolean('waf.enabled', waf.enabled, defaults.enabled),
    rateLimitPerIp: r.number('waf.rate_limit_per_ip', waf.rate_limit_per_ip, defaults.rate_limit_per_ip, {
      ok: (n) => isIntegerIn(n, WAF_RATE_LIMIT_MIN, WAF_RATE_LIMIT_MAX),
      expected: `an integer from ${WAF_RATE_LIMIT_MIN} to ${WAF_RATE_LIMIT_MAX} (requests per IP per 5 minutes, AWS WAF's range)`,
    }),
    maxBodySizeBytes: r.number(
      'waf.max_body_size_bytes',
      waf.max_body_size_bytes,
      defaults.max_body_size_bytes,
      {
        ok: (n) => isIntegerIn(n, 1, WAF_MAX_BODY_INSPECTION_BYTES),
        expected: `an integer from 1 to ${WAF_MAX_BODY_INSPECTION_BYTES} (AWS WAF inspects at most 64 KiB of an API Gateway body)`,
      },
    ),
  };
}

function readAnalyticsEnvironment(r: Reader, raw: Record<string, unknown>): AnalyticsEnvironmentConfig {
  const fallback = DEFAULT_CONTEXT.analytics_environment.enabled;
  return { enabled: r.boolean('analytics_environment.enabled', raw.enabled, fallback) };
}

/** `analytics_api`; `analyticsRegion` is the configured region when it is valid (null: the global one). */
function readAnalyticsApi(
  r: Reader,
  an: Record<string, unknown>,
  globalRegion: string,
): { readonly analyticsApi: AnalyticsApiConfig; readonly analyticsRegion: string | undefined } {
  const defaults = DEFAULT_CONTEXT.analytics_api;
  // null (the cdk.json default) means "same as global_region".
  const analyticsRegion =
    an.region === undefined || an.region === null ? undefined : r.region('analytics_api.region', an.region);
  const analyticsApi: AnalyticsApiConfig = {
    enabled: r.boolean('analytics_api.enabled', an.enabled, defaults.enabled),
    region: analyticsRegion ?? globalRegion,
    stage: r.string('analytics_api.stage', an.stage, defaults.stage, STAGE_RULE),
    authorizerCacheTtlSeconds: r.number(
      'analytics_api.authorizer_cache_ttl_seconds',
      an.authorizer_cache_ttl_seconds,
      defaults.authorizer_cache_ttl_seconds,
      {
        ok: (n) => isIntegerIn(n, 0, AUTHORIZER_CACHE_TTL_MAX_SECONDS),
        expected: `an integer from 0 to ${AUTHORIZER_CACHE_TTL_MAX_SECONDS} (seconds; 0 turns caching off)`,
      },
    ),
    warehouseEnabled: r.boolean(
      'analytics_api.warehouse_enabled',
      an.warehouse_enabled,
      defaults.warehouse_enabled,
    ),
  };
  return { analyticsApi, analyticsRegion };
}

/** `removal_policy` and `resource_generation`. */
function readRetention(
  r: Reader,
  values: Record<string, unknown>,
): { readonly removalPolicy: RemovalPolicyName; readonly resourceGeneration: number } {
  const removalPolicy = r.choice('removal_policy', values.removal_policy, ['retain', 'destroy']) ?? 'retain';
  const resourceGeneration = r.number(
    'resource_generation',
    values.resource_generation,
    DEFAULT_CONTEXT.resource_generation,
    {
      ok: (n) => isIntegerIn(n, 1, 999),
      expected: 'an integer from 1 to 999 (1 keeps the plain resource names)',
    },
  );
  return { removalPolicy, resourceGeneration };
}

/** `tables`: deletion protection defaults to on under "retain" and must be off under "destroy". */
function readTables(r: Reader, raw: Record<string, unknown>, removalPolicy: RemovalPolicyName): TablesConfig {
  if (removalPolicy === 'destroy' && fromCli(raw.deletion_protection) === true) {
    r.fail(
      'tables.deletion_protection',
      'false (or unset) with removal_policy "destroy": a protected table makes `cdk destroy` fail',
      'true',
    );
  }
  return {
    deletionProtection: r.boolean(
      'tables.deletion_protection',
      raw.deletion_protection,
      removalPolicy === 'retain',
    ),
    pointInTimeRecovery: r.boolean(
      'tables.point_in_time_recovery',
      raw.point_in_time_recovery,
      DEFAULT_CONTEXT.tables.point_in_time_recovery,
    ),
  };
}

function readMonitoring(r: Reader, mon: Record<string, unknown>): MonitoringConfig {
  return {
    enabled: r.boolean('monitoring.enabled', mon.enabled, DEFAULT_CONTEXT.monitoring.enabled),
    alarmEmailAddresses: r.stringList('monitoring.alarm_email_addresses', mon.alarm_email_addresses, {
      ok: (s) => s.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s),
      expected: 'an email address such as "oncall@example.com"',
    }),
    alarmHttpsEndpoints: r.stringList('monitoring.alarm_https_endpoints', mon.alarm_https_endpoints, {
      ok: isHttpsUrl,
      expected: 'an https:// URL with a host (SNS HTTPS subscriptions; plain http is refused)',
    }),
  };
}

function readEks(r: Reader, eks: Record<string, unknown>, regions: readonly string[]): EksConfig {
  return {
    availabilityZoneIds: readAvailabilityZoneIds(r, eks.availability_zone_ids, regions),
    adminPrincipalArns: r.stringList('eks.admin_principal_arns', eks.admin_principal_arns, {
      ok: (s) => /^arn:(?:aws|aws-cn|aws-us-gov):iam::\d{12}:(?:role|user)\/[\w+=,.@/-]{1,512}$/.test(s),
      expected:
        'an IAM role or user ARN such as "arn:<partition>:iam::123456789012:role/Admin" (EKS access entries take roles and users)',
    }),
  };
}

// ---- checks across sections ----------------------------------------------------------------------

/** `backend.<project>.<internal_domain>`, which must fit DNS's 253 characters. */
function readBackendHostname(r: Reader, projectName: string, internalDomain: string): string {
  const backendHostname = `backend.${projectName}.${internalDomain}`;
  if (backendHostname.length > 253) {
    r.fail(
      'internal_domain',
      `a name short enough that "backend.<project_name>.<internal_domain>" fits DNS's 253 characters`,
      `${JSON.stringify(internalDomain)} (${backendHostname.length} characters in total)`,
    );
  }
  return backendHostname;
}

/** EDGE where the partition has edge-optimized APIs, unless "regional" is chosen; "edge" elsewhere fails. */
function decideGlobalEndpointType(
  r: Reader,
  choice: 'edge' | 'regional' | undefined,
  partition: PartitionInfo,
): ApiGatewayConfig['globalEndpointType'] {
  const edgeAvailable = partition.partition === 'aws';
  if (choice === 'edge' && !edgeAvailable) {
    r.fail(
      'api_gateway.global_endpoint_type',
      `"regional" or null in the ${partition.partition} partition (edge-optimized APIs exist only in aws)`,
      '"edge"',
    );
  }
  return choice === 'regional' || !edgeAvailable ? 'REGIONAL' : 'EDGE';
}

function checkAdminPrincipalPartitions(r: Reader, arns: readonly string[], partition: PartitionInfo): void {
  for (const arn of arns) {
    const arnPartition = arn.split(':')[1];
    if (arnPartition !== partition.partition) {
      r.fail(
        'eks.admin_principal_arns',
        `ARNs of the ${partition.partition} partition, where the clusters are`,
        JSON.stringify(arn),
      );
    }
  }
}

// ---- context layout ------------------------------------------------------------------------------

const SECTIONS = {
  api_gateway: Object.keys(DEFAULT_CONTEXT.api_gateway),
  waf: Object.keys(DEFAULT_CONTEXT.waf),
  analytics_environment: Object.keys(DEFAULT_CONTEXT.analytics_environment),
  analytics_api: Object.keys(DEFAULT_CONTEXT.analytics_api),
  tables: Object.keys(DEFAULT_CONTEXT.tables),
  monitoring: Object.keys(DEFAULT_CONTEXT.monitoring),
  eks: Object.keys(DEFAULT_CONTEXT.eks),
  images: Object.keys(DEFAULT_CONTEXT.images),
  gpu_node_pool: Object.keys(DEFAULT_CONTEXT.gpu_node_pool),
} as const;
type SectionName = keyof typeof SECTIONS;

const TOP_LEVEL_KEYS = Object.keys(DEFAULT_CONTEXT);

// Context keys the CDK toolkit itself writes without a `aws:`/`@` namespace.
const CDK_OWNED_KEYS = new Set(['acknowledged-issue-numbers', 'cli-telemetry']);

function isCdkOwnedKey(key: string): boolean {
  // `aws:cdk:*` settings and lookup caches contain ':'; feature flags start with '@'; `$dontSaveContext`.
  return key.includes(':') || key.startsWith('@') || key.startsWith('$') || CDK_OWNED_KEYS.has(key);
}

function isSectionName(name: string): name is SectionName {
  return Object.hasOwn(SECTIONS, name);
}

interface SplitContext {
  readonly values: Record<string, unknown>;
  /** `-c section.key=value` overrides, by section. */
  readonly overrides: Partial<Record<SectionName, Record<string, unknown>>>;
  readonly unknown: ConfigProblem[];
}

function splitContext(context: Record<string, unknown>, r: Reader): SplitContext {
  const values: Record<string, unknown> = {};
  const overrides: Partial<Record<SectionName, Record<string, unknown>>> = {};
  const unknown: ConfigProblem[] = [];
  for (const [key, value] of Object.entries(context)) {
    if (isCdkOwnedKey(key)) continue;
    const dot = key.indexOf('.');
    const section = dot > 0 ? key.slice(0, dot) : undefined;
    if (section !== undefined && isSectionName(section)) {
      (overrides[section] ??= {})[key.slice(dot + 1)] = value;
    } else if (TOP_LEVEL_KEYS.includes(key)) {
      values[key] = value;
    } else if (section !== undefined) {
      // A typo in the section part of `-c section.key=value`: suggest the section.
      const sections = Object.keys(SECTIONS);
      const hint = closest(section, sections);
      unknown.push({
        path: key,
        expected: `<section>.<key> with a section of ${sections.join(', ')}${hint === undefined ? '' : ` (did you mean "${hint}"?)`}`,
        received: 'an unknown key',
      });
    } else {
      unknown.push(r.unknownKey(key, TOP_LEVEL_KEYS));
    }
  }
  return { values, overrides, unknown };
}

function readSection(name: SectionName, top: SplitContext, r: Reader): Record<string, unknown> {
  const raw = fromCli(top.values[name]);
  let base: Record<string, unknown> = {};
  if (isRecord(raw)) {
    base = raw;
  } else if (raw !== undefined && raw !== null) {
    r.fail(name, `an object with the keys ${SECTIONS[name].join(', ')}`, describe(raw));
  }
  const merged = { ...base, ...top.overrides[name] };
  const known: readonly string[] = SECTIONS[name];
  for (const key of Object.keys(merged)) {
    if (!known.includes(key)) r.problems.push(r.unknownKey(`${name}.${key}`, known, key));
  }
  return merged;
}

function checkOnePartition(
  r: Reader,
  regions: readonly string[],
  globalRegion: string | undefined,
  analyticsRegion: string | undefined,
): PartitionInfo {
  const inRegions = new Set(regions.map((region) => partitionOf(region).partition));
  if (inRegions.size > 1) {
    r.fail(
      'regions',
      'regions of a single partition (aws, aws-cn or aws-us-gov)',
      regions.map((region) => `${region} (${partitionOf(region).partition})`).join(', '),
    );
  }
  // The regional list decides the partition; the global and analytics regions must follow it.
  const decidingRegion = regions[0] ?? globalRegion ?? analyticsRegion ?? DEFAULT_CONTEXT.global_region;
  const reference = partitionOf(decidingRegion);
  const decidedBy = regions.length > 0 ? `"regions" (${regions.join(', ')})` : `"${decidingRegion}"`;
  const others: [string, string | undefined][] = [
    ['global_region', globalRegion],
    ['analytics_api.region', analyticsRegion],
  ];
  for (const [path, region] of others) {
    if (region === undefined) continue;
    const actual = partitionOf(region).partition;
    if (actual !== reference.partition) {
      r.fail(
        path,
        `a region in the ${reference.partition} partition, like ${decidedBy}`,
        `${JSON.stringify(region)} (${actual} partition)`,
      );
    }
  }
  return reference;
}

/** `eks.availability_zone_ids`: per configured region, 2-6 distinct AZ IDs none of which EKS refuses. */
function readAvailabilityZoneIds(
  r: Reader,
  raw: unknown,
  regions: readonly string[],
): Readonly<Record<string, readonly string[]>> {
  const path = 'eks.availability_zone_ids';
  const value = fromCli(raw);
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) {
    r.fail(
      path,
      'an object of region to AZ ID list, such as {"us-east-1": ["use1-az1", "use1-az2"]}',
      describe(raw),
    );
    return {};
  }
  const result: Record<string, readonly string[]> = {};
  for (const [region, ids] of Object.entries(value)) {
    const at = `${path}.${region}`;
    if (!regions.includes(region)) {
      r.fail(at, `a key that is one of the configured regions (${regions.join(', ')})`, 'an unknown region');
      continue;
    }
    if (!Array.isArray(ids) || ids.length < 2 || ids.length > 6) {
      r.fail(
        at,
        'a list of 2 to 6 AZ IDs such as ["use1-az1", "use1-az2"] (EKS needs two AZs)',
        describe(ids),
      );
      continue;
    }
    const valid: string[] = [];
    ids.forEach((id: unknown, i) => {
      if (typeof id !== 'string' || !isAvailabilityZoneId(id, region)) {
        r.fail(`${at}[${i}]`, `an AZ ID of ${region} such as "${azIdPrefix(region)}-az1"`, describe(id));
      } else if (EKS_EXCLUDED_AZ_IDS.includes(id)) {
        r.fail(
          `${at}[${i}]`,
          `an AZ ID EKS accepts for control-plane subnets (not ${EKS_EXCLUDED_AZ_IDS.join(', ')})`,
          JSON.stringify(id),
        );
      } else if (valid.includes(id)) {
        r.fail(`${at}[${i}]`, 'each AZ ID listed once', `${JSON.stringify(id)} again`);
      } else {
        valid.push(id);
      }
    });
    if (valid.length === ids.length) result[region] = valid;
  }
  return result;
}

/** `images.registry` + `images.tag`: both set (pre-built images) or both null (local build). */
function readImages(r: Reader, raw: Record<string, unknown>): ImagesConfig {
  const { registry: rawRegistry, tag: rawTag } = raw;
  const registry = r.optionalString('images.registry', rawRegistry, {
    ok: (s) =>
      /^[a-z0-9]+(?:[.-][a-z0-9]+)*(?::\d+)?(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*$/.test(
        s.replace('{region}', 'r'),
      ) && s.length <= 200,
    expected:
      'an image repository prefix such as "123456789012.dkr.ecr.{region}.amazonaws.com/gco" ({region} is replaced per region; no tag, no trailing slash)',
  });
  const tag = r.optionalString('images.tag', rawTag, {
    ok: (s) => /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(s),
    expected: 'a Docker image tag: 1-128 letters, digits, "_", "." or "-", not starting with "." or "-"',
  });
  if (registry !== undefined && tag !== undefined) return { source: 'prebuilt', registry, tag };
  const absent = (raw: unknown): boolean => raw === undefined || raw === null;
  // Only a key that was left out is "missing"; an invalid one is already reported.
  if (absent(rawRegistry) !== absent(rawTag) && (registry !== undefined || tag !== undefined)) {
    const [missing, given] =
      registry === undefined ? ['images.registry', 'images.tag'] : ['images.tag', 'images.registry'];
    r.fail(
      missing,
      `a value: ${given} is set, and pre-built images need both (or neither, to build locally)`,
      'nothing',
    );
  }
  return { source: 'build' };
}

function isHttpsUrl(s: string): boolean {
  try {
    const url = new URL(s);
    return url.protocol === 'https:' && url.hostname !== '' && s.length <= 2048;
  } catch {
    return false;
  }
}

// ---- value readers -------------------------------------------------------------------------------

interface Rule<T> {
  readonly ok: (value: T) => boolean;
  readonly expected: string;
}

const STAGE_RULE: Rule<string> = {
  ok: (s) => /^[A-Za-z0-9_-]{1,128}$/.test(s),
  expected: 'an API Gateway stage name: 1-128 letters, digits, hyphens or underscores',
};

/** Collects problems; each reader returns the default on a bad value so later checks still run. */
class Reader {
  readonly problems: ConfigProblem[] = [];

  fail(path: string, expected: string, received: string): void {
    this.problems.push({ path, expected, received });
  }

  unknownKey(path: string, known: readonly string[], key = path): ConfigProblem {
    const hint = closest(key, known);
    const suggestion = hint === undefined ? '' : ` (did you mean "${hint}"?)`;
    return { path, expected: `one of the keys ${known.join(', ')}${suggestion}`, received: 'an unknown key' };
  }

  boolean(path: string, raw: unknown, fallback: boolean): boolean {
    const value = fromCli(raw);
    if (value === undefined || value === null) return fallback;
    if (typeof value === 'boolean') return value;
    this.fail(path, 'true or false', describe(raw));
    return fallback;
  }

  number(path: string, raw: unknown, fallback: number, rule: Rule<number>): number {
    const value = fromCli(raw);
    if (value === undefined || value === null) return fallback;
    if (typeof value === 'number' && Number.isFinite(value) && rule.ok(value)) return value;
    this.fail(path, rule.expected, describe(raw));
    return fallback;
  }

  string(path: string, raw: unknown, fallback: string, rule: Rule<string>): string {
    if (raw === undefined || raw === null) return fallback;
    if (typeof raw === 'string' && rule.ok(raw)) return raw;
    this.fail(path, rule.expected, describe(raw));
    return fallback;
  }

  /** One of `choices`, or undefined when absent (null) or invalid (a problem). */
  choice<T extends string>(path: string, raw: unknown, choices: readonly T[]): T | undefined {
    if (raw === undefined || raw === null) return undefined;
    if (typeof raw === 'string' && (choices as readonly string[]).includes(raw)) return raw as T;
    this.fail(path, `one of ${choices.map((c) => JSON.stringify(c)).join(', ')}`, describe(raw));
    return undefined;
  }

  /** A string, or undefined when absent or null (a problem when it breaks the rule). */
  optionalString(path: string, raw: unknown, rule: Rule<string>): string | undefined {
    if (raw === undefined || raw === null) return undefined;
    if (typeof raw === 'string' && rule.ok(raw)) return raw;
    this.fail(path, rule.expected, describe(raw));
    return undefined;
  }

  /** A list of distinct strings each passing `rule`; absent = []. `-c` may give JSON or a comma list. */
  stringList(path: string, raw: unknown, rule: Rule<string>): readonly string[] {
    if (raw === undefined || raw === null) return [];
    const value = typeof raw === 'string' ? (parseJson(raw) ?? raw.split(',').map((s) => s.trim())) : raw;
    if (!Array.isArray(value)) {
      this.fail(path, `a list, each entry ${rule.expected}`, describe(raw));
      return [];
    }
    const valid: string[] = [];
    value.forEach((item: unknown, i) => {
      if (typeof item !== 'string' || !rule.ok(item))
        this.fail(`${path}[${i}]`, rule.expected, describe(item));
      else if (valid.includes(item))
        this.fail(`${path}[${i}]`, 'each entry listed once', `${JSON.stringify(item)} again`);
      else valid.push(item);
    });
    return valid;
  }

  /** The region, or undefined (and a problem) when it is not a known region. */
  region(path: string, raw: unknown): string | undefined {
    if (typeof raw === 'string' && isKnownRegion(raw)) return raw;
    const hint = typeof raw === 'string' ? closest(raw, ALL_REGIONS) : undefined;
    this.fail(
      path,
      hint === undefined
        ? 'a known AWS region code such as "us-east-1"'
        : `a known AWS region code (did you mean "${hint}"?)`,
      describe(raw),
    );
    return undefined;
  }

  /** The valid, de-duplicated regions; every invalid entry, an empty list or a repeat is a problem. */
  regionList(path: string, raw: unknown): readonly string[] {
    // `-c regions=us-east-1,us-west-2` is the natural CLI spelling; JSON lists work too.
    const value = typeof raw === 'string' ? (parseJson(raw) ?? raw.split(',').map((s) => s.trim())) : raw;
    if (!Array.isArray(value) || value.length === 0) {
      this.fail(path, 'a non-empty list of AWS region codes such as ["us-east-1"]', describe(raw));
      return [];
    }
    const valid: string[] = [];
    value.forEach((item: unknown, i) => {
      const region = this.region(`${path}[${i}]`, item);
      if (region !== undefined) valid.push(region);
    });
    const repeated = [...new Set(valid.filter((region, i) => valid.indexOf(region) !== i))];
    if (repeated.length > 0) {
      const list = repeated.map((region) => JSON.stringify(region)).join(', ');
      this.fail(path, 'each region listed once', `${list} more than once`);
    }
    return [...new Set(valid)];
  }
}

// ---- helpers -------------------------------------------------------------------------------------

/** `-c` values are strings: parse JSON text, keep anything else as the string for the error message. */
function fromCli(raw: unknown): unknown {
  return typeof raw === 'string' ? (parseJson(raw) ?? raw) : raw;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  // Context comes from JSON, so only a programmatic caller can pass something JSON cannot render.
  const text = JSON.stringify(value) ?? `a ${typeof value}`;
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isIntegerIn(n: number, min: number, max: number): boolean {
  return Number.isInteger(n) && n >= min && n <= max;
}

const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

function isDnsName(name: string): boolean {
  const labels = name.split('.');
  const last = labels[labels.length - 1] ?? '';
  // An all-numeric last label would make "10.0.0.1" pass as a domain.
  return name.length <= 253 && labels.every((label) => DNS_LABEL.test(label)) && !/^\d+$/.test(last);
}

/** The candidate nearest to `word` when it is close enough to be a typo. */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = editDistance(word, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

function deepFreeze<T>(value: T): DeepReadonly<T> {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value as DeepReadonly<T>;
}
