/**
 * Where the conformance suite runs, hidden behind one interface: the project's Kubernetes API
 * simulator (the default, a fresh one per test file) or a real cluster (KUBECONFIG plus the opt-in
 * GCO_CONFORMANCE_NAMESPACE). Test files only ever see a KubeConfig, a namespace to work in, the labels
 * every object they create must carry, and how patient to be; see docs/conformance.md.
 *
 * On a real cluster nothing outside that one namespace is touched: every object a test file creates
 * carries its run label and is deleted by that label when the file ends; the namespace itself is
 * created (and later deleted) by the jest global setup/teardown only when it did not exist (selection.ts).
 */
import { randomBytes } from 'node:crypto';

import type { KubeConfig } from '@kubernetes/client-node';
import { ApiException, AppsV1Api, BatchV1Api, CoreV1Api } from '@kubernetes/client-node';

import { startKubeApiSimulator } from '../../local/kube-api-simulator/index.js';
import { clusterKubeConfig, selectTarget } from './selection.js';

/** The label whose value identifies one test file's objects (the cleanup selector). */
const RUN_LABEL = 'conformance.gco.dev/run';
/** The simulator's namespace (created in each fresh simulator). */
const SIMULATOR_NAMESPACE = 'gco-conformance';

const selection = selectTarget();

/**
 * How long controller-driven outcomes (a Job finishing, pods collected) may take, how often to look,
 * and the per-test timeout. A real cluster pulls images and runs a garbage collector; the simulator's
 * kubelet finishes in ~150 ms.
 */
export const patience =
  selection.kind === 'cluster'
    ? { waitMs: 240_000, pollMs: 1_000, testMs: 600_000 }
    : { waitMs: 15_000, pollMs: 20, testMs: 30_000 };

export interface ConformanceTarget {
  readonly kubeConfig: KubeConfig;
  readonly core: CoreV1Api;
  readonly batch: BatchV1Api;
  readonly apps: AppsV1Api;
  /** The only namespace the tests may create objects in. */
  readonly namespace: string;
  /** Labels every object (and pod template) a test creates must carry: its cleanup selector. */
  readonly labels: Readonly<Record<string, string>>;
  /** Deletes every object of this run, then releases the target. */
  close(): Promise<void>;
}

function isNotFound(err: unknown): boolean {
  return err instanceof ApiException && err.code === 404;
}

/** Deletes what this run created, by its run label (pods last: Background deletion of Jobs removes theirs). */
async function deleteRun(target: ConformanceTarget): Promise<void> {
  const { namespace } = target;
  const labelSelector = `${RUN_LABEL}=${target.labels[RUN_LABEL] ?? ''}`;
  const options = { namespace, labelSelector, propagationPolicy: 'Background' };
  await target.batch.deleteCollectionNamespacedJob(options);
  await target.apps.deleteCollectionNamespacedDeployment(options);
  await target.core.deleteCollectionNamespacedConfigMap(options);
  await target.core.deleteCollectionNamespacedPod(options);
}

function clients(kubeConfig: KubeConfig, namespace: string, close: () => Promise<void>): ConformanceTarget {
  return {
    kubeConfig,
    core: kubeConfig.makeApiClient(CoreV1Api),
    batch: kubeConfig.makeApiClient(BatchV1Api),
    apps: kubeConfig.makeApiClient(AppsV1Api),
    namespace,
    labels: { [RUN_LABEL]: randomBytes(6).toString('hex') },
    close,
  };
}

/** Opens the selected target for one test file. */
async function openTarget(): Promise<ConformanceTarget> {
  if (selection.kind === 'simulator') {
    const sim = await startKubeApiSimulator({ kubelet: { pendingMs: 50, runningMs: 100 } });
    const target = clients(sim.kubeConfig(SIMULATOR_NAMESPACE), SIMULATOR_NAMESPACE, async () => {
      await deleteRun(target);
      await sim.close();
    });
    await target.core.createNamespace({ body: { metadata: { name: SIMULATOR_NAMESPACE } } });
    return target;
  }
  const { namespace } = selection;
  const kubeConfig = clusterKubeConfig();
  const target = clients(kubeConfig, namespace, () => deleteRun(target));
  try {
    await target.core.readNamespace({ name: namespace });
  } catch (err) {
    // global-setup.ts creates it; a missing namespace here means it was deleted under the suite.
    if (isNotFound(err)) throw new Error(`namespace ${namespace} does not exist in the cluster`);
    throw err;
  }
  return target;
}

/**
 * Opens the selected target before the calling file's first test and closes it after its last. The
 * object returned is empty until then: its fields are copied in by the `beforeAll` registered here,
 * which runs before any `beforeAll` the file registers after this call.
 */
export function useTarget(): ConformanceTarget {
  const target = {} as ConformanceTarget;
  beforeAll(async () => {
    Object.assign(target, await openTarget());
  }, patience.testMs);
  afterAll(async () => {
    await target.close();
  }, patience.testMs);
  return target;
}
