/**
 * The control-plane proxy's environment contract: the variables both proxies share
 * (contracts/env/proxy.ts) plus its own time and size limits (docs/edge-lambdas.md).
 */
import { EnvReader, envVariables } from '../../contracts/env/reader.js';
import {
  proxyEnvironment,
  readProxyConfig,
  type ProxyConfig,
  type ProxyEnvironment,
} from '../../contracts/env/proxy.js';

/** The integration times out at 29 s, so the proxy gives up at 28 s and answers 504 itself. */
export const DEFAULT_FORWARD_TIMEOUT_MS = 28_000;
/** 4 MiB raw stays under Lambda's 6 MB response limit even base64-encoded (×4/3). */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export interface ControlPlaneProxyConfig extends ProxyConfig {
  readonly forwardTimeoutMs: number;
  readonly maxResponseBytes: number;
}

export type ControlPlaneProxyEnvironment = ProxyEnvironment &
  Partial<Pick<ControlPlaneProxyConfig, 'forwardTimeoutMs' | 'maxResponseBytes'>>;

export function controlPlaneProxyEnvironment(settings: ControlPlaneProxyEnvironment): Record<string, string> {
  return {
    ...proxyEnvironment(settings),
    ...envVariables({
      FORWARD_TIMEOUT_MS: settings.forwardTimeoutMs,
      MAX_RESPONSE_BYTES: settings.maxResponseBytes,
    }),
  };
}

/** Reads and validates the environment; throws an EnvironmentError listing every problem. */
export function readControlPlaneProxyConfig(
  env: NodeJS.ProcessEnv,
  readFile?: (path: string) => string,
): ControlPlaneProxyConfig {
  const r = new EnvReader(env);
  const proxy = readProxyConfig(r, readFile);
  const forwardTimeoutMs = r.integer('FORWARD_TIMEOUT_MS', DEFAULT_FORWARD_TIMEOUT_MS, {
    min: 1,
    max: DEFAULT_FORWARD_TIMEOUT_MS,
  });
  const maxResponseBytes = r.integer('MAX_RESPONSE_BYTES', DEFAULT_MAX_RESPONSE_BYTES, {
    min: 1,
    max: 4_718_592,
  });
  r.finish();
  return Object.freeze({ ...proxy, forwardTimeoutMs, maxResponseBytes });
}
