/**
 * The `npm start` program (bin/local.mjs bundles it and runs it in its own process): starts the
 * platform with progress lines, writes `endpoints.json` and `kubeconfig`, prints a ready line, every
 * URL, the credentials (never the signing key: it is in endpoints.json) and three copy-paste
 * `curl --aws-sigv4` examples, and stops cleanly on SIGINT, SIGTERM, SIGHUP or when its parent dies
 * (local/stop-requests.ts), removing endpoints.json.
 *
 * Arguments: `--data-dir DIR` keeps the platform's state in DIR (local/data-dir.ts; relative to the
 * directory npm was run from, INIT_CWD: https://docs.npmjs.com/cli/v11/using-npm/scripts#current-lifecycle-event).
 * Environment: GCO_LOCAL_DIR (output folder), GCO_LOCAL_DATA_DIR (the same as --data-dir, which wins),
 * SIGNING_KEY (envelope key), LOCAL_REGIONS (comma-separated deployment regions, default us-east-1),
 * LOCAL_ACCESS_KEY_ID / LOCAL_SECRET_ACCESS_KEY (fixed credentials instead of random or kept ones),
 * LOCAL_LOGS=json (service, Lambda and access logs to stdout).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { EnvReader } from '../contracts/env/reader.js';
import type { LocalEndpoints } from './platform.js';
import { onStopRequest } from './stop-requests.js';

interface CliSettings {
  /** Epoch ms the launcher started (GCO_LOCAL_STARTED_AT), so reported times include module loading. */
  startedAt: number;
  outDir: string;
  regions: string[];
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  signingKey: string | undefined;
  logs: 'json' | 'silent';
  /** Where the state is kept; undefined = in memory. */
  dataDir: string | undefined;
  /** The parent's pid when the launcher started (GCO_LOCAL_PARENT_PID, set by bin/local.mjs). */
  parentPid: number;
}

/** `--data-dir DIR` (the only argument); anything else is refused with the usage. */
function dataDirArgument(args: readonly string[]): string | undefined {
  try {
    const { values } = parseArgs({
      args: [...args],
      options: { 'data-dir': { type: 'string' } },
      strict: true,
      allowPositionals: false,
    });
    return values['data-dir'];
  } catch (error) {
    throw new Error(`${(error as Error).message}\nusage: npm start [-- --data-dir DIR]`, { cause: error });
  }
}

/** The program's environment (see the header), read with the one EnvReader. */
function loadCliSettings(env: NodeJS.ProcessEnv, args: readonly string[]): CliSettings {
  const read = new EnvReader(env);
  const dataDir = dataDirArgument(args) ?? read.optional('GCO_LOCAL_DATA_DIR');
  if (dataDir === '') read.problem('--data-dir needs a directory');
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
    dataDir: dataDir ? resolve(read.string('INIT_CWD', process.cwd()), dataDir) : undefined,
    parentPid: read.integer('GCO_LOCAL_PARENT_PID', process.ppid, { min: 0 }),
  };
  read.finish();
  return settings;
}

/** A clean stop closes every listener within this; past it the process exits with 1. */
const STOP_DEADLINE_MS = 8_000;

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

export async function main(
  env: NodeJS.ProcessEnv = process.env,
  args: readonly string[] = process.argv.slice(2),
): Promise<void> {
  const settings = loadCliSettings(env, args);
  const started = settings.startedAt;
  const outDir = settings.outDir;
  const endpointsFile = join(outDir, 'endpoints.json');
  const kubeconfigFile = join(outDir, 'kubeconfig');
  const say = (line: string) => process.stdout.write(`${line}\n`);
  // A stdout whose reader died (the parent's pipe) must not end the process before its clean stop.
  process.stdout.on('error', () => undefined);
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;

  // Loaded here, not imported at the top, so the progress above shows while the modules load.
  const { startLocalPlatform } = await import('./platform.js');
  say(`  up  ${elapsed().padStart(6)}  code loaded`);
  const platform = await startLocalPlatform({
    ...(settings.signingKey ? { signingKey: settings.signingKey } : {}),
    ...(settings.regions.length > 0 ? { regions: settings.regions } : {}),
    ...(settings.credentials ? { credentials: settings.credentials } : {}),
    logs: settings.logs,
    ...(settings.dataDir === undefined ? {} : { dataDir: settings.dataDir }),
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
  say(
    settings.dataDir === undefined
      ? 'Credentials (this run only):'
      : 'Credentials (kept in the data directory):',
  );
  say(`  export AWS_ACCESS_KEY_ID=${endpoints.credentials.accessKeyId}`);
  say(`  export AWS_SECRET_ACCESS_KEY=${endpoints.credentials.secretAccessKey}`);
  // Never printed: terminals, CI logs and screen shares keep output (the file is mode 600).
  say(`  envelope signing key: "signingKey" in ${endpointsFile}`);
  say('');
  say(
    settings.dataDir === undefined
      ? 'State: in memory: jobs, queue, webhooks, applications and keys are lost when this process stops (npm start -- --data-dir DIR keeps them)'
      : `State: kept in ${settings.dataDir} (a restart, even after kill -9, resumes it)`,
  );
  say('');
  say('Try:');
  for (const line of curlExamples(endpoints)) say(`  ${line}`);
  say('');
  say(`endpoints: ${endpointsFile}`);
  say(`kubectl:   kubectl --kubeconfig ${kubeconfigFile} get nodes,pods -A`);

  onStopRequest((reason) => {
    say(`\n${reason}: stopping …`);
    // endpoints.json names this run only: it goes even when closing takes too long.
    const deadline = setTimeout(() => {
      rmSync(endpointsFile, { force: true });
      process.exit(1);
    }, STOP_DEADLINE_MS);
    deadline.unref();
    void platform.close().then(() => {
      rmSync(endpointsFile, { force: true });
      say('stopped');
      process.exit(0);
    });
  }, settings.parentPid);
}
