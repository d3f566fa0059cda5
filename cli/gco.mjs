#!/usr/bin/env node
/**
 * The `gco` executable (package.json "bin"). There is no build step in this repository, and running the
 * TypeScript under tsx would pass every module through its loader on each start; instead this launcher
 * bundles cli/bin.ts with esbuild (packages stay external, resolved from node_modules) into
 * node_modules/.cache/gco/ and imports the bundle. The bundle is rebuilt only when one of its source files
 * changed (size or mtime differ from the recorded build), so a start costs a few stat calls plus loading
 * the bundle. docs/cli.md, "Installation", has the measurements.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Bump when the build options below change, so existing caches are rebuilt. */
const BUILD_FORMAT = 1;
const STALE_BUILD_MS = 10 * 60 * 1000;
const root = fileURLToPath(new URL('..', import.meta.url));

function cacheDirectory() {
  const inRepository = join(root, 'node_modules', '.cache', 'gco');
  try {
    mkdirSync(inRepository, { recursive: true });
    return inRepository;
  } catch {
    // A read-only installation: a per-installation folder in the temporary directory.
    const id = createHash('sha256').update(root).digest('hex').slice(0, 12);
    const fallback = join(tmpdir(), `gco-cli-${id}`);
    mkdirSync(fallback, { recursive: true });
    return fallback;
  }
}

const cache = cacheDirectory();
const manifestFile = join(cache, 'build.json');

/** The entry of the recorded build when all its inputs are unchanged; undefined otherwise. */
function currentEntry() {
  try {
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    if (manifest.format !== BUILD_FORMAT || manifest.root !== root) return undefined;
    const unchanged = manifest.inputs.every(([path, size, mtimeMs]) => {
      const stat = statSync(join(root, path));
      return stat.size === size && stat.mtimeMs === mtimeMs;
    });
    return unchanged ? join(cache, manifest.dir, 'bin.js') : undefined;
  } catch {
    return undefined;
  }
}

async function build() {
  const { build: esbuild } = await import('esbuild');
  // A fresh folder per build: a command still running from an older build keeps its files.
  const dir = `build-${Date.now().toString(36)}-${process.pid}`;
  const result = await esbuild({
    entryPoints: { bin: join(root, 'cli', 'bin.ts') },
    absWorkingDir: root,
    outdir: join(cache, dir),
    bundle: true,
    // Dynamic imports become chunks loaded on first use (the AWS SDK only when a request is signed).
    splitting: true,
    packages: 'external',
    platform: 'node',
    target: 'node20',
    format: 'esm',
    sourcemap: true,
    metafile: true,
    logLevel: 'error',
  });
  const inputs = Object.keys(result.metafile.inputs).map((path) => {
    const stat = statSync(join(root, path));
    return [path, stat.size, stat.mtimeMs];
  });
  // Rename is atomic: concurrent first runs each record a complete build, and the last one wins.
  const temp = `${manifestFile}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify({ format: BUILD_FORMAT, root, dir, inputs }));
  renameSync(temp, manifestFile);
  // Older builds go once no command can still be loading chunks from them.
  for (const entry of readdirSync(cache)) {
    if (!entry.startsWith('build-') || entry === dir) continue;
    const path = join(cache, entry);
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_BUILD_MS)
        rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by a concurrent build meanwhile.
    }
  }
  return join(cache, dir, 'bin.js');
}

const entry = currentEntry() ?? (await build());
process.setSourceMapsEnabled(true);
await import(pathToFileURL(entry).href);
