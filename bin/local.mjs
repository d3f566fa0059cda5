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
 * Exit codes: 0 after a clean stop on SIGINT/SIGTERM (local/cli.ts), 1 when starting fails, 130/143
 * when SIGINT/SIGTERM arrives before the platform is up.
 * LOCAL_BUNDLE=0 runs local/cli.ts under tsx's loader instead (slower to start; for debugging).
 */
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cachedBundle } from '../contracts/runtime/esbuild-cache.mjs';

const startedAt = Date.now() - process.uptime() * 1000;
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
};
for (const [signal, handler] of Object.entries(early)) process.on(signal, handler);

const env = { ...process.env, GCO_LOCAL_STARTED_AT: String(startedAt) };
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
for (const [signal, handler] of Object.entries(early)) process.off(signal, handler);
