// @ts-check
/**
 * `npm start`: the whole platform on 127.0.0.1 (docs/local-platform.md; the program is local/cli.ts).
 *
 * Plain JavaScript run by plain node, so nothing but this process stays beside the platform: it IS the
 * platform process. Under tsx every one of the thousands of modules the platform loads would go through
 * tsx's loader hooks (several seconds), so the platform's TypeScript is bundled with esbuild (packages
 * stay external, resolved from node_modules; well under a second) into `.local/build/build-*` and the
 * bundle is imported here. esbuild's service process is stopped as soon as the bundle is written, and
 * the bundle is rebuilt only when one of its source files changed (size or mtime differ from the
 * recorded build), so an unchanged tree never starts esbuild at all.
 *
 * Exit codes: 0 after a clean stop on SIGINT/SIGTERM (local/cli.ts), 1 when starting fails, 130/143
 * when SIGINT/SIGTERM arrives before the platform is up.
 * LOCAL_BUNDLE=0 runs local/cli.ts under tsx's loader instead (slower to start; for debugging).
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const startedAt = Date.now() - process.uptime() * 1000;
const root = fileURLToPath(new URL('..', import.meta.url));
/** Bump when the build options below change, so existing builds are not reused. */
const BUILD_FORMAT = 1;
/** Older builds are removed once no start can still be loading them. */
const STALE_BUILD_MS = 10 * 60 * 1000;
const buildRoot = join(root, '.local', 'build');
const manifestFile = join(buildRoot, 'build.json');

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

/** The recorded bundle when none of its inputs changed since it was built; undefined otherwise. */
function currentBundle() {
  try {
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    if (manifest.format !== BUILD_FORMAT || manifest.root !== root) return undefined;
    /** @type {[string, number, number][]} */
    const inputs = manifest.inputs;
    const unchanged = inputs.every(([path, size, mtimeMs]) => {
      const stat = statSync(join(root, path));
      return stat.size === size && stat.mtimeMs === mtimeMs;
    });
    const bundle = join(buildRoot, manifest.dir, 'local.mjs');
    return unchanged && existsSync(bundle) ? bundle : undefined;
  } catch {
    return undefined;
  }
}

/** Bundles local/cli.ts into a fresh folder, records it, stops esbuild and removes stale builds. */
async function build() {
  const esbuild = await import('esbuild');
  // A fresh folder per build: a start still loading an older build keeps its files.
  const dir = `build-${Date.now().toString(36)}-${process.pid}`;
  mkdirSync(join(buildRoot, dir), { recursive: true });
  try {
    const result = await esbuild.build({
      entryPoints: [join(root, 'local', 'cli.ts')],
      absWorkingDir: root,
      // Inside the repository so the bundle's bare imports resolve from node_modules.
      outfile: join(buildRoot, dir, 'local.mjs'),
      bundle: true,
      packages: 'external',
      platform: 'node',
      target: 'node20',
      format: 'esm',
      sourcemap: true,
      metafile: true,
      logLevel: 'warning',
    });
    const inputs = Object.keys(result.metafile.inputs).map((path) => {
      const stat = statSync(join(root, path));
      return [path, stat.size, stat.mtimeMs];
    });
    // Rename is atomic: concurrent first starts each record a complete build, and the last one wins.
    const temp = `${manifestFile}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ format: BUILD_FORMAT, root, dir, inputs }));
    renameSync(temp, manifestFile);
  } catch (error) {
    rmSync(join(buildRoot, dir), { recursive: true, force: true });
    throw error;
  } finally {
    // esbuild's service is a child process that would otherwise live as long as the platform.
    await esbuild.stop();
  }
  for (const entry of readdirSync(buildRoot)) {
    if (entry === dir || !/^build-|^\d+$/.test(entry)) continue;
    const path = join(buildRoot, entry);
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_BUILD_MS)
        rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by a concurrent start meanwhile.
    }
  }
  return join(buildRoot, dir, 'local.mjs');
}

const env = { ...process.env, GCO_LOCAL_STARTED_AT: String(startedAt) };
/** @type {{ main: (env: NodeJS.ProcessEnv) => Promise<void> }} */
let program;
if (process.env.LOCAL_BUNDLE === '0') {
  const { tsImport } = await import('tsx/esm/api');
  program = await tsImport('../local/cli.ts', import.meta.url);
} else {
  const cached = currentBundle();
  const bundle = cached ?? (await build());
  say(`  up  ${elapsed()}  ${cached ? 'bundle unchanged' : 'bundle built'} (${bundle.slice(root.length)})`);
  process.setSourceMapsEnabled(true);
  program = await import(pathToFileURL(bundle).href);
}
await program.main(env);
for (const [signal, handler] of Object.entries(early)) process.off(signal, handler);
