// Simulated batch/v1 Job controller: keeps `parallelism` pods running (bounded by the remaining
// `completions`), counts finished pods once each (also after they are deleted), retries failures until
// `backoffLimit` (failed pods + container restarts) and writes status, conditions and events.
// Retries are immediate (no exponential pod back-off); completionMode Indexed is treated as NonIndexed.

import { errorMessage } from '../../contracts/runtime/errors.js';
import type { SimContext } from './context.js';
import { SIM_ANNOTATIONS } from './context.js';
import { CONTROLLER_UID, JOB_NAME, MAX_GENERATE_NAME_PREFIX } from './names.js';
import { isTerminal } from './pod-resources.js';
import type { ResourceType } from './registry.js';
import type { Change } from './store.js';
import type { KubeObject, JsonRecord } from './types.js';
import { annotationsOf, arr, clone, deepEqual, nowIso, num, rec, str, strMap, uidOf } from './types.js';

/** Creates an object through the API's create path (defaults, validation, admission). */
export type CreateFn = (type: ResourceType, obj: KubeObject) => KubeObject;

interface Counts {
  succeeded: Set<string>;
  failed: Set<string>;
}

function controllerOf(pod: KubeObject): { name: string; uid: string } | undefined {
  const ref = arr(pod.metadata.ownerReferences)
    .map(rec)
    .find((r) => r.controller === true && r.kind === 'Job');
  const name = str(ref?.name);
  const uid = str(ref?.uid);
  return name && uid ? { name, uid } : undefined;
}

function condition(status: JsonRecord, type: string): JsonRecord | undefined {
  return arr(status.conditions)
    .map(rec)
    .find((c) => c.type === type && c.status === 'True');
}

export class JobController {
  private readonly counts = new Map<string, Counts>();
  private readonly queued = new Set<string>();
  /** Pods this controller deletes itself: their deletion is not a failure. */
  private readonly deleting = new Set<string>();
  private readonly deadlines = new Set<string>();

  constructor(
    private readonly ctx: SimContext,
    private readonly create: CreateFn,
  ) {
    ctx.store.subscribe((c) => this.onChange(c));
  }

  private get jobType(): ResourceType {
    return this.ctx.registry.batch('jobs');
  }

  private get podType(): ResourceType {
    return this.ctx.registry.core('pods');
  }

  private countsFor(uid: string): Counts {
    let c = this.counts.get(uid);
    if (!c) {
      c = { succeeded: new Set(), failed: new Set() };
      this.counts.set(uid, c);
    }
    return c;
  }

  private onChange(change: Change): void {
    const { group, plural } = change.resource;
    const obj = change.object;
    if (group === 'batch' && plural === 'jobs') {
      if (change.type === 'DELETED') {
        this.counts.delete(uidOf(obj));
        this.ctx.timers.cancel(`job:${uidOf(obj)}`);
      } else {
        this.enqueue(obj.metadata.namespace ?? 'default', obj.metadata.name);
      }
      return;
    }
    if (group !== '' || plural !== 'pods') return;
    const owner = controllerOf(obj);
    if (!owner) return;
    if (change.type === 'DELETED') {
      const podUid = uidOf(obj);
      // A pod deleted before it finished counts as failed (job tracking with finalizers does the same).
      if (!this.deleting.delete(podUid) && !isTerminal(obj) && this.counts.has(owner.uid)) {
        this.countsFor(owner.uid).failed.add(podUid);
      }
    }
    this.enqueue(obj.metadata.namespace ?? 'default', owner.name);
  }

  private enqueue(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.ctx.timers.after(0, () => {
      this.queued.delete(key);
      this.reconcile(namespace, name);
    });
  }

  private event(job: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.ctx.events.record(job, { type, reason, message, component: 'job-controller' });
  }

