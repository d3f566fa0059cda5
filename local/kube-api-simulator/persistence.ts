// The simulator's objects on disk (the local platform's --data-dir): a journal of JSON lines, one per
// stored change, appended synchronously before the API answers, so a process killed with SIGKILL loses
// nothing it acknowledged (the kernel keeps written data; only a machine crash can drop unflushed
// pages: there is no fsync). It plays etcd's role for the API server: every write is durable once
// answered (https://etcd.io/docs/v3.5/learning/api_guarantees/#durability).
//
// Lines: `{"rv":N}` (the resourceVersion counter), `{"put":{group,plural},"object":…}` and
// `{"delete":{group,plural},"namespace":…,"name":…,"rv":…}`. At start the journal is replayed, then
// rewritten as a snapshot (temporary file + rename, so a crash leaves the old journal or the new
// one, never half of each), and rewritten again whenever it has grown well past the live objects.
//
// After a restart every restored object is announced to the simulated controllers as ADDED, as an
// informer's initial list delivers an Add for every existing object
// (https://pkg.go.dev/k8s.io/client-go/tools/cache#ResourceEventHandler). The pods' containers did not
// survive the restart (the "node" restarted with the process); see restartedPod() for what the kubelet
// does with them.

import { closeSync, existsSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';

import type { ResourceRegistry, ResourceType } from './registry.js';
import type { Change, ObjectStore } from './store.js';
import type { KubeObject } from './types.js';
import { arr, isRecord, nowIso, rec, str } from './types.js';

interface TypeRef {
  group: string;
  plural: string;
}

type JournalLine =
  | { rv: number }
  | { put: TypeRef; object: KubeObject }
  | { delete: TypeRef; namespace?: string; name: string; rv: number };

/** Compaction once the journal holds this many lines beyond the live objects (and at least 4× them). */
const COMPACT_SLACK = 10_000;

const refOf = (t: ResourceType): TypeRef => ({ group: t.group, plural: t.plural });
const sameRef = (a: TypeRef, b: TypeRef) => a.group === b.group && a.plural === b.plural;
const isCrd = (r: TypeRef) => r.group === 'apiextensions.k8s.io' && r.plural === 'customresourcedefinitions';

/** Parses the journal; a torn last line (a write cut by SIGKILL) is ignored, any other bad line fails. */
function readJournal(file: string): JournalLine[] {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: JournalLine[] = [];
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      const parsed: unknown = JSON.parse(line);
      if (!isRecord(parsed)) throw new Error('not an object');
      out.push(parsed as JournalLine);
    } catch (error) {
      if (i === lines.length - 1) return;
      throw new Error(`${file}:${i + 1}: unreadable journal line (${String(error)})`, { cause: error });
    }
  });
  return out;
}

/**
 * What a node restart does to a pod that had started (its containers are gone): the kubelet recreates
 * the sandbox and restarts the containers unless the pod's restartPolicy is Never, in which case the pod
 * fails and its controller replaces it (kuberuntime_manager.go computePodActions: "Should not restart
 * the pod, just return" for RestartPolicy Never once containers ran,
 * https://github.com/kubernetes/kubernetes/blob/v1.34.0/pkg/kubelet/kuberuntime/kuberuntime_manager.go).
 * Pending pods are kept (the kubelet admits them again on their announcement), terminal ones too.
 */
function restartedPod(pod: KubeObject): KubeObject {
  const status = rec(pod.status);
  if (str(status.phase) !== 'Running') return pod;
  if (str(rec(pod.spec).restartPolicy) !== 'Never') {
    // Back to Pending: the simulated kubelet admits it again and starts its containers.
    return { ...pod, status: { phase: 'Pending' } };
  }
  const now = nowIso();
  // The state the kubelet reports for a container it can no longer find (ContainerStatusUnknown, 137).
  const containerStatuses = arr(status.containerStatuses).map((c) => ({
    ...rec(c),
    ready: false,
    started: false,
    state: {
      terminated: {
        exitCode: 137,
        reason: 'ContainerStatusUnknown',
        message: 'The container could not be located when the pod was terminated',
        finishedAt: now,
      },
    },
  }));
  return {
    ...pod,
    status: { ...status, phase: 'Failed', reason: 'NodeRestart', containerStatuses },
  };
}

