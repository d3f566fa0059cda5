/**
 * `gco --version` start-up: the installed bin (cli/gco.mjs, what `npm install -g .` and `npx gco` run)
 * started by a fresh `node` process, against a bare `node -e 0` start on the same Node.js. Rounds are
 * interleaved so drift on a shared machine affects both alike; the first start (which may build the
 * bundle) is discarded. `BENCH_CLI_RUNS` sets the rounds (default 21). Goal: within 3× the bare start,
 * so the CLI stays quick to start as commands grow (issue 26).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchFigure, BenchRun } from './figures.js';

const GOAL_RATIO = 3;
const gco = fileURLToPath(new URL('../cli/gco.mjs', import.meta.url));

function startMs(args: readonly string[]): number {
  const t0 = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const elapsed = Number(process.hrtime.bigint() - t0) / 1e6;
  if (result.status !== 0)
    throw new Error(`node ${args.join(' ')} exited ${result.status}: ${String(result.stderr)}`);
  return elapsed;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

export const run: BenchRun = async () => {
  const rounds = Number(process.env.BENCH_CLI_RUNS ?? 21);
  startMs([gco, '--version']);
  const cli: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < rounds; i++) {
    cli.push(startMs([gco, '--version']));
    bare.push(startMs(['-e', '0']));
  }
  const ratio = median(cli) / median(bare);
  const figure: BenchFigure = {
    name: 'gco --version start (installed bin)',
    measured: `${median(cli).toFixed(1)} ms`,
    anchor: `node -e 0: ${median(bare).toFixed(1)} ms`,
    ratio,
    goal: `≤ ${GOAL_RATIO}× node -e 0`,
    met: ratio <= GOAL_RATIO,
    note: `${rounds} interleaved fresh processes each, medians; Node ${process.version}`,
  };
  return [figure];
};
