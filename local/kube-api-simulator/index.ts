// Public API of the Kubernetes API simulator: an HTTP stand-in for the API server that
// @kubernetes/client-node and kubectl talk to unmodified, with a simulated scheduler, kubelet, job
// controller and metrics-server, plus direct state controls for tests and the local platform.
// See docs/kube-api-simulator.md.

import { randomUUID } from 'node:crypto';

import type { KubeConfig } from '@kubernetes/client-node';

import type { KubeletTiming, SimContext, Usage } from './context.js';
import { CrdController } from './crds.js';
import { applyDefaults } from './defaults.js';
import { DeploymentController } from './deployment-controller.js';
import { EventRecorder } from './events.js';
import { JobController } from './job-controller.js';
import { Kubelet } from './kubelet.js';
import { kubeConfigFor, kubeConfigYaml } from './kubeconfig.js';
import { LogStore } from './logs.js';
import type { PodRuntime } from './pod-runtime.js';
import { StoreJournal } from './persistence.js';
import { ResourceRegistry } from './registry.js';
import { createObject, ensureDefaultServiceAccount, present } from './rest.js';
import { seedNamespaces, seedNodes } from './seed.js';
import { startServer } from './server.js';
import { ObjectStore } from './store.js';
import { Timers } from './timers.js';
import type { KubeObject } from './types.js';
import { clone, str } from './types.js';
import { WorkloadController } from './workloads.js';

export type { KubeletTiming } from './context.js';
export type { KubeObject } from './types.js';
export type { PodRuntime, PodRuntimeLog } from './pod-runtime.js';
export { kubeConfigFor } from './kubeconfig.js';
export { SIM_ANNOTATIONS } from './context.js';
export { CPU_NODE, GPU_NODE } from './seed.js';

export interface KubeApiSimulatorOptions {
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Port (default 0 = a random free port). */
  port?: number;
  /** Simulated kubelet timing (defaults: pendingMs 200, runningMs 500). */
  kubelet?: Partial<KubeletTiming>;
  /** Seed namespaces default, kube-system, svc-jobs and two nodes (default true). */
  seedDefaults?: boolean;
  /**
   * Serve HTTPS with this key and certificate (issued by `ca`, which kubeConfigYaml() and
   * kubeConfig() carry so clients verify the server). Default: plain HTTP.
   */
  tls?: { key: string; cert: string; ca: string };
  /**
   * Deployments and ReplicaSets run pods (deployment-controller.ts) and report status from them. Off by
   * default: they then report their replicas ready `pendingMs` after each change, with no pods.
   */
  deploymentPods?: boolean;
  /** Runs a process for Running pods (pod-runtime.ts); their readiness waits for it. */
  podRuntime?: PodRuntime;
  /**
   * Keep every object in this journal file (persistence.ts): objects written before a restart, even a
   * SIGKILL, are there after it. Default: in memory only.
   */
  journalFile?: string;
}

type UnavailableStatus = 403 | 404 | 503;

export interface KubeApiSimulator {
  /** Base URL, e.g. http://127.0.0.1:PORT */
  readonly url: string;
  /** A kubeconfig (cluster, user and context "simulator") for kubectl / KUBECONFIG. */
  kubeConfigYaml(): string;
  /** A client-node KubeConfig for this simulator (pooled agents; verifies the CA when over TLS). */
  kubeConfig(namespace?: string): KubeConfig;
  /** Stops the HTTP server and every simulated-controller timer. */
  close(): Promise<void>;
  /** Create-or-replace any object without HTTP, validation or admission (metadata is filled in). */
  put(obj: KubeObject): KubeObject;
  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): KubeObject | undefined;
  list(apiVersion: string, kind: string, namespace?: string): KubeObject[];
  /** Overrides metrics.k8s.io usage of a node (strings are returned verbatim). */
  setNodeUsage(nodeName: string, usage: Usage): void;
  /** Overrides metrics.k8s.io usage of a pod's containers. */
  setPodUsage(namespace: string, podName: string, containers: Record<string, Usage>): void;
  /**
   * Answers `status` (default 403) for a resource ('limitranges'), an API group ('metrics.k8s.io') or
   * 'resource.group'; 404 also hides it from discovery.
   */
  setUnavailable(resource: string, status?: UnavailableStatus): void;
  clearUnavailable(resource: string): void;
  /** The effective kubelet timing. */
  readonly timing: KubeletTiming;
  /** TCP connections accepted and HTTP requests received so far (how well clients reuse connections). */
  connectionStats(): { connections: number; requests: number };
}

