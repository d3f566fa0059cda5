/**
 * `npm start`: the whole platform on 127.0.0.1 (docs/local-platform.md; the program is local/cli.ts).
 *
 * Under tsx every one of the thousands of modules the platform loads goes through tsx's loader hooks,
 * which alone takes several seconds. So this launcher bundles the platform's TypeScript with esbuild
 * (packages stay external, resolved from node_modules; well under a second) into `.local/build/`, runs
 * the bundle with plain node, relays SIGINT/SIGTERM and exits with its exit code.
 * LOCAL_BUNDLE=0 runs the program in this process instead (slower to start; for debugging).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const startedAt = Date.now() - process.uptime() * 1000;
const root = fileURLToPath(new URL('..', import.meta.url));
process.stdout.write('gco-platform: starting the local platform on 127.0.0.1 …\n');

if (process.env.LOCAL_BUNDLE === '0') {
  const { main } = await import('../local/cli.js');
  await main({ ...process.env, GCO_LOCAL_STARTED_AT: String(startedAt) });
} else {
  const { build } = await import('esbuild');
  // Inside the repository so the bundle's bare imports resolve from node_modules; one folder per run.
  const outDir = join(root, '.local', 'build', String(process.pid));
  mkdirSync(outDir, { recursive: true });
  const bundle = join(outDir, 'local.mjs');
  await build({
    stdin: {
      contents: "import { main } from './local/cli.ts';\nawait main();\n",
      resolveDir: root,
      sourcefile: 'npm-start.ts',
      loader: 'ts',
    },
    outfile: bundle,
    bundle: true,
    packages: 'external',
    platform: 'node',
    target: 'node20',
    format: 'esm',
    sourcemap: true,
    logLevel: 'warning',
  });
  const child = spawn(process.execPath, ['--enable-source-maps', bundle], {
    stdio: 'inherit',
    env: { ...process.env, GCO_LOCAL_STARTED_AT: String(startedAt) },
  });
  const relay = (signal: NodeJS.Signals) => () => child.kill(signal);
  process.on('SIGINT', relay('SIGINT'));
  process.on('SIGTERM', relay('SIGTERM'));
  child.once('exit', (code, signal) => {
    rmSync(outDir, { recursive: true, force: true });
    process.exit(code ?? (signal ? 1 : 0));
  });
}
