/**
 * Managed inference endpoints: what the lifecycle API (manifest-processor, `/api/v1/inference/endpoints`),
 * every region's reconciler, the inference-proxy and `gco inference` agree on.
 *
 * One record per endpoint in the central table TABLES.inferenceEndpoints (pk `endpoint_name`):
 * - `spec` and `generation` are written only by the API; every spec change increments `generation` under a
 *   condition on its previous value (optimistic concurrency: two updates cannot lose one another).
 * - `regions.<region>` is written only by that region's reconciler (its observed state).
 * - `service`, `port`, `canary`, `serving_paths`, `health_path` are the routing fields the inference-proxy
 *   reads (docs/inference-proxy.md); the API writes them from the spec, deterministically from the name.
 */

/** The Kubernetes namespace every endpoint's objects live in (cluster/k8s/00-namespaces.yaml). */
export const INFERENCE_NAMESPACE = 'gco-inference';

/** Model pods serve HTTPS on this port behind their TLS sidecar (the spec's 8443). */
export const MODEL_TLS_PORT = 8443;

/** Labels on every Kubernetes object the reconciler owns: it lists and removes by them, so nothing leaks. */
export const ENDPOINT_LABELS = {
  managedBy: 'app.kubernetes.io/managed-by',
  /** Value of `managedBy` on every reconciled object. */
  managedByValue: 'gco-inference-reconciler',
  endpoint: 'gco.dev/inference-endpoint',
  /** `primary` or `canary`. */
  role: 'gco.dev/inference-role',
  /** The record `generation` the object was last written for. */
  generation: 'gco.dev/inference-generation',
} as const;

export type EndpointRole = 'primary' | 'canary';

/** Per-region observed state, as the spec's proxy checks it (`running` is the only state it forwards to). */
export type EndpointRegionState =
  'pending' | 'running' | 'degraded' | 'stopped' | 'failed' | 'deleting' | 'deleted';

/** Kubernetes object names of an endpoint (Deployment and Service share a name per role). */
export function endpointObjectName(endpoint: string, role: EndpointRole): string {
  return role === 'primary' ? `ep-${endpoint}` : `ep-${endpoint}-canary`;
}

/** The in-cluster host the inference-proxy connects to for a role (a Service of INFERENCE_NAMESPACE). */
export function endpointServiceHost(endpoint: string, role: EndpointRole): string {
  return `${endpointObjectName(endpoint, role)}.${INFERENCE_NAMESPACE}.svc.cluster.local`;
}

/** Endpoint names: DNS labels short enough that `ep-<name>-canary` stays a valid object name (≤ 63). */
export const ENDPOINT_NAME_PATTERN = '^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$';

export interface EndpointResources {
  /** Kubernetes quantities, e.g. "500m", "2Gi". */
  cpu?: string;
  memory?: string;
  /** Whole `nvidia.com/gpu` devices. */
  gpu?: number;
}

interface EndpointCanarySpec {
  image: string;
  /** Percentage of requests (1–99) the canary receives. */
  weight: number;
}

/** The desired state, as the API validated it. */
export interface EndpointSpec {
  image: string;
  /** The model container's plain-HTTP port inside the pod (the TLS sidecar fronts it on MODEL_TLS_PORT). */
  container_port: number;
  serving_paths: string[];
  health_path: string;
  replicas: number;
  resources: EndpointResources;
  env: Record<string, string>;
  /** Regions that run the endpoint. */
  regions: string[];
  /** Stopped: every region scales to zero and reports `stopped`; the record and its settings stay. */
  stopped: boolean;
  canary: EndpointCanarySpec | null;
  /** The image `promote` replaced, which `rollback` restores. */
  previous_image: string | null;
}

export interface EndpointRegionStatus {
  state: EndpointRegionState;
  /** Why the state is `failed` or `degraded` (never a secret, never a stack). */
  reason?: string;
  /** The record generation this status describes. */
  observed_generation: number;
  ready_replicas: number;
  canary_ready_replicas?: number;
  updated_at: string;
}

/** The stored record. */
export interface EndpointRecord {
  endpoint_name: string;
  spec: EndpointSpec;
  generation: number;
  /** Set by delete: reconcilers remove the objects, report `deleted`, and the last one removes the record. */
  deleting?: boolean;
  created_at: string;
  updated_at: string;
  regions: Record<string, EndpointRegionStatus>;
  // Routing fields the inference-proxy reads (cluster/inference-proxy/src/endpoint.ts).
  service: string;
  port: number;
  canary?: { service: string; port: number; weight: number } | null;
  serving_paths: string[];
  health_path: string;
}
