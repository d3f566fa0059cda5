// @ts-check
/**
 * The bundle cache behind the two launchers that run TypeScript with plain node: `npm start`
 * (bin/local.mjs) and `gco` (cli/gco.mjs). Each bundles its entry with esbuild (packages stay external,
 * resolved from node_modules) into a fresh `build-*` folder of its cache directory, records the bundle's
 * inputs (size and mtime) in `build.json`, and reuses the bundle while no input changed, so an unchanged
 * tree costs a few stat calls and never starts esbuild.
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

/** Bump when the build options below change, so existing builds are not reused. */
const BUILD_FORMAT = 2;
/** Older builds are removed once no process can still be loading them. */
const STALE_BUILD_MS = 10 * 60 * 1000;

/**
 * @typedef {object} BundleRequest
 * @property {string} root Repository root: esbuild's working directory and the base of recorded inputs.
 * @property {string} cacheDir Where builds and build.json live (inside the repository, so the bundle's
 *   bare imports resolve from node_modules).
 * @property {string} name Output name: the bundle is `<cacheDir>/build-…/<name>.js`.
 * @property {string} entry Entry point, absolute.
 * @property {import('esbuild').BuildOptions} [options] Extra esbuild options (e.g. splitting, logLevel).
 */

/**
 * The bundle of `entry`, built only when none is recorded or one of its inputs changed.
 * @param {BundleRequest} request
 * @returns {Promise<{ file: string, built: boolean }>}
 */
export async function cachedBundle(request) {
  const current = recordedBundle(request);
  return current ? { file: current, built: false } : { file: await build(request), built: true };
}

/** @param {BundleRequest} request */
function recordedBundle({ root, cacheDir, name }) {
  try {
    const manifest = JSON.parse(readFileSync(join(cacheDir, 'build.json'), 'utf8'));
    if (manifest.format !== BUILD_FORMAT || manifest.root !== root || manifest.name !== name)
      return undefined;
    /** @type {[string, number, number][]} */
    const inputs = manifest.inputs;
    const unchanged = inputs.every(([path, size, mtimeMs]) => {
      const stat = statSync(join(root, path));
      return stat.size === size && stat.mtimeMs === mtimeMs;
    });
    const file = join(cacheDir, manifest.dir, `${name}.js`);
    return unchanged && existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

/** @param {BundleRequest} request */
async function build({ root, cacheDir, name, entry, options = {} }) {
  const esbuild = await import('esbuild');
  // A fresh folder per build: a process still loading an older build keeps its files.
  const dir = `build-${Date.now().toString(36)}-${process.pid}`;
  mkdirSync(join(cacheDir, dir), { recursive: true });
  const manifestFile = join(cacheDir, 'build.json');
  try {
    const result = await esbuild.build({
      entryPoints: { [name]: entry },
      absWorkingDir: root,
      outdir: join(cacheDir, dir),
      bundle: true,
      packages: 'external',
      platform: 'node',
      target: 'node20',
      format: 'esm',
      sourcemap: true,
      logLevel: 'warning',
      ...options,
      metafile: true,
    });
    const inputs = Object.keys(result.metafile.inputs).map((path) => {
      const stat = statSync(join(root, path));
      return [path, stat.size, stat.mtimeMs];
    });
    // Rename is atomic: concurrent first runs each record a complete build, and the last one wins.
    const temp = `${manifestFile}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ format: BUILD_FORMAT, root, name, dir, inputs }));
    renameSync(temp, manifestFile);
  } catch (error) {
    rmSync(join(cacheDir, dir), { recursive: true, force: true });
    throw error;
  } finally {
    // esbuild's service is a child process that would otherwise live as long as the caller.
    await esbuild.stop();
  }
  for (const entryName of readdirSync(cacheDir)) {
    if (entryName === dir || !entryName.startsWith('build-')) continue;
    const path = join(cacheDir, entryName);
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_BUILD_MS)
        rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by a concurrent build meanwhile.
    }
  }
  return join(cacheDir, dir, `${name}.js`);
}
