/**
 * What a JSON schema cannot say about an endpoint: images from the validation policy's trusted registries,
 * the policy's per-manifest CPU, memory and GPU ceilings over the primary Deployment (replicas × the pod's
 * request, at least one pod, as the policy counts a workload), the replica cap, the deployment's regions,
 * Kubernetes environment variable names, the sidecar's port and the inference-proxy's path grammar.
 * Every problem is a 422 item at the request field that caused it.
 */
import { MODEL_TLS_PORT, type EndpointSpec } from '../../../../contracts/inference-endpoints.js';
import { parseServingPath } from '../../../inference-proxy/src/endpoint.js';
import type { LocSegment, ValidationErrorItem } from '../../../shared/errors.js';
import { formatBytes, formatCpu, tryParseQuantity } from '../../../shared/quantity.js';
import type { ValidationPolicy } from '../policy/index.js';
import { RegistryAllowlist } from '../policy/registry.js';

/**
 * Kubernetes' rule for environment variable names before 1.34 relaxed it (IsEnvVarName, kept here as the
 * portable subset): https://github.com/kubernetes/kubernetes/blob/v1.33.0/staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go#L420
 */
const ENV_VAR_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

const item = (loc: LocSegment[], msg: string, input?: unknown): ValidationErrorItem => ({
  loc,
  msg: `Value error, ${msg}`,
  type: 'value_error',
  ...(input === undefined ? {} : { input }),
});

export interface EndpointValidatorDeps {
  policy: ValidationPolicy;
  /** The regions an endpoint may run in (DEPLOYMENT_REGIONS). */
  deploymentRegions: readonly string[];
  maxReplicas: number;
}

/** The checks of every operation, each answering the items of the request fields it was given. */
export class EndpointValidator {
  private readonly registries: RegistryAllowlist;

  constructor(private readonly deps: EndpointValidatorDeps) {
    this.registries = new RegistryAllowlist(deps.policy.config);
  }

  image(image: string, loc: LocSegment[]): ValidationErrorItem[] {
    const verdict = this.registries.judge(image);
    return verdict.trusted
      ? []
      : [
          item(
            loc,
            `image ${JSON.stringify(image)} ${verdict.reason} (validation policy rule trusted_registry)`,
            image,
          ),
        ];
  }

  /** Everything of a new spec (create). */
  spec(spec: EndpointSpec): ValidationErrorItem[] {
    return [
      ...this.image(spec.image, ['body', 'image']),
      ...(spec.container_port === MODEL_TLS_PORT
        ? [
            item(
              ['body', 'port'],
              `port ${MODEL_TLS_PORT} is the TLS sidecar's; give the model server another`,
              spec.container_port,
            ),
          ]
        : []),
      ...this.paths(spec),
      ...this.capacity(spec, ['body', 'replicas']),
      ...this.env(spec.env),
      ...this.regions(spec.regions),
    ];
  }

  /** The replica cap and the policy's resource ceilings for `spec.replicas` pods; `replicasLoc` names the field. */
  capacity(spec: EndpointSpec, replicasLoc: LocSegment[]): ValidationErrorItem[] {
    const items: ValidationErrorItem[] = [];
    if (spec.replicas > this.deps.maxReplicas) {
      items.push(
        item(
          replicasLoc,
          `replicas must be at most ${this.deps.maxReplicas} (INFERENCE_MAX_REPLICAS)`,
          spec.replicas,
        ),
      );
    }
    const c = this.deps.policy.config;
    const pods = Math.max(1, spec.replicas);
    const quantity = (field: 'cpu' | 'memory'): number | undefined => {
      const raw = spec.resources[field];
      if (raw === undefined) return 0;
      const value = tryParseQuantity(raw);
      if (value === undefined || value <= 0) {
        items.push(
          item(
            ['body', 'resources', field],
            `${JSON.stringify(raw)} is not a positive Kubernetes quantity`,
            raw,
          ),
        );
        return undefined;
      }
      return value;
    };
    const cpu = quantity('cpu');
    const memory = quantity('memory');
    const gpu = spec.resources.gpu ?? 0;
    const over = (what: string, total: string, perPod: string, ceiling: string, env: string) =>
      `${pods} pod(s) × ${perPod} = ${total} ${what}, above the validation policy's per-manifest ceiling of ${ceiling} (${env})`;
    if (cpu !== undefined && Math.ceil(cpu * 1000 - 1e-9) * pods > Math.round(c.maxCpuCores * 1000)) {
      items.push(
        item(
          ['body', 'resources', 'cpu'],
          over(
            'CPU cores',
            formatCpu(cpu * pods),
            formatCpu(cpu),
            formatCpu(c.maxCpuCores),
            'MAX_CPU_PER_MANIFEST',
          ),
        ),
      );
    }
    if (memory !== undefined && Math.ceil(memory - 1e-9) * pods > c.maxMemoryBytes) {
      items.push(
        item(
          ['body', 'resources', 'memory'],
          over(
            'of memory',
            formatBytes(memory * pods),
            formatBytes(memory),
            formatBytes(c.maxMemoryBytes),
            'MAX_MEMORY_PER_MANIFEST',
          ),
        ),
      );
    }
    if (gpu * pods > c.maxGpus) {
      items.push(
        item(
          ['body', 'resources', 'gpu'],
          over('nvidia.com/gpu', String(gpu * pods), String(gpu), String(c.maxGpus), 'MAX_GPU_PER_MANIFEST'),
        ),
      );
    }
    return items;
  }

  /** The inference-proxy's own grammar (docs/inference-proxy.md "Path rules"): what it would refuse is never stored. */
  private paths(spec: EndpointSpec): ValidationErrorItem[] {
    const items: ValidationErrorItem[] = [];
    spec.serving_paths.forEach((path, i) => {
      const problem = pathProblem(path, `serving_paths[${i}]`);
      if (problem) items.push(item(['body', 'serving_paths', i], problem, path));
    });
    const health = pathProblem(spec.health_path, 'health_path');
    if (health) items.push(item(['body', 'health_path'], health, spec.health_path));
    else if (spec.health_path.endsWith('/*')) {
      items.push(
        item(['body', 'health_path'], 'health_path is one exact path, not a "/*" prefix', spec.health_path),
      );
    }
    return items;
  }

  private env(env: Record<string, string>): ValidationErrorItem[] {
    return Object.keys(env)
      .filter((name) => !ENV_VAR_NAME.test(name))
      .map((name) =>
        item(
          ['body', 'env', name],
          `${JSON.stringify(name)} is not a Kubernetes environment variable name (letters, digits, "_", "-", ".", not starting with a digit)`,
          name,
        ),
      );
  }

  private regions(regions: readonly string[]): ValidationErrorItem[] {
    const allowed = this.deps.deploymentRegions;
    return regions.flatMap((region, i) =>
      allowed.includes(region)
        ? []
        : [
            item(
              ['body', 'regions', i],
              `${JSON.stringify(region)} is not a region of this deployment (${allowed.join(', ')})`,
              region,
            ),
          ],
    );
  }
}

function pathProblem(path: string, field: string): string | undefined {
  try {
    parseServingPath(path, field);
    return undefined;
  } catch (error) {
    // parseServingPath throws only its own InvalidRecord, whose message names the field and the rule.
    return error instanceof Error ? error.message : `${field} is not a valid path`;
  }
}
