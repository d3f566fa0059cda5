// @ts-check
/**
 * `npm start`: the whole platform on 127.0.0.1 (docs/local-platform.md; the program is local/cli.ts).
 *
 * Plain JavaScript run by plain node, so nothing but this process stays beside the platform: it IS the
 * platform process. Under tsx every one of the thousands of modules the platform loads would go through
 * tsx's loader hooks (several seconds), so the platform's TypeScript is bundled with esbuild into
 * `.local/build/build-*` (contracts/runtime/esbuild-cache.mjs: rebuilt only when a source file changed, esbuild's
 * service stopped as soon as the bundle is written) and the bundle is imported here.
 *
 * package.json runs it as `exec node bin/local.mjs`, so npm's process is its parent and the signals npm
 * forwards reach it (local/stop-requests.ts explains why the shell in between must go).
 *
 * Exit codes: 0 after a clean stop on SIGINT/SIGTERM/SIGHUP or the parent's death (local/cli.ts), 1 when
 * starting fails, 130/143/129 when SIGINT/SIGTERM/SIGHUP arrives before the platform is up (128 + the
 * signal number, as a shell reports a process a signal ended), 1 when the parent dies before then.
 * LOCAL_BUNDLE=0 runs local/cli.ts under tsx's loader instead (slower to start; for debugging).
 */
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cachedBundle } from '../contracts/runtime/esbuild-cache.mjs';

const startedAt = Date.now() - process.uptime() * 1000;
// Recorded first: a parent that dies while the platform starts is noticed (local/stop-requests.ts).
const parentPid = process.ppid;
const root = fileURLToPath(new URL('..', import.meta.url));

const say = (/** @type {string} */ line) => process.stdout.write(`${line}\n`);
const elapsed = () => `${((Date.now() - startedAt) / 1000).toFixed(1)} s`.padStart(6);
say('gco-platform: starting the local platform on 127.0.0.1 …');

// Until local/cli.ts has installed its own handlers (clean stop, exit 0), a signal ends the start.
/** @type {Record<string, () => void>} */
const early = {
  SIGINT: () => {
    say('\nSIGINT before ready: stopped');
    process.exit(130);
  },
  SIGTERM: () => {
    say('\nSIGTERM before ready: stopped');
    process.exit(143);
  },
  SIGHUP: () => {
    say('\nSIGHUP before ready: stopped');
    process.exit(129);
  },
};
for (const [signal, handler] of Object.entries(early)) process.on(signal, handler);
const orphaned = setInterval(() => {
  if (parentPid > 1 && process.ppid !== parentPid) {
    say('\nparent exited before ready: stopped');
    process.exit(1);
  }
}, 500);
orphaned.unref();

const env = {
  ...process.env,
  GCO_LOCAL_STARTED_AT: String(startedAt),
  GCO_LOCAL_PARENT_PID: String(parentPid),
};
/** @type {{ main: (env: NodeJS.ProcessEnv) => Promise<void> }} */
let program;
if (process.env.LOCAL_BUNDLE === '0') {
  const { tsImport } = await import('tsx/esm/api');
  program = await tsImport('../local/cli.ts', import.meta.url);
} else {
  const bundle = await cachedBundle({
    root,
    cacheDir: join(root, '.local', 'build'),
    name: 'local',
    entry: join(root, 'local', 'cli.ts'),
  });
  const state = bundle.built ? 'bundle built' : 'bundle unchanged';
  say(`  up  ${elapsed()}  ${state} (${bundle.file.slice(root.length)})`);
  process.setSourceMapsEnabled(true);
  program = await import(pathToFileURL(bundle.file).href);
}
await program.main(env);
clearInterval(orphaned);
for (const [signal, handler] of Object.entries(early)) process.off(signal, handler);
