// Simulated scheduler + kubelet: binds new pods to a fitting node, then walks them through
// Pending (ContainerCreating) → Running → Succeeded/Failed on the configured timing, writing
// container statuses, pod conditions, events and container logs like a real node would.
//
// Outcome per container: exit code from the pod annotation `sim.gco.dev/exit-code`, else the first
// `exit N` (N ≠ 0) in its command/args, else 0. restartPolicy Never → the pod ends Failed/Succeeded;
// OnFailure/Always → failing containers restart (restartCount, lastState, CrashLoopBackOff), and a
// container that exits 0 under Always keeps running (a server).
// With a PodRuntime (pod-runtime.ts), a Running pod's containers turn ready only once the runtime serves
// it, and the runtime hears when the pod stops.

import { randomBytes } from 'node:crypto';

import type { SimContext } from './context.js';
import { SIM_ANNOTATIONS } from './context.js';
import type { PodRuntime } from './pod-runtime.js';
import type { Change } from './store.js';
import type { ResourceAmounts } from './pod-resources.js';
import { requestedByNode, schedule } from './scheduler.js';
import type { KubeObject, JsonRecord } from './types.js';
import { annotationsOf, arr, clone, deepEqual, nowIso, rec, str, uidOf } from './types.js';

type ContainerPhase = 'waiting' | 'running' | 'terminated';

interface ContainerSim {
  name: string;
  image: string;
  init: boolean;
  exitCode: number;
  phase: ContainerPhase;
  waitingReason: string;
  waitingMessage?: string;
  restarts: number;
  startedAt?: string;
  finishedAt?: string;
  containerID: string;
  lastTerminated?: JsonRecord;
  code?: number;
}

interface PodSim {
  uid: string;
  namespace: string;
  name: string;
  node: string;
  hostIP: string;
  podIP?: string;
  startTime: string;
  containers: ContainerSim[];
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  restartPolicy: string;
  runningMs: number;
  /** False while the pod runtime is starting the pod's process (its readiness probe has not passed). */
  serving: boolean;
  /** The runtime runs a process for this pod (it must hear when the pod stops). */
  runtimeStarted: boolean;
}

const EXIT_RE = /\bexit\s+(\d+)/g;

/** Exit code for a container: pod annotation wins, then the first `exit N` with N ≠ 0 in command/args. */
function exitCodeFor(pod: KubeObject, container: JsonRecord): number {
  const ann = annotationsOf(pod)[SIM_ANNOTATIONS.exitCode];
  if (ann !== undefined && /^\d+$/.test(ann.trim())) return Number(ann.trim()) % 256;
  const text = [...arr(container.command), ...arr(container.args)].map(String).join(' ');
  for (const m of text.matchAll(EXIT_RE)) {
    const n = Number(m[1]);
    if (n !== 0) return n % 256 || 1;
  }
  return 0;
}

function commandText(container: JsonRecord): string {
  return [...arr(container.command), ...arr(container.args)].map(String).join(' ');
}

/** What `echo …` segments of a shell command would print, so logs resemble the real run. */
function echoed(command: string): string[] {
  const out: string[] = [];
  const re = /(?:^|[;&|(\s])echo\s+(?:-[ne]+\s+)?(?:"([^"]*)"|'([^']*)'|([^;&|)]*))/g;
  for (const m of command.matchAll(re)) {
    const text = (m[1] ?? m[2] ?? m[3] ?? '').trim();
    if (text) out.push(text);
  }
  return out;
}

function msAnnotation(pod: KubeObject, key: string, fallback: number): number {
  const v = annotationsOf(pod)[key];
  return v !== undefined && /^\d+$/.test(v.trim()) ? Number(v.trim()) : fallback;
}

