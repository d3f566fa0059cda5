// Simulated Deployment and ReplicaSet controllers (opt-in: startKubeApiSimulator({ deploymentPods: true })):
// a Deployment owns one ReplicaSet per pod template (named `<deployment>-<pod-template-hash>`), each
// ReplicaSet keeps `spec.replicas` pods, and both report status from their pods' Ready condition, so a
// Deployment is ready only when its pods are.
//   https://kubernetes.io/docs/concepts/workloads/controllers/deployment/
//   https://kubernetes.io/docs/concepts/workloads/controllers/replicaset/
// Rollout: a changed template gets a new ReplicaSet at full size; the old ones scale to zero once the new
// one is fully ready (RollingUpdate with maxSurge 100%, maxUnavailable 0). Old ReplicaSets stay at zero
// replicas (revision history); `paused`, progress deadlines and the Recreate strategy are not simulated.

import { createHash } from 'node:crypto';

import { errorMessage } from '../../contracts/runtime/errors.js';
import type { SimContext } from './context.js';
import { SIM_ANNOTATIONS } from './context.js';
import type { CreateFn } from './job-controller.js';
import { MAX_GENERATE_NAME_PREFIX } from './names.js';
import { isTerminal } from './pod-resources.js';
import type { ResourceType } from './registry.js';
import type { Change } from './store.js';
import type { JsonRecord, KubeObject } from './types.js';
import { annotationsOf, arr, clone, deepEqual, nowIso, num, rec, str, strMap, uidOf } from './types.js';

/** The label the Deployment controller adds to a ReplicaSet, its selector and its pods. */
const POD_TEMPLATE_HASH = 'pod-template-hash';
const REVISION = 'deployment.kubernetes.io/revision';

function controllerOf(obj: KubeObject, kind: string): { name: string; uid: string } | undefined {
  const ref = arr(obj.metadata.ownerReferences)
    .map(rec)
    .find((r) => r.controller === true && r.kind === kind);
  const name = str(ref?.name);
  const uid = str(ref?.uid);
  return name && uid ? { name, uid } : undefined;
}

function isReady(pod: KubeObject): boolean {
  return arr(rec(pod.status).conditions).some((c) => rec(c).type === 'Ready' && rec(c).status === 'True');
}

/** JSON with sorted keys: the same template hashes the same however a client ordered its fields. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A short stable hash of the pod template (the real controller uses FNV-32a over the template struct). */
function templateHash(template: unknown): string {
  return createHash('sha256').update(canonical(template)).digest('hex').slice(0, 10);
}

function ownerRef(apiVersion: string, owner: KubeObject): JsonRecord {
  return {
    apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: uidOf(owner),
    controller: true,
    blockOwnerDeletion: true,
  };
}

export class DeploymentController {
  private readonly queued = new Set<string>();

  constructor(
    private readonly ctx: SimContext,
    private readonly create: CreateFn,
  ) {
    ctx.store.subscribe((c) => this.onChange(c));
  }

  private type(plural: 'deployments' | 'replicasets'): ResourceType {
    const type = this.ctx.registry.lookup('apps', 'v1', plural);
    if (!type) throw new Error(`apps/v1 ${plural} is not registered`);
    return type;
  }

  private get podType(): ResourceType {
    return this.ctx.registry.core('pods');
  }

  private onChange(change: Change): void {
    const { group, plural } = change.resource;
    const obj = change.object;
    const ns = obj.metadata.namespace ?? 'default';
    if (group === 'apps' && plural === 'deployments') {
      if (change.type !== 'DELETED') this.enqueue('deployments', ns, obj.metadata.name);
    } else if (group === 'apps' && plural === 'replicasets') {
      if (change.type !== 'DELETED') this.enqueue('replicasets', ns, obj.metadata.name);
      const owner = controllerOf(obj, 'Deployment');
      if (owner) this.enqueue('deployments', ns, owner.name);
    } else if (group === '' && plural === 'pods') {
      const owner = controllerOf(obj, 'ReplicaSet');
      if (owner) this.enqueue('replicasets', ns, owner.name);
    }
  }

  private enqueue(kind: 'deployments' | 'replicasets', namespace: string, name: string): void {
    const key = `${kind}/${namespace}/${name}`;
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.ctx.timers.after(0, () => {
      this.queued.delete(key);
      if (kind === 'deployments') this.syncDeployment(namespace, name);
      else this.syncReplicaSet(namespace, name);
    });
  }

