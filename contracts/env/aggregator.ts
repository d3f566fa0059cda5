/**
 * The aggregator's environment contract (docs/aggregator.md, "Configuration"): `aggregatorEnvironment`
 * writes it (the global stack, the local edge), `readAggregatorConfig` reads it on the first invocation,
 * reporting every problem at once.
 */
import { EnvReader, envVariables } from './reader.js';
import {
  DEFAULT_DISCOVERY_TTL_SECONDS,
  parseRegionalApis,
  parseRegionList,
  type DiscoverySettings,
} from '../regional-apis.js';

/** API Gateway cuts the integration at 29 s; 27 s leaves room to merge, serialize and return. */
export const DEFAULT_BUDGET_MS = 27_000;
const MAX_BUDGET_MS = 28_000;
const MIN_BUDGET_MS = 100;

export interface AggregatorSettings {
  /** Total time a request may spend, discovery included, before every unanswered region times out. */
  readonly budgetMs: number;
  /** Optional tighter cap for a single region. */
  readonly regionTimeoutMs?: number;
  /** Regions that must appear in every answer, discovered or not (`REGIONS`), sorted. */
  readonly expectedRegions: readonly string[];
}

export interface AggregatorConfig extends AggregatorSettings {
  /** Where the regional APIs are. */
  readonly discovery: DiscoverySettings;
}

type SsmDiscoverySettings = Extract<DiscoverySettings, { source: 'ssm' }>;

/** What a writer sets; a value left out takes the reader's default. */
export interface AggregatorEnvironment extends Partial<AggregatorSettings> {
  readonly discovery:
    | Extract<DiscoverySettings, { source: 'env' }>
    | (Omit<SsmDiscoverySettings, 'cacheTtlSeconds'> &
        Partial<Pick<SsmDiscoverySettings, 'cacheTtlSeconds'>>);
}

export function aggregatorEnvironment(settings: AggregatorEnvironment): Record<string, string> {
  const { discovery } = settings;
  return envVariables({
    ...(discovery.source === 'env'
      ? {
          // Only the regions with a URL: a problem is what the reader makes of a bad one.
          REGIONAL_APIS: JSON.stringify(
            Object.fromEntries(discovery.result.apis.map((api) => [api.region, api.url])),
          ),
        }
      : {
          REGIONAL_API_PARAMETER_PATH: discovery.parameterPath,
          REGIONAL_API_PARAMETER_REGION: discovery.parameterRegion,
          REGIONAL_API_CACHE_TTL_SECONDS: discovery.cacheTtlSeconds,
        }),
    REGIONS: settings.expectedRegions?.join(','),
    AGGREGATOR_BUDGET_MS: settings.budgetMs,
    AGGREGATOR_REGION_TIMEOUT_MS: settings.regionTimeoutMs,
  });
}

const PARAMETER_PATH_RE = /^\/[A-Za-z0-9_.\-/]+$/;
const BUDGET_BOUNDS = { min: MIN_BUDGET_MS, max: MAX_BUDGET_MS };

/** REGIONAL_APIS (first) or the SSM parameter path; undefined after recording a problem. */
function readDiscovery(r: EnvReader): DiscoverySettings | undefined {
  const regionalApis = r.optional('REGIONAL_APIS');
  if (regionalApis !== undefined) {
    try {
      return { source: 'env', result: parseRegionalApis(regionalApis) };
    } catch (error) {
      r.problem((error as Error).message);
      return undefined;
    }
  }
  const parameterPath = r.optional('REGIONAL_API_PARAMETER_PATH');
  if (parameterPath === undefined) {
    r.problem('REGIONAL_APIS: required, or REGIONAL_API_PARAMETER_PATH (where the regional APIs are)');
    return undefined;
  }
  if (!PARAMETER_PATH_RE.test(parameterPath)) {
    r.problem(
      `REGIONAL_API_PARAMETER_PATH: expected an SSM parameter path such as /gco/regional-api, got ${JSON.stringify(parameterPath)}`,
    );
  }
  const parameterRegion = r.optional('REGIONAL_API_PARAMETER_REGION');
  return {
    source: 'ssm',
    parameterPath,
    ...(parameterRegion !== undefined ? { parameterRegion } : {}),
    cacheTtlSeconds: r.number('REGIONAL_API_CACHE_TTL_SECONDS', DEFAULT_DISCOVERY_TTL_SECONDS, {
      min: 0,
      max: 86_400,
    }),
  };
}

/** Reads and validates the environment; throws an EnvironmentError listing every problem. */
export function readAggregatorConfig(env: NodeJS.ProcessEnv): AggregatorConfig {
  const r = new EnvReader(env);
  const discovery = readDiscovery(r);
  let expectedRegions: string[] = [];
  try {
    expectedRegions = parseRegionList(r.optional('REGIONS'));
  } catch (error) {
    r.problem((error as Error).message);
  }
  const budgetMs = r.integer('AGGREGATOR_BUDGET_MS', DEFAULT_BUDGET_MS, BUDGET_BOUNDS);
  const regionTimeoutMs =
    r.optional('AGGREGATOR_REGION_TIMEOUT_MS') === undefined
      ? undefined
      : r.integer('AGGREGATOR_REGION_TIMEOUT_MS', MAX_BUDGET_MS, BUDGET_BOUNDS);
  r.finish();
  return Object.freeze({
    // finish() threw unless discovery was read.
    discovery: discovery as DiscoverySettings,
    budgetMs,
    ...(regionTimeoutMs !== undefined ? { regionTimeoutMs } : {}),
    expectedRegions,
  });
}
