/**
 * Resource totals of a manifest against the per-manifest ceilings. A pod's request is computed the way the
 * scheduler does: per resource, the request (or the limit when no request is given), summed over app and
 * ephemeral containers plus sidecars (restartable init containers), and at least the largest init
 * container (plus the sidecars started before it). The manifest total is that × the pods running at once.
 */
import { formatBytes, formatCpu, tryParseQuantity } from '../../../shared/quantity.js';
import { isRecord, preview, type JsonPath } from './json.js';
import { violation, type PolicyViolation } from './rules.js';
import type { ContainerRef, PodTemplate } from './workloads.js';

export const GPU_RESOURCE = 'nvidia.com/gpu';

/** Integers so that sums are exact: CPU millicores and bytes are rounded up like Kubernetes does. */
interface ResourceTotals {
  cpuMillis: number;
  memoryBytes: number;
  gpus: number;
}

export interface ResourceCeilings {
  maxCpuCores: number;
  maxMemoryBytes: number;
  maxGpus: number;
}

const ZERO: ResourceTotals = { cpuMillis: 0, memoryBytes: 0, gpus: 0 };

function add(a: ResourceTotals, b: ResourceTotals): ResourceTotals {
  return {
    cpuMillis: a.cpuMillis + b.cpuMillis,
    memoryBytes: a.memoryBytes + b.memoryBytes,
    gpus: a.gpus + b.gpus,
  };
}

function max(a: ResourceTotals, b: ResourceTotals): ResourceTotals {
  return {
    cpuMillis: Math.max(a.cpuMillis, b.cpuMillis),
    memoryBytes: Math.max(a.memoryBytes, b.memoryBytes),
    gpus: Math.max(a.gpus, b.gpus),
  };
}

// Rounding up absorbs float noise such as 0.1 * 3 without letting a fractional request round to zero.
const ceil = (value: number): number => Math.ceil(value - 1e-9);

/** Parses every entry of a requests/limits map; invalid quantities become violations. */
function readQuantities(
  map: unknown,
  path: JsonPath,
  index: number,
  out: PolicyViolation[],
): Map<string, number> {
  const values = new Map<string, number>();
  if (map === undefined || map === null) return values;
  if (!isRecord(map)) {
    out.push(violation(index, path, 'manifest_shape', 'expected an object of resource quantities'));
    return values;
  }
  for (const [name, raw] of Object.entries(map)) {
    const value = tryParseQuantity(raw);
    const where = [...path, name];
    if (value === undefined) {
      out.push(
        violation(index, where, 'invalid_quantity', `${preview(raw)} is not a valid Kubernetes quantity`),
      );
    } else if (value < 0) {
      out.push(violation(index, where, 'invalid_quantity', `${preview(raw)} is negative`));
    } else if (name === GPU_RESOURCE && !Number.isInteger(value)) {
      out.push(violation(index, where, 'invalid_quantity', `${preview(raw)} is not a whole number of GPUs`));
    } else {
      values.set(name, value);
    }
  }
  return values;
}

/** A container's effective request: the request per resource, falling back to the limit. */
function containerRequest(ref: ContainerRef, index: number, out: PolicyViolation[]): ResourceTotals {
  const resources = ref.container.resources;
  if (resources === undefined || resources === null) return ZERO;
  const path = [...ref.path, 'resources'];
  if (!isRecord(resources)) {
    out.push(violation(index, path, 'manifest_shape', 'expected an object with requests and limits'));
    return ZERO;
  }
  const requests = readQuantities(resources.requests, [...path, 'requests'], index, out);
  const limits = readQuantities(resources.limits, [...path, 'limits'], index, out);
  const effective = (name: string): number => requests.get(name) ?? limits.get(name) ?? 0;
  return {
    cpuMillis: ceil(effective('cpu') * 1000),
    memoryBytes: ceil(effective('memory')),
    gpus: ceil(effective(GPU_RESOURCE)),
  };
}

/** The scheduler's view of one pod's request. */
function podRequest(
  containers: readonly ContainerRef[],
  index: number,
  out: PolicyViolation[],
): ResourceTotals {
  let app = ZERO;
  let sidecars = ZERO;
  let initPeak = ZERO;
  for (const ref of containers) {
    const request = containerRequest(ref, index, out);
    if (ref.list !== 'initContainers') {
      app = add(app, request);
    } else if (ref.container.restartPolicy === 'Always') {
      // A sidecar keeps running next to the app containers.
      sidecars = add(sidecars, request);
      initPeak = max(initPeak, sidecars);
    } else {
      initPeak = max(initPeak, add(request, sidecars));
    }
  }
  return max(add(app, sidecars), initPeak);
}

export interface ManifestResources {
  perPod: ResourceTotals;
  /** Pods counted against the ceilings: replicas/parallelism, at least 1. */
  pods: number;
  total: ResourceTotals;
}

/**
 * Totals of one workload and the ceiling violations. A workload scaled to zero still counts one pod, so
 * an oversized pod template cannot be admitted now and scaled up later outside the front door.
 */
export function checkResources(
  template: PodTemplate,
  ceilings: ResourceCeilings,
  index: number,
  out: PolicyViolation[],
): ManifestResources {
  const perPod = podRequest(template.containers, index, out);
  const pods = Math.max(1, template.replicas);
  const total: ResourceTotals = {
    cpuMillis: perPod.cpuMillis * pods,
    memoryBytes: perPod.memoryBytes * pods,
    gpus: perPod.gpus * pods,
  };
  const over = (what: string, totalText: string, perPodText: string, ceilingText: string) =>
    `requests ${totalText} ${what} in total (${pods === 1 ? 'one pod' : `${pods} pods × ${perPodText}`}), ` +
    `above the per-manifest ceiling of ${ceilingText}`;
  const cpu = (millis: number) => formatCpu(millis / 1000);
  if (total.cpuMillis > Math.round(ceilings.maxCpuCores * 1000))
    out.push(
      violation(
        index,
        template.path,
        'cpu_limit',
        over('CPU cores', cpu(total.cpuMillis), cpu(perPod.cpuMillis), formatCpu(ceilings.maxCpuCores)),
      ),
    );
  if (total.memoryBytes > ceilings.maxMemoryBytes)
    out.push(
      violation(
        index,
        template.path,
        'memory_limit',
        over(
          'of memory',
          formatBytes(total.memoryBytes),
          formatBytes(perPod.memoryBytes),
          formatBytes(ceilings.maxMemoryBytes),
        ),
      ),
    );
  if (total.gpus > ceilings.maxGpus)
    out.push(
      violation(
        index,
        template.path,
        'gpu_limit',
        over(GPU_RESOURCE, String(total.gpus), String(perPod.gpus), String(ceilings.maxGpus)),
      ),
    );
  return { perPod, pods, total };
}
