/**
 * The inference-proxy as its own process for bench/inference-proxy.ts, so its CPU time can be read from
 * /proc apart from the model server and the client. Reads the CA, the model port and the signing key from
 * the environment, listens on a free loopback port and prints `{"port":N}` once ready. Node flags such as
 * `--cpu-prof` are passed by the parent (BENCH_PROXY_NODE_ARGS).
 */
import { readFileSync } from 'node:fs';
import { createInferenceProxy } from '../cluster/inference-proxy/src/app.js';
import { StaticEndpointSource } from '../cluster/inference-proxy/src/store.js';
import { silentServiceLogger } from '../cluster/shared/logger.js';
import { EnvelopeVerifier } from '../contracts/envelope/envelope.js';
import { staticKeySource } from '../contracts/envelope/signing-keys.js';

const required = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is required`);
  return value;
};

const proxy = await createInferenceProxy({
  config: {
    region: 'bench-1',
    upstreamTimeoutMs: 30_000,
    streamIdleTimeoutMs: 30_000,
    endpointCacheTtlMs: 60_000,
  },
  envelope: new EnvelopeVerifier({ keys: staticKeySource({ current: required('BENCH_KEY') }) }),
  endpoints: new StaticEndpointSource([
    {
      endpoint_name: 'bench',
      regions: { 'bench-1': { state: 'running' } },
      service: '127.0.0.1',
      port: Number(required('BENCH_MODEL_PORT')),
      serving_paths: ['/first', '/stream', '/sse'],
    },
  ]),
  ca: readFileSync(required('BENCH_CA_FILE')),
  logger: silentServiceLogger(),
});
const url = new URL(await proxy.app.listen({ host: '127.0.0.1', port: 0 }));
process.stdout.write(`${JSON.stringify({ port: Number(url.port) })}\n`);

const stop = (): void => {
  void proxy.app.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