export class Kubelet {
  private readonly sims = new Map<string, PodSim>();
  /** Pods that could not be scheduled: uid → last FailedScheduling message. */
  private readonly unscheduled = new Map<string, { namespace: string; name: string; message: string }>();
  private ipCounter = 0;
  /** True while the kubelet writes a pod, to tell its own writes from put()/API writes. */
  private writing = false;
  /**
   * Requests per node of the live pods (scheduler.ts requestedByNode), reused until a pod or node
   * changes: a pass over many unschedulable pods then sums the pods once, not once per pod.
   */
  private requested: Map<string, ResourceAmounts> | undefined;
  /** A retry of the unschedulable pods is queued (events that free resources share one pass). */
  private retryQueued = false;

  constructor(
    private readonly ctx: SimContext,
    private readonly runtime?: PodRuntime,
  ) {
    ctx.store.subscribe((c) => this.onChange(c));
  }

  /** Stops every pod's runtime process (the simulator closes). */
  stopAll(): void {
    for (const sim of [...this.sims.values()]) this.forget(sim.uid);
  }

  /** The simulator stops tracking a pod; the runtime stops its process. */
  private forget(uid: string): void {
    const sim = this.sims.get(uid);
    this.sims.delete(uid);
    if (sim?.runtimeStarted) {
      sim.runtimeStarted = false;
      this.runtime?.onPodStopped({ namespace: sim.namespace, name: sim.name, uid });
    }
  }

  private get podType() {
    return this.ctx.registry.core('pods');
  }

  private onChange(change: Change): void {
    const { group, plural } = change.resource;
    if (group === '' && (plural === 'pods' || plural === 'nodes')) this.requested = undefined;
    if (group === '' && plural === 'pods') {
      const pod = change.object;
      const uid = uidOf(pod);
      if (change.type === 'ADDED' && this.managed(pod)) {
        this.ctx.timers.after(
          0,
          () => this.bind(pod.metadata.namespace ?? 'default', pod.metadata.name, uid),
          uid,
        );
      } else if (change.type === 'MODIFIED' && !this.writing && this.sims.has(uid) && this.takenOver(pod)) {
        // Someone else (put(), a PUT of /status) decided the pod's fate: stop simulating it.
        this.ctx.timers.cancel(uid);
        this.forget(uid);
        this.unscheduled.delete(uid);
      } else if (change.type === 'DELETED') {
        this.ctx.timers.cancel(uid);
        this.forget(uid);
        this.unscheduled.delete(uid);
        this.ctx.logs.remove(pod.metadata.namespace ?? 'default', pod.metadata.name);
        this.retryUnscheduled();
      }
    } else if (group === '' && plural === 'nodes' && change.type !== 'DELETED') {
      this.retryUnscheduled();
    }
  }

  private takenOver(pod: KubeObject): boolean {
    const phase = rec(pod.status).phase;
    return (
      annotationsOf(pod)[SIM_ANNOTATIONS.unmanaged] === 'true' || phase === 'Succeeded' || phase === 'Failed'
    );
  }

  private managed(pod: KubeObject): boolean {
    if (annotationsOf(pod)[SIM_ANNOTATIONS.unmanaged] === 'true') return false;
    const phase = rec(pod.status).phase;
    return phase === undefined || phase === 'Pending';
  }

  private current(namespace: string, name: string, uid: string): KubeObject | undefined {
    // The stored pod itself (frozen): every write below starts from a copy.
    const pod = this.ctx.store.view(this.podType, namespace, name);
    return pod && uidOf(pod) === uid ? pod : undefined;
  }

  /**
   * Moves every unschedulable pod back to be scheduled once, as kube-scheduler moves its unschedulable
   * pods to the active queue on a cluster event that may make them fit (a pod deleted or finished, a node
   * changed). Events before the pass runs share it, so N pods finishing together cost one pass, not N.
   * https://github.com/kubernetes/kubernetes/blob/v1.30.0/pkg/scheduler/internal/queue/scheduling_queue.go (MoveAllToActiveOrBackoffQueue)
   */
  private retryUnscheduled(): void {
    if (this.retryQueued) return;
    this.retryQueued = true;
    this.ctx.timers.after(0, () => {
      this.retryQueued = false;
      for (const [uid, p] of [...this.unscheduled]) this.bind(p.namespace, p.name, uid);
    });
  }