  private deletePod(job: KubeObject, pod: KubeObject): void {
    this.deleting.add(uidOf(pod));
    this.ctx.store.delete(this.podType, pod.metadata.namespace, pod.metadata.name);
    this.event(job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
  }

  private reconcile(namespace: string, name: string): void {
    const job = this.ctx.store.view(this.jobType, namespace, name); // frozen: the update below copies it
    if (!job || annotationsOf(job)[SIM_ANNOTATIONS.unmanaged] === 'true') return;
    const uid = uidOf(job);
    const status = rec(job.status);
    if (condition(status, 'Complete') || condition(status, 'Failed')) return;
    const spec = rec(job.spec);
    const counts = this.countsFor(uid);
    const owned = this.ctx.store
      .dependents(uid, this.podType)
      .map((d) => d.object)
      .filter((p) => p.metadata.namespace === namespace && controllerOf(p)?.uid === uid);
    for (const p of owned) {
      const phase = rec(p.status).phase;
      if (phase === 'Succeeded') counts.succeeded.add(uidOf(p));
      else if (phase === 'Failed') counts.failed.add(uidOf(p));
    }
    let active = owned.filter((p) => !isTerminal(p));
    const restarts = active.reduce(
      (sum, p) =>
        sum +
        arr(rec(p.status).containerStatuses).reduce<number>(
          (s, cs) => s + (num(rec(cs).restartCount) ?? 0),
          0,
        ),
      0,
    );
    const parallelism = num(spec.parallelism) ?? 1;
    const completions = num(spec.completions);
    const backoffLimit = num(spec.backoffLimit) ?? 6;
    const suspended = spec.suspend === true;
    const succeeded = counts.succeeded.size;
    const failed = counts.failed.size;
    const now = nowIso();
    const next = clone(status);
    const conditions = arr(status.conditions).map(rec);
    const setCondition = (type: string, reason: string, message: string): void => {
      const rest = conditions.filter((c) => c.type !== type);
      rest.push({ type, status: 'True', lastProbeTime: now, lastTransitionTime: now, reason, message });
      conditions.splice(0, conditions.length, ...rest);
    };

    let finished: 'Complete' | 'Failed' | undefined;
    const deadline = num(spec.activeDeadlineSeconds);
    const startTime = str(status.startTime);
    if (failed + restarts > backoffLimit) {
      finished = 'Failed';
      setCondition('Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit');
      this.event(job, 'Warning', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit');
    } else if (deadline !== undefined && startTime && Date.parse(startTime) + deadline * 1000 <= Date.now()) {
      finished = 'Failed';
      setCondition('Failed', 'DeadlineExceeded', 'Job was active longer than specified deadline');
      this.event(job, 'Warning', 'DeadlineExceeded', 'Job was active longer than specified deadline');
    } else if (completions !== undefined ? succeeded >= completions : succeeded > 0 && active.length === 0) {
      finished = 'Complete';
      setCondition('Complete', 'CompletionsReached', 'Reached expected number of succeeded pods');
      this.event(job, 'Normal', 'Completed', 'Job completed');
    }

    if (finished || suspended) {
      for (const p of active) {
        // Pods terminated because the Job failed count as failed, as in the real controller.
        if (finished === 'Failed') counts.failed.add(uidOf(p));
        this.deletePod(job, p);
      }
      active = [];
    }
    if (suspended && !finished) {
      if (!condition(status, 'Suspended')) {
        setCondition('Suspended', 'JobSuspended', 'Job suspended');
        this.event(job, 'Normal', 'Suspended', 'Job suspended');
      }
    } else if (!finished) {
      if (conditions.some((c) => c.type === 'Suspended' && c.status === 'True')) {
        const i = conditions.findIndex((c) => c.type === 'Suspended');
        conditions[i] = {
          type: 'Suspended',
          status: 'False',
          lastProbeTime: now,
          lastTransitionTime: now,
          reason: 'JobResumed',
          message: 'Job resumed',
        };
        this.event(job, 'Normal', 'Resumed', 'Job resumed');
      }
      if (!startTime) {
        next.startTime = now;
        if (deadline !== undefined)
          this.ctx.timers.after(deadline * 1000 + 5, () => this.enqueue(namespace, name), `job:${uid}`);
      }
      const want = completions !== undefined ? Math.min(parallelism, completions - succeeded) : parallelism;
      for (let i = active.length; i < want; i++) {
        const pod = this.createPod(job);
        if (!pod) break;
        active.push(pod);
      }
    }

    if (finished) next.completionTime = finished === 'Complete' ? now : undefined;
    next.conditions = conditions.length > 0 ? conditions : undefined;
    next.active = active.length || undefined;
    next.succeeded = succeeded || undefined;
    next.failed = counts.failed.size || undefined;
    next.ready = active.filter((p) =>
      arr(rec(p.status).conditions).some((c) => rec(c).type === 'Ready' && rec(c).status === 'True'),
    ).length;
    next.terminating = 0;
    next.uncountedTerminatedPods = {};
    for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
    if (deepEqual(next, status)) return;
    const updated = clone(job);
    updated.status = next;
    this.ctx.store.update(this.jobType, updated, { keepGeneration: true });
  }

  private createPod(job: KubeObject): KubeObject | undefined {
    const template = rec(rec(job.spec).template);
    const tmeta = rec(template.metadata);
    const labels = strMap(tmeta.labels);
    const uid = uidOf(job);
    labels[CONTROLLER_UID] = uid;
    labels['controller-uid'] = uid;
    labels[JOB_NAME] = job.metadata.name;
    labels['job-name'] = job.metadata.name;
    const base = `${job.metadata.name}-`.slice(0, MAX_GENERATE_NAME_PREFIX);
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: '',
        generateName: base,
        namespace: job.metadata.namespace,
        labels,
        ownerReferences: [
          {
            apiVersion: 'batch/v1',
            kind: 'Job',
            name: job.metadata.name,
            uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: clone(rec(template.spec)),
    };
    const annotations = strMap(tmeta.annotations);
    if (Object.keys(annotations).length > 0) pod.metadata.annotations = annotations;
    try {
      const created = this.create(this.podType, pod);
      this.event(job, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name}`);
      return created;
    } catch (err) {
      const message = errorMessage(err);
      this.event(job, 'Warning', 'FailedCreate', `Error creating: ${message}`);
      // Retry later (e.g. once quota frees up), like the controller's requeue with back-off.
      const ns = job.metadata.namespace ?? 'default';
      this.ctx.timers.after(
        Math.max(1000, this.ctx.timing.pendingMs),
        () => this.enqueue(ns, job.metadata.name),
        `job:${uid}`,
      );
      return undefined;
    }
  }
}
