/**
 * Where a command's requests go (docs/cli.md, "Where requests go"):
 * 1. `--api-url` / `--analytics-url`: exactly that API;
 * 2. `--local`: the local platform's endpoints file;
 * 3. otherwise the deployed stacks' CloudFormation outputs (`<project>-global` in the global region,
 *    `<project>-<region>` for `--region`, `<project>-analytics`).
 * `--region R` sends control-plane calls to R's regional API (never a header through the global API,
 * which the global proxy refuses).
 */
import { partitionOf } from '../contracts/partition.js';
import { chainCredentials, staticCredentials, type AwsCredentialIdentityProvider } from './credentials.js';
import { DISCOVERY_ATTEMPTS, StackDiscovery } from './discovery.js';
import { fileDiscoveryCache } from './discovery-cache.js';
import { DiscoveryError, UsageError } from './errors.js';
import type { CliIo } from './io.js';
import { findEndpointsFile, readLocalEndpoints, type LocalEndpoints } from './local-endpoints.js';
import type { GlobalOptions } from './options.js';
import { STACK_OUTPUTS, analyticsStackName, globalStackName, regionalStackName } from './stack-outputs.js';

type ApiKind = 'global' | 'regional' | 'analytics';

export interface ApiTarget {
  readonly kind: ApiKind;
  /** Base URL including the stage, without a trailing slash. */
  readonly url: string;
  /** The API's region: what SigV4 signs for. */
  readonly region: string;
}

export interface Endpoints {
  /** Control-plane and inference calls: the `--region` regional API, else the global API. */
  control(): Promise<ApiTarget>;
  /** The global API itself (its `/api/v1/global/*` aggregate routes). */
  global(): Promise<ApiTarget>;
  analytics(): Promise<ApiTarget>;
  readonly credentials: AwsCredentialIdentityProvider;
  close(): void;
}

const EXECUTE_API_HOST = /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/;
const LOOPBACK_HOST = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/;

/** The region in an `execute-api` host name, if it is one. */
export function regionOfApiUrl(url: string): string | undefined {
  return EXECUTE_API_HOST.exec(new URL(url).hostname)?.[1];
}

/** Checks an API base URL (https, or http on loopback) and drops a trailing slash. */
export function normalizeApiUrl(url: string, source: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`${source}: "${url}" is not a URL`);
  }
  const local = parsed.protocol === 'http:' && LOOPBACK_HOST.test(parsed.hostname);
  if (parsed.protocol !== 'https:' && !local) {
    throw new UsageError(`${source}: "${url}" must be an https:// URL (http:// only on loopback)`);
  }
  if (parsed.search !== '' || parsed.hash !== '' || parsed.username !== '') {
    throw new UsageError(`${source}: "${url}" must not carry a query, fragment or user name`);
  }
  return url.replace(/\/+$/, '');
}

function explicitTarget(kind: ApiKind, url: string, source: string, fallbackRegion: string): ApiTarget {
  const normalized = normalizeApiUrl(url, source);
  return { kind, url: normalized, region: regionOfApiUrl(normalized) ?? fallbackRegion };
}

/** A URL of the local platform's endpoints file. */
function localTarget(kind: ApiKind, url: string, endpoints: LocalEndpoints, region: string): ApiTarget {
  return { kind, url: normalizeApiUrl(url, endpoints.file), region };
}

const ELSEWHERE = 'give the URL with --api-url, or use --local for the local platform';

/** `discoveryAttempts`: attempts per CloudFormation call (StackDiscovery's default when undefined). */
export function createEndpoints(opts: GlobalOptions, io: CliIo, discoveryAttempts?: number): Endpoints {
  let local: Promise<LocalEndpoints> | undefined;
  const localEndpoints = () =>
    (local ??= readLocalEndpoints(findEndpointsFile(io.cwd, io.env, opts.endpointsFile)));
  const credentials: AwsCredentialIdentityProvider = opts.local
    ? async () => staticCredentials((await localEndpoints()).credentials)()
    : chainCredentials(opts.profile);
  const cfnEndpoint = io.env.AWS_ENDPOINT_URL_CLOUDFORMATION ?? io.env.AWS_ENDPOINT_URL;
  const discovery = new StackDiscovery({
    credentials,
    cache: fileDiscoveryCache(io.env),
    ...(cfnEndpoint ? { endpoint: cfnEndpoint } : {}),
    // Never more than discovery's own default: a run's retry policy may only lower it.
    ...(discoveryAttempts !== undefined
      ? { maxAttempts: Math.min(discoveryAttempts, DISCOVERY_ATTEMPTS) }
      : {}),
  });
  const resolver = new EndpointResolver(opts, localEndpoints, discovery);
  return {
    control: () => resolver.control(),
    global: () => resolver.global(),
    analytics: () => resolver.analytics(),
    credentials,
    close: () => discovery.close(),
  };
}