  /** Scheduling: pick a node (or honor spec.nodeName), then hand the pod to the "node". */
  private bind(namespace: string, name: string, uid: string): void {
    const pod = this.current(namespace, name, uid);
    if (!pod || this.sims.has(uid)) return;
    const spec = rec(pod.spec);
    let nodeName = str(spec.nodeName);
    if (!nodeName) {
      const nodes = this.ctx.store.scan(this.ctx.registry.core('nodes'));
      this.requested ??= requestedByNode(this.ctx.store.scan(this.podType));
      const result = schedule(pod, nodes, this.requested);
      if ('reason' in result) {
        this.markUnschedulable(pod, result.reason);
        return;
      }
      nodeName = result.node;
      this.ctx.events.record(pod, {
        type: 'Normal',
        reason: 'Scheduled',
        message: `Successfully assigned ${namespace}/${name} to ${nodeName}`,
        component: 'default-scheduler',
      });
    }
    this.unscheduled.delete(uid);
    const node = this.ctx.store.view(this.ctx.registry.core('nodes'), undefined, nodeName);
    const hostIP = arr(rec(node?.status).addresses)
      .map(rec)
      .find((a) => a.type === 'InternalIP')?.address;
    const containers: ContainerSim[] = [];
    const hasInit = arr(spec.initContainers).length > 0;
    for (const [init, list] of [
      [true, arr(spec.initContainers)],
      [false, arr(spec.containers)],
    ] as const) {
      for (const c of list.map(rec)) {
        containers.push({
          name: str(c.name) ?? '',
          image: str(c.image) ?? '',
          init,
          exitCode: exitCodeFor(pod, c),
          phase: 'waiting',
          waitingReason: !init && hasInit ? 'PodInitializing' : 'ContainerCreating',
          restarts: 0,
          containerID: '',
        });
      }
    }
    const sim: PodSim = {
      uid,
      namespace,
      name,
      node: nodeName,
      hostIP: str(hostIP) ?? '10.0.0.1',
      startTime: nowIso(),
      containers,
      phase: 'Pending',
      restartPolicy: str(spec.restartPolicy) ?? 'Always',
      runningMs: msAnnotation(pod, SIM_ANNOTATIONS.runningMs, this.ctx.timing.runningMs),
      serving: this.runtime === undefined,
      runtimeStarted: false,
    };
    this.sims.set(uid, sim);
    this.write(sim, { nodeName });
    for (const c of containers) {
      this.ctx.events.record(this.podRef(sim), {
        type: 'Normal',
        reason: 'Pulling',
        message: `Pulling image "${c.image}"`,
        component: 'kubelet',
        host: nodeName,
        fieldPath: this.fieldPath(c),
      });
    }
    const pendingMs = msAnnotation(pod, SIM_ANNOTATIONS.pendingMs, this.ctx.timing.pendingMs);
    this.ctx.timers.after(pendingMs, () => this.start(uid), uid);
  }

