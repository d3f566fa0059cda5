/**
 * Discovery of the per-region regional APIs (docs/aggregator.md, "Discovery contract").
 *
 * Two sources, first match wins:
 * 1. `REGIONAL_APIS`: JSON object `{"<region>": "<base URL with stage>"}` (local platform, tests, or a
 *    deployment that resolves the URLs at synth time).
 * 2. `REGIONAL_API_PARAMETER_PATH` (e.g. `/gco/regional-api`): every String parameter directly under the
 *    path, named after its region, whose value is the base URL. Read with GetParametersByPath in
 *    `REGIONAL_API_PARAMETER_REGION` (default: the function's own region) and cached.
 *
 * `REGIONS` (optional, comma-separated or a JSON array) names the regions that must be present: one that
 * discovery does not return is reported as a failed region instead of disappearing from the answer.
 */
export interface RegionalApi {
  region: string;
  /** Base URL including the stage, without a trailing slash. */
  url: string;
}

/** A region that should be called but cannot be (bad URL, not discovered, discovery failed). */
export interface RegionProblem {
  region: string;
  error: string;
}

export interface DiscoveryResult {
  apis: RegionalApi[];
  problems: RegionProblem[];
}

export interface RegionalApiDiscovery {
  readonly source: 'env' | 'ssm';
  discover(signal?: AbortSignal): Promise<DiscoveryResult>;
}

const REGION_RE = /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function isRegionName(value: string): boolean {
  return REGION_RE.test(value);
}

/**
 * The normalized base URL, or an error message. HTTPS only (plain HTTP is accepted for loopback hosts,
 * i.e. the local platform and tests); no credentials, query or fragment, since the path is signed.
 */
export function normalizeApiUrl(raw: string): { url: string } | { error: string } {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { error: 'regional API URL is not a valid URL' };
  }
  const loopback = LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    return { error: 'regional API URL must use https' };
  }
  if (url.username || url.password || url.search || url.hash) {
    return { error: 'regional API URL must not carry credentials, a query or a fragment' };
  }
  return { url: `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}` };
}

export function collectRegionalApis(entries: Iterable<[string, unknown]>): DiscoveryResult {
  const apis: RegionalApi[] = [];
  const problems: RegionProblem[] = [];
  for (const [region, value] of entries) {
    if (!isRegionName(region)) {
      throw new Error(`"${region}" is not a region name`);
    }
    const normalized =
      typeof value === 'string' ? normalizeApiUrl(value) : { error: 'regional API URL is not a string' };
    if ('url' in normalized) apis.push({ region, url: normalized.url });
    else problems.push({ region, error: normalized.error });
  }
  apis.sort((a, b) => a.region.localeCompare(b.region));
  return { apis, problems };
}

/** Parses `REGIONAL_APIS`; throws on malformed JSON or keys that are not region names. */
export function parseRegionalApis(text: string): DiscoveryResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('REGIONAL_APIS is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('REGIONAL_APIS must be a JSON object of region → base URL');
  }
  try {
    return collectRegionalApis(Object.entries(parsed));
  } catch (error) {
    throw new Error(`REGIONAL_APIS: ${(error as Error).message}`);
  }
}

/** Parses `REGIONS`: comma-separated or a JSON array of region names. Empty/undefined → []. */
export function parseRegionList(value: string | undefined): string[] {
  const text = value?.trim() ?? '';
  if (!text) return [];
  let items: unknown[];
  if (text.startsWith('[')) {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) throw new Error('REGIONS must be a JSON array or a comma-separated list');
    items = parsed;
  } else {
    items = text.split(',').map((s) => s.trim());
  }
  const regions = items.filter((r) => r !== '');
  for (const region of regions) {
    if (typeof region !== 'string' || !isRegionName(region)) {
      throw new Error(`REGIONS: ${JSON.stringify(region)} is not a region name`);
    }
  }
  return [...new Set(regions as string[])].sort();
}

/** Adds a problem for every expected region that discovery neither returned nor already reported. */
export function withExpectedRegions(result: DiscoveryResult, expected: readonly string[]): DiscoveryResult {
  const known = new Set([...result.apis.map((a) => a.region), ...result.problems.map((p) => p.region)]);
  const missing = expected
    .filter((region) => !known.has(region))
    .map((region) => ({ region, error: 'regional API not discovered' }));
  return { apis: result.apis, problems: [...result.problems, ...missing] };
}

export const DEFAULT_DISCOVERY_TTL_SECONDS = 300;

/** Where the regional APIs are (read by contracts/env/aggregator.ts). */
export type DiscoverySettings =
  | {
      /** `REGIONAL_APIS`: fixed at deploy time. */
      readonly source: 'env';
      readonly result: DiscoveryResult;
    }
  | {
      /** `REGIONAL_API_PARAMETER_PATH`: one parameter per region, read with GetParametersByPath. */
      readonly source: 'ssm';
      readonly parameterPath: string;
      /** Region of the parameters; default the function's own. */
      readonly parameterRegion?: string;
      readonly cacheTtlSeconds: number;
    };
