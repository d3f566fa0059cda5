/**
 * Policy configuration from environment variables. The manifest processor and the queue processor both
 * call loadPolicyConfig, so the front door and the queue worker enforce the same policy.
 */
import { EnvConfigError, EnvReader } from '../../../shared/env.js';
import { tryParseQuantity } from '../../../shared/quantity.js';
import type { Parsed } from './json.js';
import { DEFAULT_ALLOWED_KINDS, parseKindEntry } from './kinds.js';
import { parseDockerHubOrg, parseRegistryEntry } from './registry.js';
import { normaliseCapability } from './security.js';

export interface PolicyConfig {
  allowedNamespaces: string[];
  /** `apiVersion/Kind` (e.g. `batch/v1/Job`, `v1/Pod`) or a bare `Kind` (any apiVersion). */
  allowedKinds: string[];
  /** Deepest allowed nesting of objects/arrays; the manifest object itself is depth 1. */
  maxDepth: number;
  maxCpuCores: number;
  maxMemoryBytes: number;
  maxGpus: number;
  /** `host[:port][/path/prefix]`; Docker Hub hosts here are ignored (use trustedDockerHubOrgs). */
  trustedRegistries: string[];
  trustedDockerHubOrgs: string[];
  /** The project's own registries, added at deploy time on top of trustedRegistries. */
  projectRegistries: string[];
  reservedServiceAccounts: string[];
  requireRunAsNonRoot: boolean;
  /** Upper case without the CAP_ prefix. */
  allowedCapabilities: string[];
}

/** The environment variable behind each setting (reported by GET /api/v1/policy). */
export const POLICY_ENV = {
  allowedNamespaces: 'ALLOWED_NAMESPACES',
  allowedKinds: 'ALLOWED_KINDS',
  maxDepth: 'MAX_MANIFEST_DEPTH',
  maxCpuCores: 'MAX_CPU_PER_MANIFEST',
  maxMemoryBytes: 'MAX_MEMORY_PER_MANIFEST',
  maxGpus: 'MAX_GPU_PER_MANIFEST',
  trustedRegistries: 'TRUSTED_REGISTRIES',
  trustedDockerHubOrgs: 'TRUSTED_DOCKERHUB_ORGS',
  projectRegistries: 'PROJECT_REGISTRIES',
  reservedServiceAccounts: 'RESERVED_SERVICE_ACCOUNTS',
  requireRunAsNonRoot: 'REQUIRE_RUN_AS_NON_ROOT',
  allowedCapabilities: 'ALLOWED_CAPABILITIES',
} as const satisfies Record<keyof PolicyConfig, string>;

export const DEFAULT_POLICY_CONFIG: Readonly<PolicyConfig> = Object.freeze({
  allowedNamespaces: ['svc-jobs', 'default'],
  allowedKinds: [...DEFAULT_ALLOWED_KINDS],
  maxDepth: 32,
  maxCpuCores: 64,
  maxMemoryBytes: 256 * 2 ** 30,
  maxGpus: 8,
  // Not all of public.ecr.aws: anyone can publish there, so only curated namespaces are trusted.
  trustedRegistries: ['public.ecr.aws/docker/library', 'registry.k8s.io', 'nvcr.io/nvidia'],
  trustedDockerHubOrgs: ['library', 'nvidia'],
  projectRegistries: [],
  // The platform's own identities; `default` is not reserved because a pod without a service account uses it.
  reservedServiceAccounts: ['manifest-processor', 'health-monitor', 'inference-proxy', 'cost-monitor'],
  requireRunAsNonRoot: false,
  allowedCapabilities: [],
});

/** List variables where an empty list is meaningful take this word, since an empty variable means "default". */
export const EMPTY_LIST = 'none';

const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;
const CAPABILITY = /^[A-Z][A-Z0-9_]*$/;

class PolicyEnv {
  readonly problems: string[] = [];
  readonly read: EnvReader;

  constructor(private readonly env: NodeJS.ProcessEnv) {
    this.read = new EnvReader(env);
  }

  /** A comma list whose entries are each validated (and normalised) by `parse`. */
  list(
    name: string,
    fallback: readonly string[],
    parse: (entry: string) => Parsed<string>,
    opts: { allowEmpty: boolean },
  ): string[] {
    const raw = this.env[name]?.trim();
    if (raw?.toLowerCase() === EMPTY_LIST) {
      if (opts.allowEmpty) return [];
      this.problems.push(`${name}: must name at least one entry`);
      return [...fallback];
    }
    const values: string[] = [];
    for (const entry of this.read.list(name, fallback)) {
      const parsed = parse(entry);
      if (parsed.ok) values.push(parsed.value);
      else this.problems.push(`${name}: ${parsed.error}`);
    }
    return [...new Set(values)];
  }