/** Each API's target, in the order of precedence of the file's header. */
class EndpointResolver {
  constructor(
    private readonly opts: GlobalOptions,
    private readonly localEndpoints: () => Promise<LocalEndpoints>,
    private readonly discovery: StackDiscovery,
  ) {}

  async global(): Promise<ApiTarget> {
    const { opts } = this;
    if (opts.apiUrl !== undefined)
      return explicitTarget('global', opts.apiUrl, '--api-url', opts.globalRegion);
    if (opts.local) {
      const endpoints = await this.localEndpoints();
      return localTarget('global', endpoints.apis.global, endpoints, endpoints.globalRegion);
    }
    return this.discoveredGlobal();
  }

  async control(): Promise<ApiTarget> {
    const { opts } = this;
    const region = opts.region;
    if (opts.apiUrl !== undefined) {
      return explicitTarget(
        region ? 'regional' : 'global',
        opts.apiUrl,
        '--api-url',
        region ?? opts.globalRegion,
      );
    }
    if (opts.local) return region === undefined ? this.global() : this.localRegional(region);
    if (region !== undefined) {
      return this.discovered(
        'regional',
        regionalStackName(opts.project, region),
        region,
        STACK_OUTPUTS.regionalApiUrl,
        `check that ${region} is a deployment region of project ${opts.project}, or ${ELSEWHERE}`,
      );
    }
    const { partition, hasGlobalAccelerator } = partitionOf(opts.globalRegion);
    if (!hasGlobalAccelerator) {
      throw new UsageError(
        `In the ${partition} partition the global API serves only the aggregate routes`,
        'Pass --region R to call a regional API.',
      );
    }
    return this.discoveredGlobal();
  }

  async analytics(): Promise<ApiTarget> {
    const { opts } = this;
    const region = opts.analyticsRegion ?? opts.globalRegion;
    if (opts.analyticsUrl !== undefined) {
      return explicitTarget('analytics', opts.analyticsUrl, '--analytics-url', region);
    }
    if (opts.local) {
      const endpoints = await this.localEndpoints();
      if (endpoints.apis.analytics === undefined) {
        throw new DiscoveryError('The local platform runs without the analytics API');
      }
      return localTarget(
        'analytics',
        endpoints.apis.analytics,
        endpoints,
        opts.analyticsRegion ?? endpoints.globalRegion,
      );
    }
    return this.discovered(
      'analytics',
      analyticsStackName(opts.project),
      region,
      STACK_OUTPUTS.analyticsApiUrl,
      `the analytics API is deployed with analytics_api.enabled; pass --analytics-region if it is not in ${region}, or --analytics-url`,
    );
  }

  private async localRegional(region: string): Promise<ApiTarget> {
    const endpoints = await this.localEndpoints();
    const url = endpoints.apis.regional[region];
    if (url === undefined) {
      throw new DiscoveryError(
        `The local platform has no region ${region} (it runs ${Object.keys(endpoints.apis.regional).join(', ')})`,
        'Start it with LOCAL_REGIONS=<regions> npm start to add regions.',
      );
    }
    return localTarget('regional', url, endpoints, region);
  }

  private discoveredGlobal(): Promise<ApiTarget> {
    const { project, globalRegion } = this.opts;
    return this.discovered(
      'global',
      globalStackName(project),
      globalRegion,
      STACK_OUTPUTS.globalApiUrl,
      `check --project (${project}) and --global-region (${globalRegion}), or ${ELSEWHERE}`,
    );
  }

  /** The API URL a deployed stack outputs. */
  private async discovered(
    kind: ApiKind,
    stack: string,
    region: string,
    output: string,
    hint: string,
  ): Promise<ApiTarget> {
    const url = await this.discovery.output(stack, region, output, hint);
    return { kind, url: normalizeApiUrl(url, `${stack} output`), region };
  }
}
