import { build } from 'esbuild';
import { esbuildOptionsOf, functionBundling, PROJECT_ROOT } from '/work/wt/lambda/lib/constructs/platform-function.js';
for (const name of process.argv.slice(2)) {
  const r = await build({ ...esbuildOptionsOf(functionBundling(name), `${PROJECT_ROOT}/lambda/${name}/index.ts`, `/tmp/meta/${name}/index.mjs`), absWorkingDir: PROJECT_ROOT, metafile: true });
  const pk = new Map<string, number>();
  for (const [f, i] of Object.entries(r.metafile.outputs[`/tmp/meta/${name}/index.mjs`.replace(PROJECT_ROOT + '/', '')] ?? Object.values(r.metafile.outputs).find(o => o.entryPoint)!.inputs)) {
    const m = f.match(/node_modules\/((@[^/]+\/)?[^/]+)/); const k = m ? m[1]! : f.split('/').slice(0, 2).join('/');
    pk.set(k, (pk.get(k) ?? 0) + i.bytesInOutput);
  }
  console.log(name, [...pk].sort((a, b) => b[1] - a[1]).slice(0, 14).map(([k, v]) => `${k}:${Math.round(v / 1024)}k`).join(' '));
}
