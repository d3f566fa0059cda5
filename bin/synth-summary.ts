/**
 * After `cdk synth`: prints where each stack's template is, its region and resource count, read from the
 * cloud assembly's manifest, so `npm run synth` ends with something a person can act on.
 */
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

interface ManifestArtifact {
  type: string;
  environment?: string;
  properties?: { templateFile?: string; stackName?: string };
}

const outDir = resolve(process.argv[2] ?? 'cdk.out');
const manifest = JSON.parse(readFileSync(join(outDir, 'manifest.json'), 'utf8')) as {
  artifacts?: Record<string, ManifestArtifact>;
};

const rows: string[][] = [];
for (const [id, artifact] of Object.entries(manifest.artifacts ?? {})) {
  if (artifact.type !== 'aws:cloudformation:stack' || !artifact.properties?.templateFile) continue;
  const file = join(outDir, artifact.properties.templateFile);
  const template = JSON.parse(readFileSync(file, 'utf8')) as { Resources?: Record<string, unknown> };
  const region = artifact.environment?.split('/').pop() ?? '?';
  rows.push([
    artifact.properties.stackName ?? id,
    region,
    String(Object.keys(template.Resources ?? {}).length),
    relative(process.cwd(), file),
  ]);
}
if (rows.length === 0) {
  console.error(`no stacks found in ${outDir}`);
  process.exit(1);
}
const header = ['stack', 'region', 'resources', 'template'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ');
console.log(`\nSynthesized ${rows.length} stacks into ${relative(process.cwd(), outDir) || '.'}/:`);
console.log(line(header));
for (const row of rows) console.log(line(row));
// npm run cdk loads the AZ-ID lookup plugin a deploy with credentials needs (docs/operations.md).
console.log('\nDeploy (global stack first, then each region): npm run cdk -- deploy <stack>');
