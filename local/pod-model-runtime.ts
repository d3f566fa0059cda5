/**
 * The local platform's pod runtime for the Kubernetes API simulator (PodRuntime): while a pod with a
 * `model` container is Running, a real HTTPS server on 127.0.0.1:<random> plays the pod's TLS sidecar
 * (MODEL_TLS_PORT) and its model container together:
 * - image = `inference.sampleImage` (.local/endpoints.json): the local sample model (model-server.ts),
 *   streaming real tokens;
 * - any other image: a stub (stub-model-server.ts) that is healthy but answers every other request 501
 *   saying the image is not runnable locally.
 * Its certificate comes from the platform's internal CA for the names of the Services that select the
 * pod, plus the endpoint Service host its inference labels name (the reconciler may create the Service
 * after the pod starts), as the sidecar's certificate does in a deployment. The server stops when the pod stops. The
 * Service hosts resolve to these servers through service-proxy.ts.
 */
import { ENDPOINT_LABELS, endpointServiceHost, type EndpointRole } from '../contracts/inference-endpoints.js';
import type { KubeObject, PodRuntime, PodRuntimeLog } from './kube-api-simulator/index.js';
import { startModelServer, type ModelServerOptions } from './model-server.js';
import { startStubModelServer } from './stub-model-server.js';
import type { LocalCa } from './tls.js';

/** The container the inference reconciler names `model` (contracts/inference-endpoints.ts layout). */
const MODEL_CONTAINER = 'model';
const DEFAULT_HEALTH_PATH = '/health';
const LOOPBACK = '127.0.0.1';
/**
 * A stopped pod's server finishes the requests in flight for its terminationGracePeriodSeconds (default
 * 30 s: https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-termination), capped
 * locally so a stream cannot hold a test or a stop for long.
 */
const LOCAL_MAX_GRACE_MS = 5_000;

export interface PodModelRuntimeOptions {
  ca: LocalCa;
  /** The image reference that runs the local sample model. */
  sampleImage: string;
  modelServer?: Pick<ModelServerOptions, 'tokenDelayMs' | 'pace'>;
  /** DNS names of the Services that select the pod (the certificate's names). */
  serviceHostsFor?: (pod: KubeObject) => string[];
}

interface PodServer {
  namespace: string;
  name: string;
  port: number | undefined;
  /** Set when the pod stopped: a server still starting closes as soon as it is up. */
  stopped: boolean;
  /** The pod's terminationGracePeriodSeconds, capped (LOCAL_MAX_GRACE_MS). */
  graceMs: number;
  close?: (graceMs?: number) => Promise<void>;
}

interface ContainerDef {
  name?: unknown;
  image?: unknown;
  readinessProbe?: { httpGet?: { path?: unknown } };
}

/** The Service host of the inference endpoint and role the pod's labels name (none without them). */
function endpointHosts(pod: KubeObject): string[] {
  const podLabels = (pod.metadata.labels ?? {}) as Record<string, string>;
  const endpoint = podLabels[ENDPOINT_LABELS.endpoint];
  const role = podLabels[ENDPOINT_LABELS.role];
  if (!endpoint || (role !== 'primary' && role !== 'canary')) return [];
  return [endpointServiceHost(endpoint, role satisfies EndpointRole)];
}

export class PodModelRuntime implements PodRuntime {
  private readonly servers = new Map<string, PodServer>();

  constructor(private readonly opts: PodModelRuntimeOptions) {}

  async onPodRunning(pod: KubeObject): Promise<PodRuntimeLog[] | void> {
    const containers = ((pod.spec as { containers?: unknown } | undefined)?.containers ??
      []) as ContainerDef[];
    const model = Array.isArray(containers) ? containers.find((c) => c.name === MODEL_CONTAINER) : undefined;
    if (model === undefined || typeof model.image !== 'string') return;
    const uid = String(pod.metadata.uid);
    const entry: PodServer = {
      namespace: pod.metadata.namespace ?? 'default',
      name: pod.metadata.name,
      port: undefined,
      stopped: false,
      graceMs: Math.min(
        LOCAL_MAX_GRACE_MS,
        1000 *
          Number(
            (pod.spec as { terminationGracePeriodSeconds?: unknown } | undefined)
              ?.terminationGracePeriodSeconds ?? 30,
          ),
      ),
    };
    this.servers.set(uid, entry);
    const hosts = [...new Set([...endpointHosts(pod), ...(this.opts.serviceHostsFor?.(pod) ?? [])])];
    const certificate = this.opts.ca.issue([...hosts, LOOPBACK]);
    const sample = model.image === this.opts.sampleImage;
    const probePath = model.readinessProbe?.httpGet?.path;
    const server = sample
      ? await startModelServer({ certificate, ...this.opts.modelServer })
      : await startStubModelServer({
          certificate,
          image: model.image,
          healthPath: typeof probePath === 'string' ? probePath : DEFAULT_HEALTH_PATH,
        });
    entry.close = (graceMs) => server.close(graceMs);
    if (entry.stopped) {
      await server.close();
      throw new Error('pod stopped while its server was starting');
    }
    entry.port = server.port;
    const what = sample
      ? 'local sample model server'
      : `stub model server (image ${model.image} is not runnable locally)`;
    return [
      {
        container: MODEL_CONTAINER,
        lines: [
          `[gco-local] ${what} listening on https://${LOOPBACK}:${server.port} (certificate for ${hosts.join(', ') || LOOPBACK})`,
        ],
      },
    ];
  }

  onPodStopped(pod: { namespace: string; name: string; uid: string }): void {
    const entry = this.servers.get(pod.uid);
    if (!entry) return;
    this.servers.delete(pod.uid);
    entry.stopped = true;
    entry.port = undefined;
    // New connections go elsewhere at once (the resolver no longer sees the pod); requests in flight finish.
    void entry.close?.(Number.isFinite(entry.graceMs) ? entry.graceMs : 0).catch(() => undefined);
  }

  /** The loopback port serving a Running pod, when its server is up. */
  portOf(namespace: string, name: string, uid: string): number | undefined {
    const entry = this.servers.get(uid);
    return entry && entry.namespace === namespace && entry.name === name ? entry.port : undefined;
  }

  /** Stops every server (the platform closes). */
  async close(): Promise<void> {
    const entries = [...this.servers.values()];
    this.servers.clear();
    await Promise.all(
      entries.map(async (e) => {
        e.stopped = true;
        await e.close?.().catch(() => undefined);
      }),
    );
  }
}
