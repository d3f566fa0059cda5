// Workload status without pods: Deployments, StatefulSets, ReplicaSets and DaemonSets report their
// desired replicas as ready/available `pendingMs` after each spec change (the simulator does not run
// ReplicaSets or their pods; the manifest processor only reads the status). With `deploymentPods`, the
// DeploymentController (deployment-controller.ts) runs Deployments and ReplicaSets instead, through pods.

import type { SimContext } from './context.js';
import { SIM_ANNOTATIONS } from './context.js';
import type { ResourceType } from './registry.js';
import type { Change } from './store.js';
import type { KubeObject, JsonRecord } from './types.js';
import { annotationsOf, nowIso, num, rec, uidOf } from './types.js';

const WORKLOADS = new Set(['deployments', 'statefulsets', 'replicasets', 'daemonsets']);

export class WorkloadController {
  private readonly kinds: ReadonlySet<string>;

  /** `withoutPods`: the workload plurals this controller settles (default: all four). */
  constructor(
    private readonly ctx: SimContext,
    withoutPods: ReadonlySet<string> = WORKLOADS,
  ) {
    this.kinds = withoutPods;
    ctx.store.subscribe((c) => this.onChange(c));
  }

  private onChange(change: Change): void {
    const type = change.resource;
    if (type.group !== 'apps' || !this.kinds.has(type.plural)) return;
    const obj = change.object;
    const owner = `workload:${uidOf(obj)}`;
    if (change.type === 'DELETED') {
      this.ctx.timers.cancel(owner);
      return;
    }
    if (annotationsOf(obj)[SIM_ANNOTATIONS.unmanaged] === 'true') return;
    const generation = num(obj.metadata.generation) ?? 1;
    if (num(rec(obj.status).observedGeneration) === generation) return;
    this.ctx.timers.cancel(owner);
    this.ctx.timers.after(
      this.ctx.timing.pendingMs,
      () => this.settle(type, obj.metadata.namespace, obj.metadata.name, generation),
      owner,
    );
  }

  private settle(type: ResourceType, namespace: string | undefined, name: string, generation: number): void {
    const obj = this.ctx.store.get(type, namespace, name);
    if (!obj || (num(obj.metadata.generation) ?? 1) !== generation) return;
    const replicas =
      type.plural === 'daemonsets'
        ? this.ctx.store.count(this.ctx.registry.core('nodes'))
        : (num(rec(obj.spec).replicas) ?? 1);
    const next: KubeObject = { ...obj, status: this.status(type, replicas, generation, rec(obj.status)) };
    this.ctx.store.update(type, next, { keepGeneration: true });
  }

  private status(type: ResourceType, replicas: number, generation: number, prev: JsonRecord): JsonRecord {
    const now = nowIso();
    if (type.plural === 'daemonsets') {
      return {
        observedGeneration: generation,
        currentNumberScheduled: replicas,
        desiredNumberScheduled: replicas,
        numberAvailable: replicas,
        numberMisscheduled: 0,
        numberReady: replicas,
        updatedNumberScheduled: replicas,
      };
    }
    const status: JsonRecord = {
      ...prev,
      observedGeneration: generation,
      replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
      updatedReplicas: replicas,
    };
    if (type.plural === 'statefulsets') status.currentReplicas = replicas;
    if (type.plural === 'deployments') {
      status.conditions = [
        {
          type: 'Available',
          status: 'True',
          lastUpdateTime: now,
          lastTransitionTime: now,
          reason: 'MinimumReplicasAvailable',
          message: 'Deployment has minimum availability.',
        },
        {
          type: 'Progressing',
          status: 'True',
          lastUpdateTime: now,
          lastTransitionTime: now,
          reason: 'NewReplicaSetAvailable',
          message: 'ReplicaSet has successfully progressed.',
        },
      ];
    }
    return status;
  }
}
