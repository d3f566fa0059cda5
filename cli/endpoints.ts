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
import { StackDiscovery } from './discovery.js';
import { fileDiscoveryCache } from './discovery-cache.js';
import { DiscoveryError, UsageError } from './errors.js';
import type { CliIo } from './io.js';
import { findEndpointsFile, readLocalEndpoints, type LocalEndpoints } from './local-endpoints.js';
import type { GlobalOptions } from './options.js';
import { STACK_OUTPUTS, analyticsStackName, globalStackName, regionalStackName } from './stack-outputs.js';

export type ApiKind = 'global' | 'regional' | 'analytics';

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

export function createEndpoints(opts: GlobalOptions, io: CliIo): Endpoints {
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
  });
  const elsewhere = 'give the URL with --api-url, or use --local for the local platform';

  const discoveredGlobal = async (): Promise<ApiTarget> => {
    const stack = globalStackName(opts.project);
    const url = await discovery.output(
      stack,
      opts.globalRegion,
      STACK_OUTPUTS.globalApiUrl,
      `check --project (${opts.project}) and --global-region (${opts.globalRegion}), or ${elsewhere}`,
    );
    return { kind: 'global', url: normalizeApiUrl(url, `${stack} output`), region: opts.globalRegion };
  };

  const global = async (): Promise<ApiTarget> => {
    if (opts.apiUrl !== undefined)
      return explicitTarget('global', opts.apiUrl, '--api-url', opts.globalRegion);
    if (opts.local) {
      const endpoints = await localEndpoints();
      return {
        kind: 'global',
        url: normalizeApiUrl(endpoints.apis.global, endpoints.file),
        region: endpoints.globalRegion,
      };
    }
    return discoveredGlobal();
  };

  const control = async (): Promise<ApiTarget> => {
    const region = opts.region;
    if (opts.apiUrl !== undefined) {
      return explicitTarget(
        region ? 'regional' : 'global',
        opts.apiUrl,
        '--api-url',
        region ?? opts.globalRegion,
      );
    }
    if (opts.local) {
      const endpoints = await localEndpoints();
      if (region === undefined) return global();
      const url = endpoints.apis.regional[region];
      if (url === undefined) {
        throw new DiscoveryError(
          `The local platform has no region ${region} (it runs ${Object.keys(endpoints.apis.regional).join(', ')})`,
          'Start it with LOCAL_REGIONS=<regions> npm start to add regions.',
        );
      }
      return { kind: 'regional', url: normalizeApiUrl(url, endpoints.file), region };
    }
    if (region === undefined) {
      if (!partitionOf(opts.globalRegion).hasGlobalAccelerator) {
        throw new UsageError(
          `In the ${partitionOf(opts.globalRegion).partition} partition the global API serves only the aggregate routes`,
          'Pass --region R to call a regional API.',
        );
      }
      return discoveredGlobal();
    }
    const stack = regionalStackName(opts.project, region);
    const url = await discovery.output(
      stack,
      region,
      STACK_OUTPUTS.regionalApiUrl,
      `check that ${region} is a deployment region of project ${opts.project}, or ${elsewhere}`,
    );
    return { kind: 'regional', url: normalizeApiUrl(url, `${stack} output`), region };
  };

  const analytics = async (): Promise<ApiTarget> => {
    const region = opts.analyticsRegion ?? opts.globalRegion;
    if (opts.analyticsUrl !== undefined) {
      return explicitTarget('analytics', opts.analyticsUrl, '--analytics-url', region);
    }
    if (opts.local) {
      const endpoints = await localEndpoints();
      if (endpoints.apis.analytics === undefined) {
        throw new DiscoveryError('The local platform runs without the analytics API');
      }
      return {
        kind: 'analytics',
        url: normalizeApiUrl(endpoints.apis.analytics, endpoints.file),
        region: opts.analyticsRegion ?? endpoints.globalRegion,
      };
    }
    const stack = analyticsStackName(opts.project);
    const url = await discovery.output(
      stack,
      region,
      STACK_OUTPUTS.analyticsApiUrl,
      `the analytics API is deployed with analytics_api.enabled; pass --analytics-region if it is not in ${region}, or --analytics-url`,
    );
    return { kind: 'analytics', url: normalizeApiUrl(url, `${stack} output`), region };
  };

  return { control, global, analytics, credentials, close: () => discovery.close() };
}