export async function startKubeApiSimulator(opts: KubeApiSimulatorOptions = {}): Promise<KubeApiSimulator> {
  const registry = new ResourceRegistry();
  const store = new ObjectStore();
  const timing: KubeletTiming = {
    pendingMs: opts.kubelet?.pendingMs ?? 200,
    runningMs: opts.kubelet?.runningMs ?? 500,
  };
  const ctx: SimContext = {
    registry,
    store,
    events: new EventRecorder(store, registry),
    logs: new LogStore(),
    timers: new Timers(),
    timing,
    metrics: { nodes: new Map(), pods: new Map() },
    unavailable: new Map(),
  };
  const journal = opts.journalFile ? new StoreJournal(opts.journalFile, store, registry) : undefined;
  new CrdController(ctx);
  const kubelet = new Kubelet(ctx, opts.podRuntime);
  const create = (type: Parameters<typeof createObject>[1], obj: KubeObject) => createObject(ctx, type, obj);
  new JobController(ctx, create);
  if (opts.deploymentPods === true) {
    new DeploymentController(ctx, create);
    new WorkloadController(ctx, new Set(['statefulsets', 'daemonsets']));
  } else {
    new WorkloadController(ctx);
  }

  const restored = journal?.hasState() === true;
  journal?.open();
  if (opts.seedDefaults !== false && !restored) {
    for (const ns of seedNamespaces()) createObject(ctx, registry.core('namespaces'), ns);
    for (const node of seedNodes()) store.create(registry.core('nodes'), node);
  }

  const server = await startServer(ctx, opts.host ?? '127.0.0.1', opts.port ?? 0, opts.tls);
  const clientTls = opts.tls ? { ca: opts.tls.ca } : {};
  let closing: Promise<void> | undefined;

  const typeOf = (apiVersion: string, kind: string) => {
    const type = registry.byKind(apiVersion, kind);
    if (!type) throw new Error(`kube-api-simulator: unknown kind ${kind} in ${apiVersion}`);
    return type;
  };

  return {
    url: server.url,
    timing,
    connectionStats: () => ({ ...server.counts }),
    kubeConfigYaml: () => kubeConfigYaml(server.url, 'default', clientTls),
    kubeConfig: (namespace = 'default') => kubeConfigFor(server.url, namespace, clientTls),
    close: () => {
      closing ??= (async () => {
        ctx.timers.close();
        kubelet.stopAll();
        ctx.logs.closeAll();
        await server.close();
        journal?.close();
      })();
      return closing;
    },
    put(obj) {
      const type = typeOf(obj.apiVersion, obj.kind);
      const next = clone(obj);
      if (type.namespaced) next.metadata.namespace ??= 'default';
      else delete next.metadata.namespace;
      const existing = store.get(type, next.metadata.namespace, next.metadata.name);
      next.metadata.uid = str(existing?.metadata.uid) ?? str(next.metadata.uid) ?? randomUUID();
      if (!existing) applyDefaults(next, type);
      const stored = store.put(type, next);
      if (type.group === '' && type.plural === 'namespaces')
        ensureDefaultServiceAccount(ctx, stored.metadata.name);
      return present(ctx, type, stored);
    },
    get(apiVersion, kind, namespace, name) {
      const type = typeOf(apiVersion, kind);
      const found = store.get(type, type.namespaced ? (namespace ?? 'default') : undefined, name);
      return found ? present(ctx, type, found) : undefined;
    },
    list(apiVersion, kind, namespace) {
      const type = typeOf(apiVersion, kind);
      return store.list(type, namespace).map((o) => present(ctx, type, o));
    },
    setNodeUsage(nodeName, usage) {
      ctx.metrics.nodes.set(nodeName, { ...usage });
    },
    setPodUsage(namespace, podName, containers) {
      ctx.metrics.pods.set(`${namespace}/${podName}`, clone(containers));
    },
    setUnavailable(resource, status = 403) {
      ctx.unavailable.set(resource, status);
    },
    clearUnavailable(resource) {
      ctx.unavailable.delete(resource);
    },
  };
}
