/**
 * Which Kubernetes the conformance suite runs against, read from the environment, and the lifecycle of
 * the one namespace it may use in a real cluster. Imported by target.ts in the test files and by the
 * jest global setup/teardown, which Node loads itself: so this module imports packages only and uses
 * only type syntax Node can strip.
 */
import { ApiException, CoreV1Api, KubeConfig } from '@kubernetes/client-node';

/** Names the namespace the suite may use in a real cluster (and nothing else there). */
const NAMESPACE_VARIABLE = 'GCO_CONFORMANCE_NAMESPACE';
/** Namespaces the suite refuses to work in: the cluster's own. */
const SYSTEM_NAMESPACES = new Set(['kube-system', 'kube-public', 'kube-node-lease']);
/** The label setupNamespace() puts on a namespace it created, so teardownNamespace() deletes only that. */
const CREATED_BY = { key: 'conformance.gco.dev/created-by', value: 'gco-conformance-suite' };

export type Selection = { kind: 'simulator' } | { kind: 'cluster'; namespace: string };

/**
 * Which target the environment asks for: a real cluster (KUBECONFIG's current context, or ~/.kube/config)
 * only when GCO_CONFORMANCE_NAMESPACE names the namespace to work in, so a shell that merely exports
 * KUBECONFIG never sends `npm test` to a cluster. Throws (the suite refuses to run) on an unsafe namespace.
 */
export function selectTarget(env: NodeJS.ProcessEnv = process.env): Selection {
  const namespace = env[NAMESPACE_VARIABLE]?.trim();
  if (!namespace) return { kind: 'simulator' };
  if (SYSTEM_NAMESPACES.has(namespace) || !/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(namespace)) {
    throw new Error(`${NAMESPACE_VARIABLE}=${namespace}: name a valid namespace of your own (not kube-*).`);
  }
  return { kind: 'cluster', namespace };
}

/** The real cluster's KubeConfig: KUBECONFIG's current context. */
export function clusterKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return kc;
}

function isNotFound(err: unknown): boolean {
  return err instanceof ApiException && err.code === 404;
}

/** Before the run (jest globalSetup): creates the real cluster's namespace, labelled, if it is missing. */
export async function setupNamespace(): Promise<void> {
  const selection = selectTarget();
  if (selection.kind !== 'cluster') return;
  const core = clusterKubeConfig().makeApiClient(CoreV1Api);
  try {
    await core.readNamespace({ name: selection.namespace });
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await core.createNamespace({
      body: { metadata: { name: selection.namespace, labels: { [CREATED_BY.key]: CREATED_BY.value } } },
    });
  }
}

/** After the run (jest globalTeardown): deletes the namespace only if setupNamespace() created it. */
export async function teardownNamespace(): Promise<void> {
  const selection = selectTarget();
  if (selection.kind !== 'cluster') return;
  const core = clusterKubeConfig().makeApiClient(CoreV1Api);
  try {
    const namespace = await core.readNamespace({ name: selection.namespace });
    if (namespace.metadata?.labels?.[CREATED_BY.key] !== CREATED_BY.value) return;
    await core.deleteNamespace({ name: selection.namespace });
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
