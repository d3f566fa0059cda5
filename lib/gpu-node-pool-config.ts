/**
 * `gpu_node_pool` in cdk.json: the EKS Auto Mode NodePool that gives each regional cluster GPU capacity
 * (lib/constructs/gpu-node-pool.ts). Auto Mode's built-in `system` and `general-purpose` pools launch no
 * GPU instances, so without this pool a pod requesting `nvidia.com/gpu` stays Pending on a deployed stage.
 * https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html
 *
 * Read by lib/config.ts like its own sections: every problem is reported with its cdk.json path.
 */

/** The NodePool's name (cluster-scoped): `kubectl get nodepool gpu`; nodes carry `karpenter.sh/nodepool: gpu`. */
export const GPU_NODE_POOL_NAME = 'gpu';

/**
 * The taint on every node of the pool. Its key is the extended resource's name, so EKS's
 * ExtendedResourceToleration admission lets exactly the pods requesting nvidia.com/gpu onto the nodes
 * (lib/constructs/gpu-node-pool.ts).
 */
export const GPU_NODE_TAINT = { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' } as const;

/** NVIDIA GPU instance categories Auto Mode can launch (G: graphics/inference, P: training). */
const GPU_INSTANCE_CATEGORIES = ['g', 'p'] as const;
type GpuInstanceCategory = (typeof GPU_INSTANCE_CATEGORIES)[number];

/** Defaults, in cdk.json's snake_case shape (cdk.json repeats them). */
export const DEFAULT_GPU_NODE_POOL_CONTEXT = {
  enabled: true,
  instance_categories: ['g', 'p'],
  // null: every family of the categories (Auto Mode picks the cheapest that fits the pending pods).
  instance_families: null,
  // Caps on what the pool may launch in a region, summed over its nodes (Karpenter `spec.limits`).
  limits: { gpus: 8, cpu: 256 },
};

export interface GpuNodePoolConfig {
  /** Create the NodePool in every regional cluster. */
  readonly enabled: boolean;
  /** `eks.amazonaws.com/instance-category` values: "g" and/or "p". */
  readonly instanceCategories: readonly GpuInstanceCategory[];
  /** `eks.amazonaws.com/instance-family` values (e.g. "g6e"), each of a listed category; all when absent. */
  readonly instanceFamilies?: readonly string[];
  readonly limits: {
    /** Total `nvidia.com/gpu` of the pool's nodes in one region. */
    readonly gpus: number;
    /** Total vCPUs of the pool's nodes in one region. */
    readonly cpu: number;
  };
}

type Fail = (path: string, expected: string, received: string) => void;

const FAMILY = /^(g|p)\d+[a-z0-9-]*$/;

/** Validates the section (already merged with `-c gpu_node_pool.key=value` overrides). */
export function readGpuNodePool(raw: Readonly<Record<string, unknown>>, fail: Fail): GpuNodePoolConfig {
  const defaults = DEFAULT_GPU_NODE_POOL_CONTEXT;
  const enabledValue = fromCli(raw.enabled);
  let enabled = defaults.enabled;
  if (typeof enabledValue === 'boolean') enabled = enabledValue;
  else if (enabledValue !== undefined && enabledValue !== null) {
    fail('gpu_node_pool.enabled', 'true or false', describe(raw.enabled));
  }
  const instanceCategories = readCategories(raw.instance_categories, fail);
  const instanceFamilies = readFamilies(raw.instance_families, instanceCategories, fail);
  const limits = readLimits(raw.limits, fail);
  return { enabled, instanceCategories, ...(instanceFamilies ? { instanceFamilies } : {}), limits };
}

function readCategories(raw: unknown, fail: Fail): readonly GpuInstanceCategory[] {
  const path = 'gpu_node_pool.instance_categories';
  const value = listFromCli(raw);
  if (value === undefined) return DEFAULT_GPU_NODE_POOL_CONTEXT.instance_categories as GpuInstanceCategory[];
  const valid = value.filter((c): c is GpuInstanceCategory =>
    (GPU_INSTANCE_CATEGORIES as readonly unknown[]).includes(c),
  );
  if (value.length === 0 || valid.length !== value.length || new Set(valid).size !== valid.length) {
    fail(
      path,
      'a non-empty list of the NVIDIA GPU instance categories "g" and "p", each once',
      describe(raw),
    );
    return DEFAULT_GPU_NODE_POOL_CONTEXT.instance_categories as GpuInstanceCategory[];
  }
  return valid;
}

function readFamilies(
  raw: unknown,
  categories: readonly GpuInstanceCategory[],
  fail: Fail,
): readonly string[] | undefined {
  const path = 'gpu_node_pool.instance_families';
  const value = listFromCli(raw);
  if (value === undefined) return undefined;
  const ok = (f: unknown): f is string =>
    typeof f === 'string' && FAMILY.test(f) && (categories as readonly string[]).includes(f.charAt(0));
  if (value.length === 0 || !value.every(ok) || new Set(value).size !== value.length) {
    fail(
      path,
      `null, or a non-empty list of distinct instance families of the listed categories (${categories.join(', ')}), such as ["g6e", "g6"]`,
      describe(raw),
    );
    return undefined;
  }
  return value;
}

function readLimits(raw: unknown, fail: Fail): GpuNodePoolConfig['limits'] {
  const defaults = DEFAULT_GPU_NODE_POOL_CONTEXT.limits;
  const value = fromCli(raw);
  if (value === undefined || value === null) return defaults;
  if (!isRecord(value)) {
    fail('gpu_node_pool.limits', 'an object {"gpus": N, "cpu": N}', describe(raw));
    return defaults;
  }
  for (const key of Object.keys(value)) {
    if (key !== 'gpus' && key !== 'cpu') {
      fail(`gpu_node_pool.limits.${key}`, 'one of the keys gpus, cpu', 'an unknown key');
    }
  }
  const integer = (key: 'gpus' | 'cpu', max: number): number => {
    const n = fromCli(value[key]);
    if (n === undefined || n === null) return defaults[key];
    if (typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= max) return n;
    fail(`gpu_node_pool.limits.${key}`, `an integer from 1 to ${max}`, describe(value[key]));
    return defaults[key];
  };
  return { gpus: integer('gpus', 10_000), cpu: integer('cpu', 1_000_000) };
}

/** `-c` values are strings: JSON text is parsed, anything else kept for the error message. */
function fromCli(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** A list from JSON or a `-c` comma list; undefined when absent or null; anything else as given. */
function listFromCli(raw: unknown): unknown[] | undefined {
  const value = fromCli(raw);
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value as unknown[];
  if (typeof value === 'string') return value.split(',').map((s) => s.trim());
  return [value];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? `a ${typeof value}`;
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
