/**
 * Discovery of the regional APIs at run time: the fixed list from the environment, or the SSM parameters
 * under a path (the contract and its parsing: contracts/regional-apis.ts).
 */
import { awsClientConfig } from '../../contracts/runtime/aws-clients.js';
import { GetParametersByPathCommand, SSMClient, type Parameter } from '@aws-sdk/client-ssm';
import {
  collectRegionalApis,
  isRegionName,
  type DiscoveryResult,
  type DiscoverySettings,
  type RegionalApiDiscovery,
} from '../../contracts/regional-apis.js';

export class StaticDiscovery implements RegionalApiDiscovery {
  readonly source = 'env' as const;
  constructor(private readonly result: DiscoveryResult) {}

  async discover(): Promise<DiscoveryResult> {
    return this.result;
  }
}

export interface SsmDiscoveryOptions {
  client: Pick<SSMClient, 'send'>;
  /** Parameter path, e.g. `/gco/regional-api`; a trailing slash is optional. */
  path: string;
  ttlMs: number;
  now?: () => number;
  /** Told when a refresh fails and the previous answer is served instead. */
  onStale?: (error: unknown) => void;
}

/**
 * Reads `<path>/<region>` parameters with GetParametersByPath (paginated) and caches the answer for
 * `ttlMs`. A failed refresh serves the last good answer (regional APIs rarely move; an SSM hiccup should
 * not blank the global view); with no previous answer the error propagates.
 */
export class SsmDiscovery implements RegionalApiDiscovery {
  readonly source = 'ssm' as const;
  private readonly path: string;
  private readonly now: () => number;
  private cached: { result: DiscoveryResult; at: number } | undefined;
  private inFlight: Promise<DiscoveryResult> | undefined;

  constructor(private readonly options: SsmDiscoveryOptions) {
    this.path = options.path.replace(/\/+$/, '');
    this.now = options.now ?? Date.now;
  }

  async discover(signal?: AbortSignal): Promise<DiscoveryResult> {
    if (this.cached && this.now() - this.cached.at < this.options.ttlMs) return this.cached.result;
    this.inFlight ??= this.refresh(signal).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async refresh(signal?: AbortSignal): Promise<DiscoveryResult> {
    try {
      const result = await this.read(signal);
      this.cached = { result, at: this.now() };
      return result;
    } catch (error) {
      if (!this.cached) throw error;
      this.options.onStale?.(error);
      return this.cached.result;
    }
  }

  private async read(signal?: AbortSignal): Promise<DiscoveryResult> {
    const parameters: Parameter[] = [];
    let nextToken: string | undefined;
    do {
      const page = await this.options.client.send(
        new GetParametersByPathCommand({
          Path: `${this.path}/`,
          Recursive: false,
          WithDecryption: false,
          ...(nextToken ? { NextToken: nextToken } : {}),
        }),
        signal ? { abortSignal: signal } : {},
      );
      parameters.push(...(page.Parameters ?? []));
      nextToken = page.NextToken;
    } while (nextToken);
    const entries: [string, unknown][] = [];
    for (const p of parameters) {
      const region = (p.Name ?? '').slice(this.path.length + 1);
      // Anything under the path that is not named after a region is not ours to call.
      if (isRegionName(region)) entries.push([region, p.Value]);
    }
    return collectRegionalApis(entries);
  }
}

/** The discovery the settings ask for. */
export function discoveryFor(
  settings: DiscoverySettings,
  deps: { ssmClient?: Pick<SSMClient, 'send'>; onStale?: (error: unknown) => void } = {},
): RegionalApiDiscovery {
  if (settings.source === 'env') return new StaticDiscovery(settings.result);
  const { parameterRegion: region } = settings;
  return new SsmDiscovery({
    client:
      deps.ssmClient ??
      new SSMClient(
        awsClientConfig({ component: 'regional-api-discovery', ...(region !== undefined ? { region } : {}) }),
      ),
    path: settings.parameterPath,
    ttlMs: settings.cacheTtlSeconds * 1000,
    ...(deps.onStale ? { onStale: deps.onStale } : {}),
  });
}
