/**
 * `npm run bench`: runs every benchmark module in bench/ (each exports `run: BenchRun`, see figures.ts),
 * prints each figure as a ratio against its anchor measured in the same run, and writes the latest
 * results to bench/RESULTS.md with the machine description and the command. Benchmarks measure; they
 * never assert wall-clock budgets. Pass names to run a subset: `npm run bench -- inference-proxy`
 * (a subset run prints but leaves RESULTS.md alone unless `--write` is given).
 *
 * Repetition is each module's own: every module runs its trials (three unless its environment says
 * otherwise) and reports the median per figure, with the single runs in the note. The harness adds the
 * 1-minute load average (os.loadavg()) before and after each group, printed and written beside it, so a
 * figure from a busy machine can be told from one from a quiet machine.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, release } from 'node:os';
import { basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchFigure, BenchRun } from './figures.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const args = process.argv.slice(2);
const write = args.includes('--write');
const wanted = new Set(args.filter((a) => !a.startsWith('--')));
const nameOf = (file: string): string => basename(basename(file, '.ts'), '.bench');
const NOT_MODULES = new Set(['run.ts', 'figures.ts']);
const modules = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && !NOT_MODULES.has(f) && !f.startsWith('_'))
  .filter((f) => wanted.size === 0 || wanted.has(nameOf(f)))
  .sort();

if (modules.length === 0) {
  process.stderr.write(`no benchmark matches ${[...wanted].join(', ')}\n`);
  process.exit(2);
}

const formatRatio = (ratio: number | null): string => (ratio === null ? '—' : `${ratio.toFixed(2)}×`);
const formatMet = (figure: BenchFigure): string =>
  figure.met === undefined ? '' : figure.met ? 'yes' : 'no';

/** The 1-minute load average now, and how many cores share it. */
const load = (): string => `${loadavg()[0]!.toFixed(2)} on ${cpus().length} cores`;

const results: { module: string; figures: readonly BenchFigure[]; loadBefore: string; loadAfter: string }[] =
  [];
for (const file of modules) {
  const mod = (await import(pathToFileURL(`${here}${file}`).href)) as { run?: BenchRun };
  if (typeof mod.run !== 'function') continue;
  const name = nameOf(file);
  const loadBefore = load();
  process.stdout.write(`\n== ${name} == (1-minute load average before: ${loadBefore})\n`);
  const figures = await mod.run();
  const loadAfter = load();
  for (const f of figures) {
    const goal = f.goal === undefined ? '' : `  goal ${f.goal}: ${formatMet(f) || 'n/a'}`;
    const note = f.note === undefined ? '' : `  (${f.note})`;
    process.stdout.write(`${f.name}: ${f.measured} vs ${f.anchor} → ${formatRatio(f.ratio)}${goal}${note}\n`);
  }
  process.stdout.write(`(1-minute load average after ${name}: ${loadAfter})\n`);
  results.push({ module: name, figures, loadBefore, loadAfter });
}

if (wanted.size === 0 || write) {
  const cell = (text: string): string => text.replaceAll('|', '\\|');
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    '# Benchmark results',
    '',
    `Latest \`npm run bench\` (${new Date().toISOString().slice(0, 10)}): ${cpus().length} × ${cpu}, ` +
      `${Math.round(totalmem() / 2 ** 30)} GiB, Linux ${release()}, Node ${process.version}. ` +
      'Every ratio is measured against its anchor in the same run; absolute figures on a shared machine mean little. ' +
      'Each figure is the median of its module’s trials (three unless noted).',
    '',
  ];
  for (const { module, figures, loadBefore, loadAfter } of results) {
    lines.push(
      `## ${module}`,
      '',
      `1-minute load average: ${loadBefore} before, ${loadAfter} after.`,
      '',
      '| Figure | Measured | Anchor | Ratio | Goal | Met | Note |',
      '|---|---|---|---|---|---|---|',
    );
    for (const f of figures) {
      lines.push(
        `| ${cell(f.name)} | ${cell(f.measured)} | ${cell(f.anchor)} | ${formatRatio(f.ratio)} | ${cell(f.goal ?? '')} | ${formatMet(f)} | ${cell(f.note ?? '')} |`,
      );
    }
    lines.push('');
  }
  writeFileSync(`${here}RESULTS.md`, lines.join('\n'));
  process.stdout.write('\nwrote bench/RESULTS.md\n');
}