  private event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const component = obj.kind === 'Deployment' ? 'deployment-controller' : 'replicaset-controller';
    this.ctx.events.record(obj, { type, reason, message, component });
  }

  private owned(owner: KubeObject, type: ResourceType, kind: string): KubeObject[] {
    const uid = uidOf(owner);
    return this.ctx.store
      .dependents(uid, type)
      .map((d) => d.object)
      .filter((o) => o.metadata.namespace === owner.metadata.namespace && controllerOf(o, kind)?.uid === uid);
  }

  private syncDeployment(namespace: string, name: string): void {
    const rsType = this.type('replicasets');
    const deployment = this.ctx.store.view(this.type('deployments'), namespace, name);
    if (!deployment || annotationsOf(deployment)[SIM_ANNOTATIONS.unmanaged] === 'true') return;
    const spec = rec(deployment.spec);
    const desired = num(spec.replicas) ?? 1;
    const template = rec(spec.template);
    const hash = templateHash(template);
    const sets = this.owned(deployment, rsType, 'Deployment');
    let current = sets.find((rs) => strMap(rs.metadata.labels)[POD_TEMPLATE_HASH] === hash);
    const revisions = sets.map((rs) => Number(annotationsOf(rs)[REVISION] ?? '0'));
    if (!current) {
      current = this.createReplicaSet(deployment, template, hash, desired, Math.max(0, ...revisions) + 1);
      if (!current) return;
    } else if (num(rec(current.spec).replicas) !== desired) {
      current = this.scale(current, desired);
      this.event(
        deployment,
        'Normal',
        'ScalingReplicaSet',
        `Scaled replica set ${current.metadata.name} to ${desired}`,
      );
    }
    const currentReady = num(rec(current.status).readyReplicas) ?? 0;
    const old = sets.filter((rs) => uidOf(rs) !== uidOf(current));
    // The new pods serve before the old ones go (no request finds no ready pod during a rollout).
    if (currentReady >= desired) {
      for (const rs of old) {
        if ((num(rec(rs.spec).replicas) ?? 0) === 0) continue;
        this.scale(rs, 0);
        this.event(deployment, 'Normal', 'ScalingReplicaSet', `Scaled replica set ${rs.metadata.name} to 0`);
      }
    }
    this.writeDeploymentStatus(deployment, current, old, desired);
  }

  private createReplicaSet(
    deployment: KubeObject,
    template: JsonRecord,
    hash: string,
    replicas: number,
    revision: number,
  ): KubeObject | undefined {
    const tmeta = rec(template.metadata);
    const labels = { ...strMap(tmeta.labels), [POD_TEMPLATE_HASH]: hash };
    const selector = clone(rec(rec(deployment.spec).selector));
    selector.matchLabels = { ...strMap(selector.matchLabels), [POD_TEMPLATE_HASH]: hash };
    const rs: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${deployment.metadata.name}-${hash}`,
        namespace: deployment.metadata.namespace,
        labels,
        annotations: { [REVISION]: String(revision) },
        ownerReferences: [ownerRef('apps/v1', deployment)],
      },
      spec: {
        replicas,
        selector,
        template: { ...clone(template), metadata: { ...clone(tmeta), labels } },
      },
    };
    try {
      const created = this.create(this.type('replicasets'), rs);
      this.event(
        deployment,
        'Normal',
        'ScalingReplicaSet',
        `Scaled up replica set ${created.metadata.name} to ${replicas}`,
      );
      return created;
    } catch (err) {
      this.event(deployment, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(err)}`);
      return undefined;
    }
  }

  private scale(rs: KubeObject, replicas: number): KubeObject {
    const next = clone(rs);
    next.spec = { ...rec(next.spec), replicas };
    return this.ctx.store.update(this.type('replicasets'), next);
  }

  private writeDeploymentStatus(
    deployment: KubeObject,
    current: KubeObject,
    old: KubeObject[],
    desired: number,
  ): void {
    const total = (rs: KubeObject, field: string) => num(rec(rs.status)[field]) ?? 0;
    const all = [current, ...old];
    const replicas = all.reduce((s, rs) => s + total(rs, 'replicas'), 0);
    const ready = all.reduce((s, rs) => s + total(rs, 'readyReplicas'), 0);
    const updated = total(current, 'replicas');
    const prev = rec(deployment.status);
    const now = nowIso();
    const condition = (type: string, ok: boolean, reason: string, message: string): JsonRecord => {
      const before = arr(prev.conditions)
        .map(rec)
        .find((c) => c.type === type);
      const status = ok ? 'True' : 'False';
      const same = before?.status === status && before.reason === reason;
      return {
        type,
        status,
        lastUpdateTime: same ? before.lastUpdateTime : now,
        lastTransitionTime: before?.status === status ? before.lastTransitionTime : now,
        reason,
        message,
      };
    };
    const available = ready >= desired;
    const complete =
      updated === desired && total(current, 'readyReplicas') >= desired && replicas === desired;
    const status: JsonRecord = {
      observedGeneration: num(deployment.metadata.generation) ?? 1,
      replicas,
      updatedReplicas: updated,
      readyReplicas: ready,
      availableReplicas: ready,
      unavailableReplicas: Math.max(0, desired - ready),
      conditions: [
        condition(
          'Available',
          available,
          available ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable',
          available
            ? 'Deployment has minimum availability.'
            : 'Deployment does not have minimum availability.',
        ),
        condition(
          'Progressing',
          true,
          complete ? 'NewReplicaSetAvailable' : 'ReplicaSetUpdated',
          complete
            ? `ReplicaSet "${current.metadata.name}" has successfully progressed.`
            : `ReplicaSet "${current.metadata.name}" is progressing.`,
        ),
      ],
    };
    // The API omits zero counts (omitempty), as `kubectl get deploy -o yaml` shows.
    for (const k of [
      'replicas',
      'updatedReplicas',
      'readyReplicas',
      'availableReplicas',
      'unavailableReplicas',
    ])
      if (status[k] === 0) delete status[k];
    const stripTimes = (s: JsonRecord) => ({
      ...s,
      conditions: arr(s.conditions).map((c) => ({ ...rec(c), lastUpdateTime: 0, lastTransitionTime: 0 })),
    });
    if (deepEqual(stripTimes(status), stripTimes(prev))) return;
    const next = clone(deployment);
    next.status = status;
    this.ctx.store.update(this.type('deployments'), next, { keepGeneration: true });
  }

  private syncReplicaSet(namespace: string, name: string): void {
    const rsType = this.type('replicasets');
    const rs = this.ctx.store.view(rsType, namespace, name);
    if (!rs || annotationsOf(rs)[SIM_ANNOTATIONS.unmanaged] === 'true') return;
    const desired = num(rec(rs.spec).replicas) ?? 1;
    const pods = this.owned(rs, this.podType, 'ReplicaSet').filter((p) => !isTerminal(p));
    for (let i = pods.length; i < desired; i++) {
      const pod = this.createPod(rs);
      if (!pod) break;
      pods.push(pod);
    }
    if (pods.length > desired) {
      // Unready pods go first, then the newest (the ReplicaSet controller's deletion ranking).
      const ranked = [...pods].sort(
        (a, b) =>
          Number(isReady(a)) - Number(isReady(b)) ||
          String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)),
      );
      for (const pod of ranked.slice(0, pods.length - desired)) {
        this.ctx.store.delete(this.podType, namespace, pod.metadata.name);
        this.event(rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
        pods.splice(pods.indexOf(pod), 1);
      }
    }
    const ready = pods.filter(isReady).length;
    const status: JsonRecord = {
      replicas: pods.length,
      fullyLabeledReplicas: pods.length,
      readyReplicas: ready,
      availableReplicas: ready,
      observedGeneration: num(rs.metadata.generation) ?? 1,
    };
    for (const k of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'])
      if (status[k] === 0) delete status[k];
    if (deepEqual(status, rec(rs.status))) return;
    const next = clone(rs);
    next.status = status;
    this.ctx.store.update(rsType, next, { keepGeneration: true });
  }

  private createPod(rs: KubeObject): KubeObject | undefined {
    const template = rec(rec(rs.spec).template);
    const tmeta = rec(template.metadata);
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: '',
        generateName: `${rs.metadata.name}-`.slice(0, MAX_GENERATE_NAME_PREFIX),
        namespace: rs.metadata.namespace,
        labels: strMap(tmeta.labels),
        ownerReferences: [ownerRef('apps/v1', rs)],
      },
      spec: clone(rec(template.spec)),
    };
    const annotations = strMap(tmeta.annotations);
    if (Object.keys(annotations).length > 0) pod.metadata.annotations = annotations;
    try {
      const created = this.create(this.podType, pod);
      this.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
      return created;
    } catch (err) {
      this.event(rs, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(err)}`);
      // Retry later (e.g. once quota frees up), like the controller's requeue with back-off.
      const ns = rs.metadata.namespace ?? 'default';
      this.ctx.timers.after(Math.max(1000, this.ctx.timing.pendingMs), () =>
        this.enqueue('replicasets', ns, rs.metadata.name),
      );
      return undefined;
    }
  }
}
