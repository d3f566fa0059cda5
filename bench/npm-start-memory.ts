/**
 * `npm start` memory and time to ready: starts `npm start` as a user does (its own process group, a
 * temporary GCO_LOCAL_DIR, random ports), waits for the whole ready banner, then samples VmRSS of every
 * process in the tree and of the platform process alone — the one that serves, identified by the `pid`
 * in the endpoints.json it wrote — and stops it with SIGINT to the process group, as Ctrl-C in a terminal
 * does. The tree is npm and the platform process: the script is `exec node bin/local.mjs`, so the shell
 * npm runs it with becomes node (no shell stays in between) and bin/local.mjs is the platform itself.
 * The first run forgets the recorded bundle (bin/local.mjs builds it), the others reuse it, as a
 * developer's starts do.
 * `BENCH_REPETITIONS` sets the number of runs (default 3).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { BenchFigure } from './figures.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const MiB = 1024 * 1024;
/** After ready: let start-up garbage be collected before sampling. */
const SETTLE_MS = 3_000;
const SAMPLES = 6;
const SAMPLE_INTERVAL_MS = 500;
const READY_TIMEOUT_MS = 120_000;
const GOAL_RATIO = 1.3;

interface ProcessRss {
  pid: number;
  name: string;
  rss: number;
}

interface Run {
  built: boolean;
  /** From spawning `npm start` to the last line of the ready banner. */
  readyMs: number;
  /** The program's own "ready in X s" (since its node process started). */
  programReadyMs: number;
  total: number;
  platform: number;
  ratio: number;
  processes: ProcessRss[];
  /** How npm ended after SIGINT: its exit code, or the signal (npm re-raises SIGINT once its script ended). */
  npmEnd: string;
  /** Whether the program printed its clean-stop line. */
  stopped: boolean;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/** VmRSS in bytes and the command name of a live process; undefined once it is gone. */
function rssOf(pid: number): ProcessRss | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const name = cmdline.slice(0, 3).join(' ') || (/^Name:\s+(.*)$/m.exec(status)?.[1] ?? '?');
    return { pid, name, rss: kib === undefined ? 0 : Number(kib) * 1024 };
  } catch {
    return undefined;
  }
}

/** A process and all its descendants (Linux /proc; every thread's children list). */
function processTree(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
  return [pid, ...children.flatMap(processTree)];
}

function waitForBanner(child: ChildProcess, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => {
      clearInterval(timer);
      reject(new Error(`npm start exited with ${code} before ready:\n${output()}`));
    };
    const timer = setInterval(() => {
      // The kubectl line is the banner's last.
      if (/ready in [\d.]+ s/.test(output()) && output().includes('kubectl:')) {
        clearInterval(timer);
        child.off('exit', onExit);
        resolve();
      }
    }, 10);
    child.once('exit', onExit);
    setTimeout(() => onExit(null), READY_TIMEOUT_MS).unref();
  });
}

async function startOnce(forceBuild: boolean): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'gco-bench-start-'));
  if (forceBuild) rmSync(join(root, '.local/build/build.json'), { force: true });
  const started = performance.now();
  // Its own process group, so SIGINT reaches npm and node together, as Ctrl-C does.
  const child = spawn('npm', ['start'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, GCO_LOCAL_DIR: dir, SIGNING_KEY: '', LOCAL_REGIONS: '', LOCAL_LOGS: '' },
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(String(code ?? signal))),
  );
  const group = child.pid ?? 0;
  try {
    await waitForBanner(child, () => out);
    const readyMs = performance.now() - started;
    const programReadyMs = Number(/ready in ([\d.]+) s/.exec(out)?.[1] ?? Number.NaN) * 1000;
    const endpoints = JSON.parse(readFileSync(join(dir, 'endpoints.json'), 'utf8')) as { pid: number };
    await sleep(SETTLE_MS);

    const totals: number[] = [];
    const platforms: number[] = [];
    let processes: ProcessRss[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const tree = processTree(group);
      if (!tree.includes(endpoints.pid)) {
        throw new Error(`the serving process ${endpoints.pid} is not below npm (${tree.join(', ')})`);
      }
      processes = tree.map(rssOf).filter((p): p is ProcessRss => p !== undefined);
      totals.push(processes.reduce((sum, p) => sum + p.rss, 0));
      platforms.push(processes.find((p) => p.pid === endpoints.pid)?.rss ?? Number.NaN);
      await sleep(SAMPLE_INTERVAL_MS);
    }
    const total = median(totals);
    const platform = median(platforms);

    process.kill(-group, 'SIGINT');
    const npmEnd = await Promise.race([exited, sleep(15_000).then(() => 'still running after 15 s')]);
    if (existsSync(join(dir, 'endpoints.json'))) throw new Error('endpoints.json left behind after SIGINT');
    return {
      built: /bundle built/.test(out),
      readyMs,
      programReadyMs,
      total,
      platform,
      ratio: total / platform,
      processes,
      npmEnd,
      stopped: /^stopped$/m.test(out),
    };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

const mib = (bytes: number): string => `${(bytes / MiB).toFixed(0)} MiB`;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

export async function run(): Promise<readonly BenchFigure[]> {
  const repetitions = Math.max(2, Number(process.env['BENCH_REPETITIONS'] ?? 3));
  const runs: Run[] = [];
  for (let i = 0; i < repetitions; i++) runs.push(await startOnce(i === 0));

  const ratios = runs.map((r) => r.ratio);
  const ratio = median(ratios);
  const last = runs[runs.length - 1];
  const breakdown = (last?.processes ?? []).map((p) => `${p.name} ${mib(p.rss)}`).join(', ');
  const exits = [...new Set(runs.map((r) => r.npmEnd))].join('/');
  const stopped = runs.filter((r) => r.stopped).length;
  const cached = runs.filter((r) => !r.built);
  const built = runs.filter((r) => r.built);
  const readyFigure = (label: string, sample: readonly Run[]): BenchFigure => {
    const wall = median(sample.map((r) => r.readyMs));
    const program = median(sample.map((r) => r.programReadyMs));
    return {
      name: `npm start time to ready, ${label}`,
      measured: seconds(wall),
      anchor: `the program's own "ready in" (from its node process start): ${seconds(program)}`,
      ratio: wall / program,
      note: `${sample.length} run(s); the difference is npm's own start-up`,
    };
  };
  return [
    {
      name: 'npm start total RSS after ready (npm + the platform process)',
      measured: mib(median(runs.map((r) => r.total))),
      anchor: `the platform process alone: ${mib(median(runs.map((r) => r.platform)))}`,
      ratio,
      goal: `≤ ${GOAL_RATIO}× the platform process alone`,
      met: ratio <= GOAL_RATIO,
      note:
        `median of ${runs.length} runs (ratios ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}), ` +
        `${SAMPLES} samples each ${SETTLE_MS / 1000} s after ready; last run: ${breakdown}; after SIGINT to the group the platform stopped cleanly in ${stopped}/${runs.length} runs, npm ended by ${exits}`,
    },
    ...(cached.length > 0 ? [readyFigure('bundle unchanged', cached)] : []),
    ...(built.length > 0 ? [readyFigure('bundle built', built)] : []),
  ];
}
