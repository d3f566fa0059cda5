/**
 * `npm start`: runs the platform on 127.0.0.1, prints every URL and the signing key, writes
 * `.local/endpoints.json` (and `.local/kubeconfig` for kubectl) and stops cleanly on Ctrl-C.
 * GCO_LOCAL_DIR overrides the output folder; SIGNING_KEY fixes the envelope key.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startLocalPlatform } from '../lib/local/platform.js';

const outDir = resolve(process.env.GCO_LOCAL_DIR ?? '.local');
const endpointsFile = join(outDir, 'endpoints.json');
const kubeconfigFile = join(outDir, 'kubeconfig');
const started = Date.now();
const say = (line: string) => process.stdout.write(`${line}\n`);

say('gco-platform: starting the local platform on 127.0.0.1 …');
const platform = await startLocalPlatform({
  ...(process.env.SIGNING_KEY ? { signingKey: process.env.SIGNING_KEY } : {}),
  logs: process.env.LOCAL_LOGS === 'json' ? 'json' : 'silent',
  onProgress: (message) => say(`  up  ${message}`),
});
const { endpoints } = platform;

mkdirSync(outDir, { recursive: true });
writeFileSync(endpointsFile, `${JSON.stringify(endpoints, null, 2)}\n`, { mode: 0o600 });
writeFileSync(kubeconfigFile, platform.kubeConfigYaml, { mode: 0o600 });

say('');
say(`signing key (envelope v1): ${endpoints.signingKey}`);
say(`endpoints:                 ${endpointsFile}`);
say(`kubectl:                   kubectl --kubeconfig ${kubeconfigFile} get nodes,pods -A`);
say(`try:                       curl ${endpoints.services['health-monitor']}/api/v1/health`);
say(
  `                           npx tsx bin/signed-request.ts GET ${endpoints.services['manifest-processor']}/api/v1/jobs`,
);
say('');
say(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s — press Ctrl-C to stop`);

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
