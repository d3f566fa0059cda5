/**
 * The inference proxy's environment contract: the variables both proxies share
 * (contracts/env/proxy.ts) plus its own stream timeouts (docs/edge-lambdas.md).
 */
import { EnvReader, envVariables } from '../../contracts/env/reader.js';
import {
  proxyEnvironment,
  readProxyConfig,
  type ProxyConfig,
  type ProxyEnvironment,
} from '../../contracts/env/proxy.js';

/**
 * Default wait for the backend's response headers. Edge-optimized APIs (the global API) drop a stream
 * that stays silent for 30 s, so the global default answers 504 at 28 s; regional endpoints allow
 * 5 minutes of idle time.
 */
export const DEFAULT_HEADER_TIMEOUT_MS = { global: 28_000, regional: 290_000 } as const;
/** Whole-stream cap, just under the 900 s function timeout so the proxy ends the stream itself. */
export const DEFAULT_STREAM_TIMEOUT_MS = 895_000;

export interface InferenceProxyConfig extends ProxyConfig {
  readonly headerTimeoutMs: number;
  readonly streamTimeoutMs: number;
}

export type InferenceStreamProxyEnvironment = ProxyEnvironment &
  Partial<Pick<InferenceProxyConfig, 'headerTimeoutMs' | 'streamTimeoutMs'>>;

export function inferenceProxyEnvironment(settings: InferenceStreamProxyEnvironment): Record<string, string> {
  return {
    ...proxyEnvironment(settings),
    ...envVariables({
      HEADER_TIMEOUT_MS: settings.headerTimeoutMs,
      STREAM_TIMEOUT_MS: settings.streamTimeoutMs,
    }),
  };
}

/** Reads and validates the environment; throws an EnvironmentError listing every problem. */
export function readInferenceProxyConfig(
  env: NodeJS.ProcessEnv,
  readFile?: (path: string) => string,
): InferenceProxyConfig {
  const r = new EnvReader(env);
  const proxy = readProxyConfig(r, readFile);
  const headerTimeoutMs = r.integer('HEADER_TIMEOUT_MS', DEFAULT_HEADER_TIMEOUT_MS[proxy.mode], {
    min: 1,
    max: 895_000,
  });
  const streamTimeoutMs = r.integer('STREAM_TIMEOUT_MS', DEFAULT_STREAM_TIMEOUT_MS, {
    min: 1,
    max: 900_000,
  });
  r.finish();
  return Object.freeze({ ...proxy, headerTimeoutMs, streamTimeoutMs });
}
