/**
 * Lambda module init: every handler of lambda/ bundled by esbuild with exactly the options PlatformFunction
 * gives NodejsFunction (`functionBundling()` of lib/constructs/platform-function.ts), plus two anchors
 * bundled the same way: an empty handler and a handler holding one SDK client (a DynamoDBClient
 * constructed at module scope). Each bundle is imported by a fresh `node` process that records
 * `performance.now()` before and after `await import(bundle)`: the module init Lambda pays on a cold
 * start before the first invocation. Runs are interleaved (every bundle once per round, with and
 * without `--enable-source-maps`) so drift on a shared machine affects all alike; medians are reported.
 * `BENCH_INIT_RUNS` sets the rounds (default 21).
 *
 * Figures: each handler's init as deployed (with `--enable-source-maps` only where its NODE_OPTIONS has
 * it) against the one-client anchor without source maps (goal ≤ 1.5×), and the source-map cost (init
 * with the flag ÷ init without) of each handler.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import {
  GLOBAL_PROXY_BUNDLE,
  PROJECT_ROOT,
  esbuildOptionsOf,
  functionBundling,
  functionNodeOptions,
} from '../lib/constructs/platform-function.js';
import type { BenchFigure, BenchRun } from './figures.js';

const GOAL_RATIO = 1.5;
const ANCHOR_EMPTY = '(anchor) empty handler';
const ANCHOR_CLIENT = '(anchor) one SDK client';

const RUNNER = `const t0 = performance.now();
await import(process.argv[2]);
const t1 = performance.now();
process.stdout.write(String(t1 - t0));
`;

const ANCHOR_SOURCES: Record<string, string> = {
  [ANCHOR_EMPTY]: 'export const handler = async () => ({ statusCode: 200, body: "" });\n',
  [ANCHOR_CLIENT]:
    "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\n" +
    'const client = new DynamoDBClient({});\n' +
    'export const handler = async () => ({ statusCode: 200, body: String(client.config.apiVersion) });\n',
};

interface Bundle {
  readonly name: string;
  readonly file: string;
  readonly bytes: number;
  /** Whether the function's NODE_OPTIONS (as deployed) has --enable-source-maps; anchors: false. */
  readonly deployedWithSourceMaps: boolean;
}

/** The proxies deployed twice: a global bundle (GLOBAL_PROXY_BUNDLE) and a regional one. */
const PROXIES = new Set(['control-plane-proxy', 'inference-stream-proxy']);

interface Variant {
  /** Figure label. */
  readonly name: string;
  /** Folder under lambda/. */
  readonly entryName: string;
  readonly defines: Readonly<Record<string, string>>;
}

/** The handler folders of lambda/ (each with index.ts), each proxy in both of its bundles. */
function variants(): Variant[] {
  const root = join(PROJECT_ROOT, 'lambda');
  return readdirSync(root)
    .filter((d) => d !== 'shared' && existsSync(join(root, d, 'index.ts')))
    .sort()
    .flatMap((entryName) =>
      PROXIES.has(entryName)
        ? [
            { name: `${entryName} (global)`, entryName, defines: GLOBAL_PROXY_BUNDLE },
            { name: `${entryName} (regional)`, entryName, defines: {} },
          ]
        : [{ name: entryName, entryName, defines: {} }],
    );
}

async function bundle(
  name: string,
  entry: string,
  bundling: ReturnType<typeof functionBundling>,
  dir: string,
) {
  const outfile = join(dir, name.replace(/[^a-z0-9-]/gi, '_'), 'index.mjs');
  await build({ ...esbuildOptionsOf(bundling, entry, outfile), absWorkingDir: PROJECT_ROOT });
  return { outfile, bytes: statSync(outfile).size };
}

