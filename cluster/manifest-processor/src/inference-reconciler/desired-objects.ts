/**
 * The Kubernetes objects an endpoint record asks for in one region: per role (primary, and canary while
 * spec.canary is set) a Deployment and a Service named endpointObjectName(), and a PodDisruptionBudget
 * while that role runs more than one replica. Every object and pod template carries ENDPOINT_LABELS, so
 * the reconciler lists and removes by label and nothing leaks.
 */
import { createHash } from 'node:crypto';
import type {
  V1Deployment,
  V1PodDisruptionBudget,
  V1PodTemplateSpec,
  V1Service,
} from '@kubernetes/client-node';
import {
  endpointObjectName,
  ENDPOINT_LABELS,
  INFERENCE_NAMESPACE,
  MODEL_TLS_PORT,
  type EndpointRecord,
  type EndpointRole,
} from '../../../../contracts/inference-endpoints.js';
import { TLS_HASH_ANNOTATION } from './tls-secret-sync.js';

/** Where the TLS sidecar gets its image, certificate and configuration (config.ts). */
export interface SidecarSettings {
  tlsSidecarImage: string;
  tlsSecretName: string;
  tlsSidecarConfigMap: string;
  /**
   * Hash of the certificate in the Secret (tls-secret-sync.ts), on the pod template: a renewal changes
   * the template, so the Deployment rolls the pods and nginx loads the new files at start.
   */
  tlsCertificateHash?: string;
  /** Deployment spec.progressDeadlineSeconds: after it a stuck rollout reports ProgressDeadlineExceeded. */
  progressDeadlineSeconds: number;
}

/** Hash of a role's pod template (without the generation label), kept on the Deployment. */
export const TEMPLATE_HASH_ANNOTATION = 'gco.dev/inference-template-hash';
/** The NoSchedule taint of the GPU NodePool: only GPU workloads tolerate it (lib/, issue 24 item 3). */
const GPU_RESOURCE = 'nvidia.com/gpu';

export interface RoleObjects {
  role: EndpointRole;
  name: string;
  deployment: V1Deployment;
  service: V1Service;
  /** Left out when the role runs at most one replica: a PDB of minAvailable 1 would block every drain. */
  pdb?: V1PodDisruptionBudget;
}

/** The selector of a role's pods: endpoint and role only (a Deployment's selector is immutable). */
function roleSelector(endpoint: string, role: EndpointRole): Record<string, string> {
  return { [ENDPOINT_LABELS.endpoint]: endpoint, [ENDPOINT_LABELS.role]: role };
}

function objectLabels(endpoint: string, role: EndpointRole, generation: number): Record<string, string> {
  return {
    [ENDPOINT_LABELS.managedBy]: ENDPOINT_LABELS.managedByValue,
    ...roleSelector(endpoint, role),
    [ENDPOINT_LABELS.generation]: String(generation),
  };
}

/** Replicas of a role: the spec's for primary; the canary's share of them by weight, at least one. */
export function roleReplicas(record: EndpointRecord, role: EndpointRole): number {
  const { spec } = record;
  if (spec.stopped) return 0;
  if (role === 'primary') return spec.replicas;
  const weight = spec.canary?.weight ?? 0;
  return Math.max(1, Math.ceil((spec.replicas * weight) / 100));
}

/** Roles the record wants in a region (none when it does not list the region or is being deleted). */
export function desiredRoles(record: EndpointRecord, region: string): EndpointRole[] {
  if (record.deleting || !record.spec.regions.includes(region)) return [];
  return record.spec.canary ? ['primary', 'canary'] : ['primary'];
}