  private markUnschedulable(pod: KubeObject, message: string): void {
    const uid = uidOf(pod);
    const ns = pod.metadata.namespace ?? 'default';
    const before = this.unscheduled.get(uid);
    this.unscheduled.set(uid, { namespace: ns, name: pod.metadata.name, message });
    if (before?.message === message) return;
    const status = rec(pod.status);
    const next = clone(pod);
    next.status = {
      ...status,
      phase: 'Pending',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          lastProbeTime: null,
          lastTransitionTime: nowIso(),
          reason: 'Unschedulable',
          message,
        },
      ],
    };
    this.selfUpdate(next);
    this.ctx.events.record(next, {
      type: 'Warning',
      reason: 'FailedScheduling',
      message,
      component: 'default-scheduler',
    });
  }

  private selfUpdate(pod: KubeObject): void {
    this.writing = true;
    try {
      this.ctx.store.update(this.podType, pod, { keepGeneration: true });
    } finally {
      this.writing = false;
    }
  }

  private podRef(sim: PodSim): KubeObject {
    return (
      this.current(sim.namespace, sim.name, sim.uid) ?? {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: sim.name, namespace: sim.namespace, uid: sim.uid },
      }
    );
  }

  private fieldPath(c: ContainerSim): string {
    return `spec.${c.init ? 'initContainers' : 'containers'}{${c.name}}`;
  }

  /** Containers start: init containers run to completion at once, then the app containers run. */
  private start(uid: string): void {
    const sim = this.sims.get(uid);
    if (!sim) return;
    const pod = this.current(sim.namespace, sim.name, uid);
    if (!pod) return;
    sim.podIP = `10.244.${Math.floor(this.ipCounter / 250) % 250}.${(this.ipCounter % 250) + 2}`;
    this.ipCounter++;
    for (const c of sim.containers.filter((x) => x.init)) {
      this.runContainer(sim, pod, c);
      this.exitContainer(sim, c);
      if (c.code !== 0) {
        for (const app of sim.containers.filter((x) => !x.init)) app.waitingReason = 'PodInitializing';
        sim.phase = 'Failed';
        this.write(sim);
        return;
      }
    }
    for (const c of sim.containers.filter((x) => !x.init)) this.runContainer(sim, pod, c);
    sim.phase = 'Running';
    this.write(sim);
    this.scheduleExit(sim);
    this.startRuntime(sim);
  }

  /** Hands the Running pod to the runtime; its containers turn ready when the runtime serves it. */
  private startRuntime(sim: PodSim): void {
    const pod = this.current(sim.namespace, sim.name, sim.uid);
    if (!this.runtime || !pod) return;
    sim.runtimeStarted = true;
    this.runtime.onPodRunning(pod).then(
      (logs) => {
        if (this.sims.get(sim.uid) !== sim || !sim.runtimeStarted) return;
        for (const { container, lines } of logs ?? [])
          for (const line of lines) this.ctx.logs.append(sim.namespace, sim.name, container, line);
        sim.serving = true;
        this.write(sim);
      },
      (error: unknown) => {
        if (this.sims.get(sim.uid) !== sim) return;
        // As a failing readiness probe: the pod stays Running and unready, with a Warning event.
        this.ctx.events.record(this.podRef(sim), {
          type: 'Warning',
          reason: 'Unhealthy',
          message: `Readiness probe failed: ${error instanceof Error ? error.message : String(error)}`,
          component: 'kubelet',
          host: sim.node,
        });
      },
    );
  }

  private runContainer(sim: PodSim, pod: KubeObject, c: ContainerSim): void {
    const ref = this.podRef(sim);
    const event = (reason: string, message: string): void =>
      this.ctx.events.record(ref, {
        type: 'Normal',
        reason,
        message,
        component: 'kubelet',
        host: sim.node,
        fieldPath: this.fieldPath(c),
      });
    if (c.restarts === 0)
      event('Pulled', `Successfully pulled image "${c.image}" in ${this.ctx.timing.pendingMs}ms`);
    else event('Pulled', `Container image "${c.image}" already present on machine`);
    event('Created', `Created container: ${c.name}`);
    event('Started', `Started container ${c.name}`);
    c.phase = 'running';
    c.startedAt = nowIso();
    c.containerID = `containerd://${randomBytes(32).toString('hex')}`;
    c.code = undefined;
    const spec = rec(pod.spec);
    const def = arr(c.init ? spec.initContainers : spec.containers)
      .map(rec)
      .find((x) => x.name === c.name);
    const command = def ? commandText(def) : '';
    const logs = this.ctx.logs;
    logs.start(sim.namespace, sim.name, c.name);
    const verb = c.restarts === 0 ? 'started' : `restarted (restart ${c.restarts})`;
    logs.append(
      sim.namespace,
      sim.name,
      c.name,
      `[gco-sim] container "${c.name}" ${verb} in pod ${sim.namespace}/${sim.name} on node ${sim.node}`,
    );
    logs.append(sim.namespace, sim.name, c.name, `[gco-sim] image: ${c.image}`);
    logs.append(sim.namespace, sim.name, c.name, `[gco-sim] command: ${command || '(image default)'}`);
    for (const line of echoed(command)) logs.append(sim.namespace, sim.name, c.name, line);
  }

  private exitContainer(sim: PodSim, c: ContainerSim): void {
    c.code = c.exitCode;
    c.finishedAt = nowIso();
    c.phase = 'terminated';
    this.ctx.logs.append(
      sim.namespace,
      sim.name,
      c.name,
      `[gco-sim] container "${c.name}" exited with code ${c.exitCode}`,
    );
    this.ctx.logs.finish(sim.namespace, sim.name, c.name);
  }

  private scheduleExit(sim: PodSim): void {
    const exiting = sim.containers.filter(
      (c) => !c.init && c.phase === 'running' && !(sim.restartPolicy === 'Always' && c.exitCode === 0),
    );
    if (exiting.length === 0) return; // long-running server containers
    this.ctx.timers.after(sim.runningMs, () => this.exit(sim.uid), sim.uid);
  }

  /** Running containers finish; failing ones restart unless restartPolicy is Never. */
  private exit(uid: string): void {
    const sim = this.sims.get(uid);
    if (!sim || !this.current(sim.namespace, sim.name, uid)) return;
    const restarting: ContainerSim[] = [];
    for (const c of sim.containers.filter((x) => !x.init && x.phase === 'running')) {
      if (sim.restartPolicy === 'Always' && c.exitCode === 0) continue;
      this.exitContainer(sim, c);
      if (c.exitCode !== 0 && sim.restartPolicy !== 'Never') restarting.push(c);
    }
    const apps = sim.containers.filter((x) => !x.init);
    if (restarting.length === 0 && apps.every((c) => c.phase === 'terminated')) {
      sim.phase = apps.every((c) => c.code === 0) ? 'Succeeded' : 'Failed';
      this.write(sim);
      this.forget(uid);
      this.retryUnscheduled(); // resources were freed
      return;
    }
    for (const c of restarting) {
      c.lastTerminated = this.terminatedState(c);
      c.restarts++;
      c.phase = 'waiting';
      const backoff = Math.min(10 * 2 ** (c.restarts - 1), 300);
      c.waitingReason = 'CrashLoopBackOff';
      c.waitingMessage = `back-off ${backoff}s restarting failed container=${c.name} pod=${sim.name}_${sim.namespace}(${uid})`;
      this.ctx.events.record(this.podRef(sim), {
        type: 'Warning',
        reason: 'BackOff',
        message: `Back-off restarting failed container ${c.name} in pod ${sim.name}_${sim.namespace}(${uid})`,
        component: 'kubelet',
        host: sim.node,
        fieldPath: this.fieldPath(c),
      });
    }
    this.write(sim);
    // The simulated back-off scales with the timing knobs instead of the kubelet's 10 s … 5 min.
    const exponent = Math.min(...restarting.map((c) => c.restarts - 1));
    const delay = Math.max(10, Math.min(this.ctx.timing.pendingMs * 2 ** exponent, 60_000));
    this.ctx.timers.after(
      delay,
      () => {
        const s = this.sims.get(uid);
        const pod = s && this.current(s.namespace, s.name, uid);
        if (!s || !pod) return;
        for (const c of restarting) this.runContainer(s, pod, c);
        this.write(s);
        this.scheduleExit(s);
      },
      uid,
    );
  }

  private terminatedState(c: ContainerSim): JsonRecord {
    return {
      terminated: {
        exitCode: c.code ?? 0,
        reason: c.code === 0 ? 'Completed' : 'Error',
        startedAt: c.startedAt ?? null,
        finishedAt: c.finishedAt ?? null,
        containerID: c.containerID,
      },
    };
  }

  private containerStatus(c: ContainerSim, serving: boolean): JsonRecord {
    let state: JsonRecord;
    if (c.phase === 'running') state = { running: { startedAt: c.startedAt } };
    else if (c.phase === 'terminated') state = this.terminatedState(c);
    else
      state = {
        waiting:
          c.waitingMessage && c.waitingReason === 'CrashLoopBackOff'
            ? { reason: c.waitingReason, message: c.waitingMessage }
            : { reason: c.waitingReason },
      };
    const status: JsonRecord = {
      name: c.name,
      state,
      lastState: c.lastTerminated ?? {},
      ready: c.phase === 'running' && serving,
      restartCount: c.restarts,
      image: c.image,
      imageID: c.containerID ? `${c.image.split(':')[0] ?? c.image}@sha256:${'0'.repeat(64)}` : '',
      started: c.phase === 'running',
    };
    if (c.containerID) status.containerID = c.containerID;
    return status;
  }

  /** Renders the simulated state into pod.status (and spec.nodeName on binding) and stores it. */
  private write(sim: PodSim, bind?: { nodeName: string }): void {
    const pod = this.current(sim.namespace, sim.name, sim.uid);
    if (!pod) return;
    const next = clone(pod);
    if (bind) next.spec = { ...rec(next.spec), nodeName: bind.nodeName };
    const prev = rec(pod.status);
    const apps = sim.containers.filter((c) => !c.init);
    const inits = sim.containers.filter((c) => c.init);
    const terminal = sim.phase === 'Succeeded' || sim.phase === 'Failed';
    const unready = apps.filter((c) => c.phase !== 'running' || !sim.serving).map((c) => c.name);
    const initialized = inits.every((c) => c.phase === 'terminated' && c.code === 0);
    const ready = !terminal && unready.length === 0 && sim.phase === 'Running';
    const notReady = terminal
      ? { reason: 'PodCompleted' }
      : { reason: 'ContainersNotReady', message: `containers with unready status: [${unready.join(' ')}]` };
    const conditions: JsonRecord[] = [
      {
        type: 'PodReadyToStartContainers',
        status: sim.phase === 'Pending' ? 'False' : terminal ? 'False' : 'True',
      },
      initialized
        ? { type: 'Initialized', status: 'True' }
        : {
            type: 'Initialized',
            status: 'False',
            reason: 'ContainersNotInitialized',
            message: `containers with incomplete status: [${inits
              .filter((c) => c.code !== 0)
              .map((c) => c.name)
              .join(' ')}]`,
          },
      ready ? { type: 'Ready', status: 'True' } : { type: 'Ready', status: 'False', ...notReady },
      ready
        ? { type: 'ContainersReady', status: 'True' }
        : { type: 'ContainersReady', status: 'False', ...notReady },
      { type: 'PodScheduled', status: 'True' },
    ];
    const prevConds = arr(prev.conditions).map(rec);
    for (const cond of conditions) {
      const before = prevConds.find((p) => p.type === cond.type);
      cond.lastProbeTime = null;
      cond.lastTransitionTime =
        before && before.status === cond.status ? (before.lastTransitionTime ?? nowIso()) : nowIso();
    }
    const status: JsonRecord = {
      ...prev,
      phase: sim.phase,
      conditions,
      hostIP: sim.hostIP,
      hostIPs: [{ ip: sim.hostIP }],
      startTime: sim.startTime,
      containerStatuses: apps.map((c) => this.containerStatus(c, sim.serving)),
    };
    if (inits.length > 0) status.initContainerStatuses = inits.map((c) => this.containerStatus(c, true));
    if (sim.podIP) {
      status.podIP = sim.podIP;
      status.podIPs = [{ ip: sim.podIP }];
    }
    next.status = status;
    if (deepEqual(next, pod)) return;
    this.selfUpdate(next);
  }
}
