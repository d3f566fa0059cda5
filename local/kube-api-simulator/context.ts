// The simulator's shared state, passed to the REST layer and the simulated controllers.

import type { EventRecorder } from './events.js';
import type { LogStore } from './logs.js';
import type { ResourceRegistry } from './registry.js';
import type { ObjectStore } from './store.js';
import type { Timers } from './timers.js';

/** How long a pod stays Pending (scheduled, pulling), then Running before its containers exit. */
export interface KubeletTiming {
  pendingMs: number;
  runningMs: number;
}

export interface Usage {
  cpu: string;
  memory: string;
}

interface MetricsOverrides {
  nodes: Map<string, Usage>;
  /** key `namespace/pod` → container name → usage */
  pods: Map<string, Record<string, Usage>>;
}

export interface SimContext {
  registry: ResourceRegistry;
  store: ObjectStore;
  events: EventRecorder;
  logs: LogStore;
  timers: Timers;
  timing: KubeletTiming;
  metrics: MetricsOverrides;
  /** resource / group / group-resource → HTTP status answered instead (403, 404, 503). */
  unavailable: Map<string, 403 | 404 | 503>;
}

/** Annotations that steer the simulated kubelet per pod (or pod template). */
export const SIM_ANNOTATIONS = {
  exitCode: 'sim.gco.dev/exit-code',
  pendingMs: 'sim.gco.dev/pending-ms',
  runningMs: 'sim.gco.dev/running-ms',
  unmanaged: 'sim.gco.dev/unmanaged',
} as const;