export class StoreJournal {
  private fd: number | undefined;
  private lines = 0;
  private restoring = false;

  constructor(
    private readonly file: string,
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
  ) {
    // Subscribed before any controller, so a change is recorded before the writes it causes.
    store.subscribe((change) => this.record(change));
  }

  /** Whether the journal held any state (then the simulator skips seeding its defaults). */
  hasState(): boolean {
    return existsSync(this.file) && readFileSync(this.file, 'utf8').trim() !== '';
  }

  /**
   * Replays the journal into the store (silently), announces every object to the controllers, writes
   * a snapshot and starts recording. Construct the journal before the controllers, open it after them.
   */
  open(): void {
    const live = new Map<string, { ref: TypeRef; object: KubeObject }>();
    let rv = 0;
    const keyOf = (ref: TypeRef, namespace: string | undefined, name: string) =>
      `${ref.group}/${ref.plural}/${namespace ?? ''}/${name}`;
    for (const line of readJournal(this.file)) {
      if ('put' in line) {
        const m = line.object.metadata;
        live.set(keyOf(line.put, m.namespace, m.name), { ref: line.put, object: line.object });
        rv = Math.max(rv, Number(m.resourceVersion ?? 0));
      } else if ('delete' in line) {
        live.delete(keyOf(line.delete, line.namespace, line.name));
        rv = Math.max(rv, line.rv);
      } else {
        rv = Math.max(rv, line.rv);
      }
    }
    this.restoring = true;
    try {
      this.store.restoreVersion(rv);
      const entries = [...live.values()];
      // Custom resource definitions first: announcing one registers its type for the objects after it.
      for (const pass of [true, false]) {
        const restored: { type: ResourceType; object: KubeObject }[] = [];
        for (const { ref, object } of entries.filter((e) => isCrd(e.ref) === pass)) {
          const type = this.registry.all().find((t) => sameRef(refOf(t), ref) && !t.virtual);
          if (!type) {
            process.emitWarning(
              `kube-api-simulator: ${ref.group}/${ref.plural} is no longer served; dropped`,
            );
            continue;
          }
          const kept = ref.group === '' && ref.plural === 'pods' ? restartedPod(object) : object;
          this.store.restore(type, kept);
          restored.push({ type, object: kept });
        }
        for (const { type, object } of restored)
          this.store.announce(type, object.metadata.namespace, object.metadata.name);
      }
    } finally {
      this.restoring = false;
    }
    // The snapshot also holds what the controllers wrote while the objects were announced.
    this.compact();
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private record(change: Change): void {
    if (this.restoring || this.fd === undefined) return;
    const ref = refOf(change.resource);
    const m = change.object.metadata;
    const line: JournalLine =
      change.type === 'DELETED'
        ? {
            delete: ref,
            ...(m.namespace === undefined ? {} : { namespace: m.namespace }),
            name: m.name,
            rv: Number(m.resourceVersion ?? 0),
          }
        : { put: ref, object: change.object };
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
    this.lines++;
    const objects = this.objectCount();
    if (this.lines > objects + Math.max(COMPACT_SLACK, 3 * objects)) this.compact();
  }

  private objectCount(): number {
    return this.registry
      .all()
      .filter((t) => !t.virtual)
      .reduce((sum, t) => sum + this.store.count(t), 0);
  }

  /** Rewrites the journal as one line per live object (atomically) and appends to the new file. */
  private compact(): void {
    this.close();
    const types = this.registry.all().filter((t) => !t.virtual);
    // CRDs first, so a replay registers their types before their objects.
    types.sort((a, b) => Number(isCrd(refOf(b))) - Number(isCrd(refOf(a))));
    const out: string[] = [JSON.stringify({ rv: Number(this.store.resourceVersion()) })];
    for (const type of types)
      for (const object of this.store.scan(type)) out.push(JSON.stringify({ put: refOf(type), object }));
    const temporary = `${this.file}.tmp`;
    writeFileSync(temporary, `${out.join('\n')}\n`, { mode: 0o600 });
    renameSync(temporary, this.file);
    this.fd = openSync(this.file, 'a', 0o600);
    this.lines = out.length;
  }
}
