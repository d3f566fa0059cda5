// Container logs written by the simulated kubelet, and the pods/log query semantics of the real
// kubelet: container choice, previous instance, tailLines, sinceSeconds/sinceTime, timestamps, limitBytes.

import { badRequest } from './status.js';
import type { KubeObject } from './types.js';
import { arr, num, rec, str } from './types.js';

interface LogLine {
  at: Date;
  text: string;
}

interface Instance {
  /** 0 for the first run, then one more per restart (the container's restartCount at start). */
  run: number;
  lines: LogLine[];
  done: boolean;
}

export type FollowListener = (line: string | null) => void;

export class LogStore {
  private readonly pods = new Map<string, Map<string, Instance[]>>();
  private readonly followers = new Map<string, Set<FollowListener>>();

  private containers(ns: string, pod: string): Map<string, Instance[]> {
    const key = `${ns}/${pod}`;
    let m = this.pods.get(key);
    if (!m) {
      m = new Map();
      this.pods.set(key, m);
    }
    return m;
  }

  /** Starts a new container instance (first start or restart); earlier ones become "previous". */
  start(ns: string, pod: string, container: string): void {
    const list = this.containers(ns, pod).get(container) ?? [];
    list.push({ run: (list[list.length - 1]?.run ?? -1) + 1, lines: [], done: false });
    // Like the kubelet, only the latest runs are kept.
    while (list.length > 2) list.shift();
    this.containers(ns, pod).set(container, list);
  }

  append(ns: string, pod: string, container: string, text: string): void {
    const list = this.containers(ns, pod).get(container);
    const cur = list?.[list.length - 1];
    if (!cur) return;
    const at = new Date();
    for (const line of text.split('\n')) {
      cur.lines.push({ at, text: line });
      for (const f of this.followers.get(`${ns}/${pod}/${container}`) ?? [])
        f(formatLine({ at, text: line }, true));
    }
  }

  finish(ns: string, pod: string, container: string): void {
    const list = this.containers(ns, pod).get(container);
    const cur = list?.[list.length - 1];
    if (cur) cur.done = true;
    this.endFollowers(`${ns}/${pod}/${container}`);
  }

  remove(ns: string, pod: string): void {
    this.pods.delete(`${ns}/${pod}`);
    for (const key of [...this.followers.keys()]) if (key.startsWith(`${ns}/${pod}/`)) this.endFollowers(key);
  }

  closeAll(): void {
    for (const key of [...this.followers.keys()]) this.endFollowers(key);
  }

  /**
   * The latest run, or with `previous` the run before the current restart (restartCount - 1): during
   * CrashLoopBackOff that is the run that just failed, as with the kubelet.
   */
  instance(
    ns: string,
    pod: string,
    container: string,
    previous: boolean,
    restartCount: number,
  ): Instance | undefined {
    const list = this.containers(ns, pod).get(container) ?? [];
    if (!previous) return list[list.length - 1];
    return restartCount > 0 ? list.find((i) => i.run === restartCount - 1) : undefined;
  }

  /** Registers a follower that receives raw-with-timestamp lines, then null when the container stops. */
  follow(ns: string, pod: string, container: string, fn: FollowListener): () => void {
    const key = `${ns}/${pod}/${container}`;
    let set = this.followers.get(key);
    if (!set) {
      set = new Set();
      this.followers.set(key, set);
    }
    set.add(fn);
    return () => set.delete(fn);
  }

  private endFollowers(key: string): void {
    const set = this.followers.get(key);
    this.followers.delete(key);
    for (const f of set ?? []) f(null);
  }
}

/** RFC 3339 with nanoseconds, the kubelet's `timestamps=true` prefix. */
function formatLine(line: LogLine, timestamps: boolean): string {
  if (!timestamps) return line.text;
  const iso = line.at.toISOString(); // 2024-01-01T00:00:00.123Z
  return `${iso.slice(0, -1)}000000Z ${line.text}`;
}

export interface LogQuery {
  container: string;
  previous: boolean;
  follow: boolean;
  timestamps: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  sinceTime?: Date;
  limitBytes?: number;
}

function intParam(q: URLSearchParams, name: string, min: number): number | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw) || Number(raw) < min) {
    throw badRequest(
      `PodLogOptions "" is invalid: ${name}: Invalid value: ${raw}: must be ${min === 0 ? 'non-negative' : 'greater than 0'}`,
    );
  }
  return Number(raw);
}

