/**
 * Where each workload kind keeps its pod spec and its replica count, and the containers of a pod spec.
 * Looked up by kind alone (any apiVersion) so an allowed look-alike kind cannot skip the pod checks.
 */
import { getPath, isRecord, preview, type JsonPath, type JsonRecord } from './json.js';
import { violation, type PolicyViolation } from './rules.js';

interface WorkloadShape {
  podSpec: readonly string[];
  /** Field holding the number of pods that run at once; undefined = exactly one pod. */
  replicas: readonly string[] | undefined;
}

const TEMPLATE_SPEC = ['spec', 'template', 'spec'] as const;

const WORKLOADS = new Map<string, WorkloadShape>([
  ['Pod', { podSpec: ['spec'], replicas: undefined }],
  ['PodTemplate', { podSpec: ['template', 'spec'], replicas: undefined }],
  ['Job', { podSpec: TEMPLATE_SPEC, replicas: ['spec', 'parallelism'] }],
  [
    'CronJob',
    {
      podSpec: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
      replicas: ['spec', 'jobTemplate', 'spec', 'parallelism'],
    },
  ],
  ['Deployment', { podSpec: TEMPLATE_SPEC, replicas: ['spec', 'replicas'] }],
  ['StatefulSet', { podSpec: TEMPLATE_SPEC, replicas: ['spec', 'replicas'] }],
  ['ReplicaSet', { podSpec: TEMPLATE_SPEC, replicas: ['spec', 'replicas'] }],
  ['ReplicationController', { podSpec: TEMPLATE_SPEC, replicas: ['spec', 'replicas'] }],
  // One pod per node: the node count is unknown at the front door, so a DaemonSet counts as one pod.
  ['DaemonSet', { podSpec: TEMPLATE_SPEC, replicas: undefined }],
]);

const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;
type ContainerList = (typeof CONTAINER_LISTS)[number];

export interface ContainerRef {
  list: ContainerList;
  container: JsonRecord;
  path: JsonPath;
}

export interface PodTemplate {
  spec: JsonRecord;
  path: JsonPath;
  /** Pods running at once (replicas / parallelism; 1 for a bare pod). */
  replicas: number;
  replicasPath: JsonPath | undefined;
  containers: ContainerRef[];
}

const INT32_MAX = 2 ** 31 - 1;

/**
 * The pod template of a workload manifest; undefined for kinds without pods. Shape problems of the
 * fields the policy relies on are reported as manifest_shape.
 */
export function podTemplateOf(
  manifest: JsonRecord,
  kind: string,
  index: number,
  out: PolicyViolation[],
): PodTemplate | undefined {
  const shape = WORKLOADS.get(kind);
  if (!shape) return undefined;
  const spec = getPath(manifest, shape.podSpec);
  if (!isRecord(spec)) {
    out.push(violation(index, shape.podSpec, 'manifest_shape', `a ${kind} needs a pod spec object here`));
    return undefined;
  }
  let replicas = 1;
  if (shape.replicas) {
    const raw = getPath(manifest, shape.replicas);
    if (raw !== undefined && raw !== null) {
      if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw <= INT32_MAX) replicas = raw;
      else
        out.push(
          violation(
            index,
            shape.replicas,
            'manifest_shape',
            `expected a non-negative integer, got ${preview(raw, 40)}`,
          ),
        );
    }
  }
  const containers: ContainerRef[] = [];
  for (const list of CONTAINER_LISTS) {
    const value = spec[list];
    const listPath = [...shape.podSpec, list];
    if (value === undefined || value === null) {
      if (list === 'containers')
        out.push(violation(index, listPath, 'manifest_shape', 'a pod spec needs at least one container'));
      continue;
    }
    if (!Array.isArray(value)) {
      out.push(violation(index, listPath, 'manifest_shape', 'expected an array of containers'));
      continue;
    }
    if (list === 'containers' && value.length === 0)
      out.push(violation(index, listPath, 'manifest_shape', 'a pod spec needs at least one container'));
    value.forEach((container: unknown, i) => {
      const path = [...listPath, i];
      if (isRecord(container)) containers.push({ list, container, path });
      else out.push(violation(index, path, 'manifest_shape', 'expected a container object'));
    });
  }
  return { spec, path: shape.podSpec, replicas, replicasPath: shape.replicas, containers };
}
