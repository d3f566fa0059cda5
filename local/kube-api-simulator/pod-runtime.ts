// What runs inside a simulated pod: the simulator's kubelet only walks pods through their phases; a
// PodRuntime given to startKubeApiSimulator (the local platform's, local/pod-model-runtime.ts) may run a
// real process for a pod while it is Running. The kubelet reports the pod Ready only once onPodRunning
// has resolved, as a real kubelet waits for the readiness probe
// (https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-probes).

import type { KubeObject } from './types.js';

/** Lines the runtime wants in a container's log (`kubectl logs POD -c CONTAINER`). */
export interface PodRuntimeLog {
  container: string;
  lines: string[];
}

export interface PodRuntime {
  /**
   * The pod's app containers started (phase Running). Resolve once the pod serves (its containers turn
   * ready), with log lines to add; reject and the containers stay unready (a failing readiness probe).
   */
  onPodRunning(pod: KubeObject): Promise<PodRuntimeLog[] | void>;
  /** The pod stopped running: deleted, finished, taken over, or the simulator closes. Never throws. */
  onPodStopped(pod: { namespace: string; name: string; uid: string }): void;
}