/** One fresh node process importing `file`: ms from before to after the import. */
function initOnce(runner: string, file: string, name: string, sourceMaps: boolean): number {
  const out = execFileSync(
    process.execPath,
    [...(sourceMaps ? ['--enable-source-maps'] : []), runner, file],
    {
      env: {
        PATH: process.env['PATH'] ?? '',
        AWS_REGION: 'us-east-1',
        AWS_DEFAULT_REGION: 'us-east-1',
        AWS_LAMBDA_FUNCTION_NAME: name,
        POWERTOOLS_SERVICE_NAME: name,
        POWERTOOLS_LOG_LEVEL: 'INFO',
      },
      encoding: 'utf8',
      // The SDK warns on Node < 22 (Lambda runs 22); the warning is noise here.
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  return Number(out);
}

function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2;
}

const ms = (value: number): string => `${value.toFixed(1)} ms`;
const kib = (bytes: number): string => `${Math.round(bytes / 1024)} KiB`;

export const run: BenchRun = async () => {
  const rounds = Number(process.env['BENCH_INIT_RUNS'] ?? 21);
  const dir = mkdtempSync(join(tmpdir(), 'gco-lambda-init-'));
  try {
    const runner = join(dir, 'runner.mjs');
    writeFileSync(runner, RUNNER);
    const bundles: Bundle[] = [];
    for (const { name, entryName, defines } of variants()) {
      const { outfile, bytes } = await bundle(
        name,
        join(PROJECT_ROOT, 'lambda', entryName, 'index.ts'),
        functionBundling(entryName, defines),
        dir,
      );
      bundles.push({
        name,
        file: outfile,
        bytes,
        deployedWithSourceMaps: functionNodeOptions(entryName)?.includes('--enable-source-maps') ?? false,
      });
    }
    for (const [name, source] of Object.entries(ANCHOR_SOURCES)) {
      // Inside the project so the SDK resolves from its node_modules.
      const entry = join(PROJECT_ROOT, 'bench', `_init-anchor-${bundles.length}.mjs`);
      writeFileSync(entry, source);
      try {
        const { outfile, bytes } = await bundle(name, entry, functionBundling(name), dir);
        bundles.push({ name, file: outfile, bytes, deployedWithSourceMaps: false });
      } finally {
        rmSync(entry, { force: true });
      }
    }

    const plain = new Map<string, number[]>(bundles.map((b) => [b.name, []]));
    const mapped = new Map<string, number[]>(bundles.map((b) => [b.name, []]));
    for (const b of bundles) initOnce(runner, b.file, b.name, true); // warm the page cache
    for (let round = 0; round < rounds; round++) {
      // Alternate the order so neither variant always runs first.
      for (const b of round % 2 === 0 ? bundles : [...bundles].reverse()) {
        for (const sourceMaps of round % 2 === 0 ? [false, true] : [true, false]) {
          (sourceMaps ? mapped : plain).get(b.name)?.push(initOnce(runner, b.file, b.name, sourceMaps));
        }
      }
    }

    const med = (map: Map<string, number[]>, name: string): number => median(map.get(name) ?? []);
    const anchor = med(plain, ANCHOR_CLIENT);
    const empty = med(plain, ANCHOR_EMPTY);
    const figures: BenchFigure[] = [];
    const note = `${rounds} fresh node ${process.version} processes each, medians; empty-bundle anchor ${ms(empty)}`;
    for (const b of bundles) {
      if (b.name === ANCHOR_CLIENT || b.name === ANCHOR_EMPTY) continue;
      const deployed = b.deployedWithSourceMaps ? med(mapped, b.name) : med(plain, b.name);
      const ratio = deployed / anchor;
      figures.push({
        name: `${b.name} module init (as deployed, ${b.deployedWithSourceMaps ? 'with' : 'without'} --enable-source-maps)`,
        measured: `${ms(deployed)}, ${kib(b.bytes)}`,
        anchor: `one-SDK-client bundle: ${ms(anchor)}`,
        ratio,
        goal: `≤ ${GOAL_RATIO}× one SDK client`,
        met: ratio <= GOAL_RATIO,
        note,
      });
    }
    for (const b of bundles) {
      const withMaps = med(mapped, b.name);
      const without = med(plain, b.name);
      figures.push({
        name: `${b.name} --enable-source-maps cost`,
        measured: `${ms(withMaps)} with the flag`,
        anchor: `without: ${ms(without)}`,
        ratio: withMaps / without,
        note: `+${ms(withMaps - without)}${b.deployedWithSourceMaps ? '; deployed with the flag' : ''}`,
      });
    }
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
