// jest globalSetup of the conformance project: see setupNamespace() in selection.ts.
import type * as Selection from './selection.js';

export default async function globalSetup(): Promise<void> {
  // jest imports this file with Node's own loader (which strips the types), not through ts-jest's
  // `.js` → `.ts` mapping, so the module is named by its real file name.
  const selection = (await import(new URL('./selection.ts', import.meta.url).href)) as typeof Selection;
  if (process.env.KUBECONFIG && selection.selectTarget().kind === 'simulator') {
    process.stderr.write(
      'conformance: KUBECONFIG is set but GCO_CONFORMANCE_NAMESPACE is not: running against the simulator ' +
        '(docs/conformance.md says how to run against the cluster).\n',
    );
  }
  await selection.setupNamespace();
}