  quantity(name: string, fallback: number, opts: { integer?: boolean } = {}): number {
    const raw = this.read.optionalString(name);
    if (raw === undefined) return fallback;
    const value = tryParseQuantity(raw.trim());
    if (value === undefined || value <= 0 || (opts.integer && !Number.isInteger(value))) {
      const expected = opts.integer ? 'a positive whole quantity' : 'a positive Kubernetes quantity';
      this.problems.push(`${name}: expected ${expected} (e.g. 64, 500m, 256Gi), got ${JSON.stringify(raw)}`);
      return fallback;
    }
    return value;
  }

  /** Throws one EnvConfigError naming every problem, EnvReader's and ours. */
  done(): void {
    try {
      this.read.done();
    } catch (err) {
      if (!(err instanceof EnvConfigError)) throw err;
      // EnvReader keeps its list private; recover it from the message so a single error lists everything.
      const lines = err.message.split('\n').slice(1);
      this.problems.unshift(...lines.map((line) => line.replace(/^\s*-\s/, '')));
    }
    if (this.problems.length > 0) throw new EnvConfigError(this.problems);
  }
}

const check =
  (test: (value: string) => boolean, what: string, normalise: (value: string) => string = (v) => v) =>
  (entry: string): Parsed<string> => {
    const value = normalise(entry);
    return test(value)
      ? { ok: true, value }
      : { ok: false, error: `${JSON.stringify(entry)} is not ${what}` };
  };

const asText = <T>(parsed: Parsed<T>, text: (value: T) => string): Parsed<string> =>
  parsed.ok ? { ok: true, value: text(parsed.value) } : parsed;

export function loadPolicyConfig(env: NodeJS.ProcessEnv = process.env): PolicyConfig {
  const e = new PolicyEnv(env);
  const d = DEFAULT_POLICY_CONFIG;
  const registry = (entry: string) => asText(parseRegistryEntry(entry), (r) => r.text);
  const config: PolicyConfig = {
    allowedNamespaces: e.list(
      POLICY_ENV.allowedNamespaces,
      d.allowedNamespaces,
      check((v) => DNS_LABEL.test(v), 'a namespace name (DNS label)'),
      { allowEmpty: false },
    ),
    allowedKinds: e.list(
      POLICY_ENV.allowedKinds,
      d.allowedKinds,
      (entry) => asText(parseKindEntry(entry), (k) => (k.apiVersion ? `${k.apiVersion}/${k.kind}` : k.kind)),
      { allowEmpty: false },
    ),
    maxDepth: e.read.number(POLICY_ENV.maxDepth, d.maxDepth, { min: 2, max: 1000, integer: true }),
    maxCpuCores: e.quantity(POLICY_ENV.maxCpuCores, d.maxCpuCores),
    maxMemoryBytes: e.quantity(POLICY_ENV.maxMemoryBytes, d.maxMemoryBytes),
    maxGpus: e.read.number(POLICY_ENV.maxGpus, d.maxGpus, { min: 0, max: 100000, integer: true }),
    trustedRegistries: e.list(POLICY_ENV.trustedRegistries, d.trustedRegistries, registry, {
      allowEmpty: true,
    }),
    trustedDockerHubOrgs: e.list(
      POLICY_ENV.trustedDockerHubOrgs,
      d.trustedDockerHubOrgs,
      (entry) => parseDockerHubOrg(entry),
      { allowEmpty: true },
    ),
    projectRegistries: e.list(POLICY_ENV.projectRegistries, d.projectRegistries, registry, {
      allowEmpty: true,
    }),
    reservedServiceAccounts: e.list(
      POLICY_ENV.reservedServiceAccounts,
      d.reservedServiceAccounts,
      check((v) => DNS_SUBDOMAIN.test(v), 'a service account name'),
      { allowEmpty: true },
    ),
    requireRunAsNonRoot: e.read.boolean(POLICY_ENV.requireRunAsNonRoot, d.requireRunAsNonRoot),
    allowedCapabilities: e.list(
      POLICY_ENV.allowedCapabilities,
      d.allowedCapabilities,
      check(
        (v) => CAPABILITY.test(v),
        'a Linux capability name (e.g. NET_BIND_SERVICE)',
        normaliseCapability,
      ),
      { allowEmpty: true },
    ),
  };
  e.done();
  return config;
}
