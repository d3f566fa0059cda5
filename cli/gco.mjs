#!/usr/bin/env node
/**
 * The `gco` executable (package.json "bin"). There is no build step in this repository, and running the
 * TypeScript under tsx would pass every module through its loader on each start; instead this launcher
 * bundles cli/bin.ts with esbuild into node_modules/.cache/gco/ (contracts/runtime/esbuild-cache.mjs: rebuilt only when
 * a source file changed) and imports the bundle, so a start costs a few stat calls plus loading the
 * bundle. docs/cli.md, "Installation", has the measurements.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cachedBundle } from '../contracts/runtime/esbuild-cache.mjs';

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
    // Packages stay external to the bundle: they must resolve from the installation's node_modules.
    const modules = join(fallback, 'node_modules');
    if (!existsSync(modules)) symlinkSync(join(root, 'node_modules'), modules, 'dir');
    return fallback;
  }
}

const bundle = await cachedBundle({
  root,
  cacheDir: cacheDirectory(),
  name: 'bin',
  entry: join(root, 'cli', 'bin.ts'),
  // Dynamic imports become chunks loaded on first use (the AWS SDK only when a request is signed).
  options: { splitting: true, logLevel: 'error' },
});
process.setSourceMapsEnabled(true);
await import(pathToFileURL(bundle.file).href);
