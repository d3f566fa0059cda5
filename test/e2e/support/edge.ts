/**
 * The e2e tests' only way in: SigV4-signed requests to the platform's API Gateway emulators, made with
 * the developer credentials the platform printed (contracts/runtime/sigv4.ts signs, as any SDK would).
 */
import type { LocalPlatform } from '../../../local/platform.js';
import { signedRequest, type Reply, type SignedOptions } from '../../integration/local/support.js';

export type { Reply } from '../../integration/local/support.js';

type CallOptions = Omit<SignedOptions, 'region' | 'credentials'> &
  Partial<Pick<SignedOptions, 'credentials'>>;

export interface EdgeClient {
  global(opts: CallOptions): Promise<Reply>;
  regional(region: string, opts: CallOptions): Promise<Reply>;
  analytics(opts: CallOptions): Promise<Reply>;
}

export function edgeClient(platform: LocalPlatform): EdgeClient {
  const { apis, credentials, globalRegion } = platform.endpoints;
  const call = (base: string | undefined, region: string, opts: CallOptions) => {
    if (base === undefined) throw new Error(`no API for ${region}`);
    return signedRequest(base, { credentials, ...opts, region });
  };
  return {
    global: (opts) => call(apis.global, globalRegion, opts),
    regional: (region, opts) => call(apis.regional[region], region, opts),
    analytics: (opts) => call(apis.analytics, platform.config.analyticsApi.region, opts),
  };
}

/** Polls `read` until `done` holds for its value (or the deadline passes); returns the last value. */
export async function poll<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
}
