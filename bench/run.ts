/**
 * `npm run bench`: runs every benchmark module in bench/ (each exports `run(): Promise<void>` and prints
 * its own ratios). Benchmarks measure; they never assert wall-clock budgets. Pass names to run a subset:
 * `npm run bench -- inference-proxy`. A module may be called `<name>.ts` or `<name>.bench.ts`.
 */
import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const wanted = new Set(process.argv.slice(2));
const nameOf = (file: string): string => basename(basename(file, '.ts'), '.bench');
const modules = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .filter((f) => wanted.size === 0 || wanted.has(nameOf(f)))
  .sort();

if (modules.length === 0) {
  process.stderr.write(`no benchmark matches ${[...wanted].join(', ')}\n`);
  process.exit(2);
}

for (const file of modules) {
  const mod = (await import(pathToFileURL(`${here}${file}`).href)) as { run?: () => Promise<void> };
  if (typeof mod.run !== 'function') continue;
  process.stdout.write(`\n== ${nameOf(file)} ==\n`);
  await mod.run();
}