function boolParam(q: URLSearchParams, name: string): boolean {
  const raw = q.get(name);
  return raw === 'true' || raw === '1';
}

/** Validates the query against the pod and picks the container, with the kubelet's error messages. */
export function parseLogQuery(pod: KubeObject, q: URLSearchParams): LogQuery {
  const spec = rec(pod.spec);
  const names = arr(spec.containers).map((c) => str(rec(c).name) ?? '');
  const initNames = arr(spec.initContainers).map((c) => str(rec(c).name) ?? '');
  let container = q.get('container') ?? '';
  const podName = pod.metadata.name;
  if (!container) {
    const preferred = str(rec(pod.metadata.annotations)['kubectl.kubernetes.io/default-container']);
    if (preferred && names.includes(preferred)) container = preferred;
    else if (names.length === 1) container = names[0] ?? '';
    else {
      const init = initNames.length > 0 ? ` or one of the init containers: [${initNames.join(' ')}]` : '';
      throw badRequest(
        `a container name must be specified for pod ${podName}, choose one of: [${names.join(' ')}]${init}`,
      );
    }
  }
  if (!names.includes(container) && !initNames.includes(container)) {
    throw badRequest(`container ${container} is not valid for pod ${podName}`);
  }
  const sinceRaw = q.get('sinceTime');
  let sinceTime: Date | undefined;
  if (sinceRaw) {
    sinceTime = new Date(sinceRaw);
    if (Number.isNaN(sinceTime.getTime())) throw badRequest(`invalid sinceTime: "${sinceRaw}"`);
  }
  const query: LogQuery = {
    container,
    previous: boolParam(q, 'previous'),
    follow: boolParam(q, 'follow'),
    timestamps: boolParam(q, 'timestamps'),
  };
  const tail = intParam(q, 'tailLines', 0);
  const since = intParam(q, 'sinceSeconds', 1);
  const limitBytes = intParam(q, 'limitBytes', 1);
  if (since !== undefined && sinceTime)
    throw badRequest('at most one of sinceTime or sinceSeconds may be specified');
  if (tail !== undefined) query.tailLines = tail;
  if (since !== undefined) query.sinceSeconds = since;
  if (sinceTime) query.sinceTime = sinceTime;
  if (limitBytes !== undefined) query.limitBytes = limitBytes;
  return query;
}

/** The container's entry in pod.status (state, restartCount). */
function containerStatus(pod: KubeObject, container: string): Record<string, unknown> {
  const status = rec(pod.status);
  const all = [...arr(status.containerStatuses), ...arr(status.initContainerStatuses)];
  return rec(all.map(rec).find((s) => s.name === container));
}

export function renderLog(logs: LogStore, pod: KubeObject, q: LogQuery): { text: string; live: boolean } {
  const ns = pod.metadata.namespace ?? 'default';
  const name = pod.metadata.name;
  const restarts = num(rec(containerStatus(pod, q.container)).restartCount) ?? 0;
  const inst = logs.instance(ns, name, q.container, q.previous, restarts);
  if (!inst) {
    if (q.previous)
      throw badRequest(`previous terminated container "${q.container}" in pod "${name}" not found`);
    const waiting = rec(rec(containerStatus(pod, q.container).state).waiting);
    const reason = str(waiting.reason) ?? 'ContainerCreating';
    throw badRequest(`container "${q.container}" in pod "${name}" is waiting to start: ${reason}`);
  }
  let lines = inst.lines;
  const since =
    q.sinceTime ?? (q.sinceSeconds !== undefined ? new Date(Date.now() - q.sinceSeconds * 1000) : undefined);
  if (since) lines = lines.filter((l) => l.at.getTime() >= since.getTime());
  if (q.tailLines !== undefined) lines = q.tailLines === 0 ? [] : lines.slice(-q.tailLines);
  let text = lines.map((l) => `${formatLine(l, q.timestamps)}\n`).join('');
  if (q.limitBytes !== undefined) text = Buffer.from(text, 'utf8').subarray(0, q.limitBytes).toString('utf8');
  return { text, live: !inst.done && !q.previous };
}

export function stripTimestamp(line: string): string {
  return line.replace(/^\S+ /, '');
}
