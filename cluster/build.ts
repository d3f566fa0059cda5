/**
 * Bundles one cluster service into a single ES module with esbuild (used by each service's Dockerfile and
 * by the bundle test). Usage: tsx cluster/build.ts <service> [outdir]
 */
import { build, type BuildResult } from 'esbuild';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLUSTER_SERVICES, type ClusterServiceName } from '../contracts/routing.js';

const root = fileURLToPath(new URL('..', import.meta.url));

export async function bundleService(service: ClusterServiceName, outdir: string): Promise<BuildResult> {
  return build({
    entryPoints: [resolve(root, 'cluster', service, 'src', 'main.ts')],
    outfile: resolve(outdir, `${service}.mjs`),
    bundle: true,
    platform: 'node',
    target: 'node24', // the images' runtime (node:24-alpine); the bundle test runs it on the project's Node 24
    format: 'esm',
    minify: true,
    sourcemap: true,
    legalComments: 'external',
    // Optional native accelerators of `ws`; the pure-JS fallbacks are used when they are absent.
    external: ['bufferutil', 'utf-8-validate'],
    // Some bundled CommonJS dependencies call require(); give the ES module bundle one.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [service, outdir = 'dist'] = process.argv.slice(2);
  if (!CLUSTER_SERVICES.includes(service as ClusterServiceName)) {
    process.stderr.write(`usage: tsx cluster/build.ts <${CLUSTER_SERVICES.join('|')}> [outdir]\n`);
    process.exit(2);
  }
  await bundleService(service as ClusterServiceName, outdir);
}