function podTemplate(
  record: EndpointRecord,
  role: EndpointRole,
  settings: SidecarSettings,
): V1PodTemplateSpec {
  const { spec } = record;
  const image = role === 'canary' && spec.canary ? spec.canary.image : spec.image;
  const gpu = spec.resources.gpu ?? 0;
  const requests: Record<string, string> = {};
  const limits: Record<string, string> = {};
  if (spec.resources.cpu) requests.cpu = spec.resources.cpu;
  if (spec.resources.memory) requests.memory = limits.memory = spec.resources.memory;
  // Extended resources are set in limits (requests default to them): kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/
  if (gpu > 0) limits[GPU_RESOURCE] = String(gpu);
  const restricted = {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
  };
  return {
    metadata: {
      labels: objectLabels(record.endpoint_name, role, record.generation),
      ...(settings.tlsCertificateHash
        ? { annotations: { [TLS_HASH_ANNOTATION]: settings.tlsCertificateHash } }
        : {}),
    },
    spec: {
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      ...(gpu > 0 ? { tolerations: [{ key: GPU_RESOURCE, operator: 'Exists', effect: 'NoSchedule' }] } : {}),
      containers: [
        {
          name: 'model',
          image,
          ports: [{ name: 'http', containerPort: spec.container_port, protocol: 'TCP' }],
          env: Object.entries(spec.env)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([name, value]) => ({ name, value })),
          resources: {
            ...(Object.keys(requests).length > 0 ? { requests } : {}),
            ...(Object.keys(limits).length > 0 ? { limits } : {}),
          },
          readinessProbe: {
            httpGet: { path: spec.health_path, port: spec.container_port },
            periodSeconds: 5,
            failureThreshold: 3,
          },
          securityContext: restricted,
        },
        {
          // TLS in front of the model's plain HTTP, with the internal-CA-issued certificate the
          // inference-proxy verifies (docs/inference-reconciler.md, "TLS sidecar").
          name: 'tls-sidecar',
          image: settings.tlsSidecarImage,
          ports: [{ name: 'https', containerPort: MODEL_TLS_PORT, protocol: 'TCP' }],
          // The official nginx image renders /etc/nginx/templates/*.template with envsubst at start:
          // https://github.com/nginxinc/docker-nginx/blob/master/entrypoint/20-envsubst-on-templates.sh
          env: [{ name: 'MODEL_PORT', value: String(spec.container_port) }],
          resources: { requests: { cpu: '50m', memory: '32Mi' }, limits: { memory: '64Mi' } },
          readinessProbe: { tcpSocket: { port: MODEL_TLS_PORT }, periodSeconds: 5 },
          securityContext: {
            ...restricted,
            runAsNonRoot: true,
            readOnlyRootFilesystem: true,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          volumeMounts: [
            { name: 'tls', mountPath: '/etc/gco-tls', readOnly: true },
            { name: 'nginx-templates', mountPath: '/etc/nginx/templates', readOnly: true },
            { name: 'nginx-conf', mountPath: '/etc/nginx/conf.d' },
            { name: 'tmp', mountPath: '/tmp' },
          ],
        },
      ],
      volumes: [
        { name: 'tls', secret: { secretName: settings.tlsSecretName } },
        { name: 'nginx-templates', configMap: { name: settings.tlsSidecarConfigMap } },
        { name: 'nginx-conf', emptyDir: {} },
        { name: 'tmp', emptyDir: {} },
      ],
    },
  };
}

/** A stable hash of a pod template: equal templates keep their pods (a scale must not restart them). */
function templateHash(template: V1PodTemplateSpec): string {
  const labels = { ...template.metadata?.labels };
  delete labels[ENDPOINT_LABELS.generation];
  const stable = { ...template, metadata: { ...template.metadata, labels } };
  return createHash('sha256').update(JSON.stringify(stable)).digest('hex').slice(0, 16);
}

/**
 * One role's objects. `liveTemplate` is the running Deployment's template hash and generation label:
 * when the template is unchanged its generation label is kept, so only a change of the pods' own
 * settings (image, env, resources…) rolls them, never a scale or a canary weight.
 */
export function roleObjects(
  record: EndpointRecord,
  role: EndpointRole,
  settings: SidecarSettings,
  liveTemplate?: { hash?: string; generation?: string },
): RoleObjects {
  const name = endpointObjectName(record.endpoint_name, role);
  const labels = objectLabels(record.endpoint_name, role, record.generation);
  const metadata = { name, namespace: INFERENCE_NAMESPACE, labels };
  const template = podTemplate(record, role, settings);
  const hash = templateHash(template);
  if (liveTemplate?.hash === hash && liveTemplate.generation && template.metadata?.labels) {
    template.metadata.labels[ENDPOINT_LABELS.generation] = liveTemplate.generation;
  }
  const replicas = roleReplicas(record, role);
  const selector = roleSelector(record.endpoint_name, role);
  return {
    role,
    name,
    deployment: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { ...metadata, annotations: { [TEMPLATE_HASH_ANNOTATION]: hash } },
      spec: {
        replicas,
        selector: { matchLabels: selector },
        progressDeadlineSeconds: settings.progressDeadlineSeconds,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
        template,
      },
    },
    service: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata,
      spec: {
        type: 'ClusterIP',
        selector,
        ports: [{ name: 'https', port: MODEL_TLS_PORT, targetPort: MODEL_TLS_PORT, protocol: 'TCP' }],
      },
    },
    ...(replicas > 1
      ? {
          pdb: {
            apiVersion: 'policy/v1',
            kind: 'PodDisruptionBudget',
            metadata,
            spec: { minAvailable: 1, selector: { matchLabels: selector } },
          },
        }
      : {}),
  };
}
