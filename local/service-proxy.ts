/**
 * Service resolution for the local inference-proxy, standing in for CoreDNS + kube-proxy: a host
 * `<service>.<namespace>.svc.cluster.local` on one of the Service's ports reaches one of the Ready pods
 * its selector matches, round-robin across them (kube-proxy's IPVS mode defaults to round-robin).
 *   https://kubernetes.io/docs/concepts/services-networking/service/
 *   https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#a-aaaa-records
 *   https://kubernetes.io/docs/reference/networking/virtual-ips/#proxy-mode-ipvs
 * Each Ready pod is reached at the loopback port of its local server (pod-model-runtime.ts), which plays
 * the pod's whole network namespace. Like the real cluster: an unknown Service or namespace does not
 * resolve (ENOTFOUND), a port the Service does not expose or a Service with no ready endpoint refuses
 * the connection (kube-proxy installs a REJECT rule for a Service without endpoints). IP literals
 * (the pre-registered sample-model's 127.0.0.1) connect as given.
 */
import { isIP } from 'node:net';
import type { UpstreamAddress } from '../cluster/inference-proxy/src/upstream.js';
import type { KubeApiSimulator, KubeObject } from './kube-api-simulator/index.js';

const SERVICE_HOST =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.svc\.cluster\.local\.?$/;

/** Where a pod's local server listens, when it is up. */
export type PodPorts = (namespace: string, name: string, uid: string) => number | undefined;

function errno(code: 'ENOTFOUND' | 'ECONNREFUSED', message: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(message);
  error.code = code;
  error.syscall = code === 'ENOTFOUND' ? 'getaddrinfo' : 'connect';
  return error;
}

function labels(obj: KubeObject): Record<string, string> {
  return (obj.metadata.labels ?? {}) as Record<string, string>;
}

function isReady(pod: KubeObject): boolean {
  const conditions = (pod.status as { conditions?: { type?: string; status?: string }[] } | undefined)
    ?.conditions;
  return (conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** A Service's selector matches a pod when every selector label is on it (an empty selector matches none). */
function selects(service: KubeObject, pod: KubeObject): boolean {
  const selector = (service.spec as { selector?: Record<string, string> } | undefined)?.selector ?? {};
  const entries = Object.entries(selector);
  const podLabels = labels(pod);
  return entries.length > 0 && entries.every(([k, v]) => podLabels[k] === v);
}

/** The DNS names of a Service (short, namespaced, cluster-local) — what its certificate names. */
function serviceDnsNames(service: KubeObject): string[] {
  const name = service.metadata.name;
  const ns = service.metadata.namespace ?? 'default';
  return [`${name}.${ns}.svc.cluster.local`, `${name}.${ns}.svc`, `${name}.${ns}`, name];
}

export interface ServiceProxy {
  /** The upstream resolver (cluster/inference-proxy/src/upstream.ts UpstreamResolver). */
  resolve(host: string, port: number): Promise<UpstreamAddress>;
  /** The DNS names of every Service in the pod's namespace that selects it. */
  serviceHostsFor(pod: KubeObject): string[];
}

/** `simulator` is read lazily: the runtime that needs serviceHostsFor is made before the simulator starts. */
export function createServiceProxy(
  simulator: () => KubeApiSimulator | undefined,
  ports: PodPorts,
): ServiceProxy {
  const next = new Map<string, number>();
  return {
    async resolve(host, port) {
      if (isIP(host) !== 0) return { host, port };
      const match = SERVICE_HOST.exec(host.toLowerCase());
      const sim = simulator();
      const name = match?.[1];
      const namespace = match?.[3];
      const service = sim && name && namespace ? sim.get('v1', 'Service', namespace, name) : undefined;
      if (!sim || !service || !name || !namespace) throw errno('ENOTFOUND', `getaddrinfo ENOTFOUND ${host}`);
      const servicePorts = (service.spec as { ports?: { port?: number }[] } | undefined)?.ports ?? [];
      if (!servicePorts.some((p) => p.port === port)) {
        throw errno('ECONNREFUSED', `connect ECONNREFUSED ${host}:${port} (the Service has no port ${port})`);
      }
      const endpoints = sim
        .list('v1', 'Pod', namespace)
        .filter(
          (pod) => selects(service, pod) && isReady(pod) && pod.metadata.deletionTimestamp === undefined,
        )
        .flatMap((pod) => {
          const local = ports(namespace, pod.metadata.name, String(pod.metadata.uid));
          return local === undefined ? [] : [local];
        });
      if (endpoints.length === 0) {
        throw errno('ECONNREFUSED', `connect ECONNREFUSED ${host}:${port} (no ready endpoints)`);
      }
      const key = `${namespace}/${name}`;
      const turn = next.get(key) ?? 0;
      next.set(key, turn + 1);
      return { host: '127.0.0.1', port: endpoints[turn % endpoints.length] ?? 0 };
    },
    serviceHostsFor(pod) {
      const sim = simulator();
      if (!sim) return [];
      const namespace = pod.metadata.namespace ?? 'default';
      return sim
        .list('v1', 'Service', namespace)
        .filter((service) => selects(service, pod))
        .flatMap(serviceDnsNames);
    },
  };
}
