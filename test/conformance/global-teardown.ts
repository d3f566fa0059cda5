// jest globalTeardown of the conformance project: see teardownNamespace() in selection.ts.
import type * as Selection from './selection.js';

export default async function globalTeardown(): Promise<void> {
  // Loaded by Node's own loader like global-setup.ts: the module is named by its real file name.
  const selection = (await import(new URL('./selection.ts', import.meta.url).href)) as typeof Selection;
  await selection.teardownNamespace();
}
