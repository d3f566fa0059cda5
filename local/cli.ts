/**
 * The `npm start` program (bin/local.mjs bundles it and runs it in its own process): starts the
 * platform with progress lines, writes `endpoints.json` and `kubeconfig`, prints a ready line, every
 * URL, the credentials and three copy-paste `curl --aws-sigv4` examples, and stops cleanly on
 * SIGINT/SIGTERM.
 *
 * Environment: GCO_LOCAL_DIR (output folder), SIGNING_KEY (envelope key), LOCAL_REGIONS (comma-separated
 * deployment regions, default us-east-1), LOCAL_ACCESS_KEY_ID / LOCAL_SECRET_ACCESS_KEY (fixed
 * credentials instead of random ones), LOCAL_LOGS=json (service, Lambda and access logs to stdout).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EnvReader } from '../contracts/env/reader.js';
import type { LocalEndpoints } from './platform.js';

interface CliSettings {
  /** Epoch ms the launcher started (GCO_LOCAL_STARTED_AT), so reported times include module loading. */
  startedAt: number;
  outDir: string;
  regions: string[];
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  signingKey: string | undefined;
  logs: 'json' | 'silent';
}

/** The program's environment (see the header), read with the one EnvReader. */
function loadCliSettings(env: NodeJS.ProcessEnv): CliSettings {
  const read = new EnvReader(env);
  const launched = read.number('GCO_LOCAL_STARTED_AT', 0, { min: 0 });
  const accessKeyId = read.optional('LOCAL_ACCESS_KEY_ID');
  const secretAccessKey = read.optional('LOCAL_SECRET_ACCESS_KEY');
  const settings: CliSettings = {
    startedAt: launched > 0 ? launched : Date.now() - process.uptime() * 1000,
    outDir: resolve(read.string('GCO_LOCAL_DIR', '.local')),
    regions: read.list('LOCAL_REGIONS', []),
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    signingKey: read.optional('SIGNING_KEY'),
    logs: read.string('LOCAL_LOGS', 'silent') === 'json' ? 'json' : 'silent',
  };
  read.finish();
  return settings;
}

/** The three examples: a global aggregate, a job listing through the accelerator, streamed inference. */
export function curlExamples(e: LocalEndpoints): string[] {
  const sig = (region: string) =>
    `curl --aws-sigv4 "aws:amz:${region}:execute-api" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY"`;
  const completion = JSON.stringify({ prompt: 'Hello', max_tokens: 8, stream: true });
  return [
    `${sig(e.globalRegion)} ${e.apis.global}/api/v1/global/health`,
    `${sig(e.globalRegion)} "${e.apis.global}/api/v1/jobs?namespace=svc-jobs"`,
    `${sig(e.globalRegion)} -N -H 'content-type: application/json' -d '${completion}' ${e.apis.global}/inference/${e.inference.endpoint}/v1/completions`,
  ];
}

export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const settings = loadCliSettings(env);
  const started = settings.startedAt;
  const outDir = settings.outDir;
  const endpointsFile = join(outDir, 'endpoints.json');
  const kubeconfigFile = join(outDir, 'kubeconfig');
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;

  // Loaded here, not imported at the top, so the progress above shows while the modules load.
  const { startLocalPlatform } = await import('./platform.js');
  say(`  up  ${elapsed().padStart(6)}  code loaded`);
  const platform = await startLocalPlatform({
    ...(settings.signingKey ? { signingKey: settings.signingKey } : {}),
    ...(settings.regions.length > 0 ? { regions: settings.regions } : {}),
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    logs: settings.logs,
    onProgress: (message) => say(`  up  ${elapsed().padStart(6)}  ${message}`),
  });
  const { endpoints } = platform;

  mkdirSync(outDir, { recursive: true });
  writeFileSync(endpointsFile, `${JSON.stringify(endpoints, null, 2)}\n`, { mode: 0o600 });
  writeFileSync(kubeconfigFile, platform.kubeConfigYaml, { mode: 0o600 });

  say('');
  say(`ready in ${elapsed()} — press Ctrl-C to stop`);
  say('');
  say('APIs (SigV4, service execute-api):');
  say(`  global     ${endpoints.globalRegion.padEnd(12)} ${endpoints.apis.global}`);
  for (const [region, url] of Object.entries(endpoints.apis.regional))
    say(`  regional   ${region.padEnd(12)} ${url}`);
  if (endpoints.apis.analytics) {
    say(`  analytics  ${platform.config.analyticsApi.region.padEnd(12)} ${endpoints.apis.analytics}`);
  }
  say('');
  say('Regions:');
  for (const [region, r] of Object.entries(endpoints.regions)) {
    say(`  ${region}  ALB ${r.alb}  kubernetes ${r.kubernetes}`);
    for (const [name, url] of Object.entries(r.services)) say(`    ${name.padEnd(20)}${url}`);
  }
  say(`  accelerator ${endpoints.edge.acceleratorDns} → 127.0.0.1:${endpoints.edge.acceleratorPort}`);
  say(`  model server (${endpoints.inference.endpoint}) ${endpoints.inference.modelServer}`);
  say('');
  say('Credentials (this run only):');
  say(`  export AWS_ACCESS_KEY_ID=${endpoints.credentials.accessKeyId}`);
  say(`  export AWS_SECRET_ACCESS_KEY=${endpoints.credentials.secretAccessKey}`);
  say(`  signing key (envelope v1): ${endpoints.signingKey}`);
  say('');
  say('Try:');
  for (const line of curlExamples(endpoints)) say(`  ${line}`);
  say('');
  say(`endpoints: ${endpointsFile}`);
  say(`kubectl:   kubectl --kubeconfig ${kubeconfigFile} get nodes,pods -A`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`\n${signal}: stopping …`);
    const deadline = setTimeout(() => process.exit(1), 10_000);
    deadline.unref();
    void platform.close().then(() => {
      rmSync(endpointsFile, { force: true });
      say('stopped');
      process.exit(0);
    });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
