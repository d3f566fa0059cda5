/**
 * Policy configuration: its environment contract, read and written here. The front door and the queue
 * worker share one ValidationPolicy built from it, so both enforce the same rules.
 */
import type { EnvReader } from '../../../../contracts/env/reader.js';
import { CLUSTER_SERVICES } from '../../../../contracts/routing.js';
import { readContract, variablesOf, type EnvSource } from '../../../shared/env-source.js';
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
  // The platform's own identities (each service's account bears its name); `default` is not reserved
  // because a pod without a service account uses it.
  reservedServiceAccounts: [...CLUSTER_SERVICES],
  requireRunAsNonRoot: false,
  allowedCapabilities: [],
});

/** List variables where an empty list is meaningful take this word, since an empty variable means "default". */
const EMPTY_LIST = 'none';

const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;
const CAPABILITY = /^[A-Z][A-Z0-9_]*$/;

/** Readers of the policy's two value shapes the EnvReader has no method for: validated lists and quantities. */
function policyReaders(read: EnvReader) {
  return {
    /** A comma list whose entries are each validated (and normalised) by `parse`. */
    list(
      name: string,
      fallback: readonly string[],
      parse: (entry: string) => Parsed<string>,
      opts: { allowEmpty: boolean },
    ): string[] {
      if (read.optional(name)?.toLowerCase() === EMPTY_LIST) {
        if (opts.allowEmpty) return [];
        read.problem(`${name}: must name at least one entry`);
        return [...fallback];
      }
      const values: string[] = [];
      for (const entry of read.list(name, fallback)) {
        const parsed = parse(entry);
        if (parsed.ok) values.push(parsed.value);
        else read.problem(`${name}: ${parsed.error}`);
      }
      return [...new Set(values)];
    },

    quantity(name: string, fallback: number): number {
      const raw = read.optional(name);
      if (raw === undefined) return fallback;
      const value = tryParseQuantity(raw);
      if (value === undefined || value <= 0) {
        read.problem(
          `${name}: expected a positive Kubernetes quantity (e.g. 64, 500m, 256Gi), got ${JSON.stringify(raw)}`,
        );
        return fallback;
      }
      return value;
    },
  };
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

export function loadPolicyConfig(env: EnvSource = process.env): PolicyConfig {
  return readContract(env, (read) => {
    const e = policyReaders(read);
    const d = DEFAULT_POLICY_CONFIG;
    const registry = (entry: string) => asText(parseRegistryEntry(entry), (r) => r.text);
    return {
      allowedNamespaces: e.list(
        POLICY_ENV.allowedNamespaces,
        d.allowedNamespaces,
        check((v) => DNS_LABEL.test(v), 'a namespace name (DNS label)'),
        { allowEmpty: false },
      ),
      allowedKinds: e.list(
        POLICY_ENV.allowedKinds,
        d.allowedKinds,
        (entry) =>
          asText(parseKindEntry(entry), (k) => (k.apiVersion ? `${k.apiVersion}/${k.kind}` : k.kind)),
        { allowEmpty: false },
      ),
      maxDepth: read.integer(POLICY_ENV.maxDepth, d.maxDepth, { min: 2, max: 1000 }),
      maxCpuCores: e.quantity(POLICY_ENV.maxCpuCores, d.maxCpuCores),
      maxMemoryBytes: e.quantity(POLICY_ENV.maxMemoryBytes, d.maxMemoryBytes),
      maxGpus: read.integer(POLICY_ENV.maxGpus, d.maxGpus, { min: 0, max: 100000 }),
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
      requireRunAsNonRoot: read.boolean(POLICY_ENV.requireRunAsNonRoot, d.requireRunAsNonRoot),
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
  });
}

/** The variables that make loadPolicyConfig() return these settings; an empty list is written as `none`. */
export function policyEnvironment(config: Partial<PolicyConfig>): Record<string, string> {
  return variablesOf(
    POLICY_ENV,
    Object.fromEntries(
      Object.entries(config).map(([field, value]) => [
        field,
        Array.isArray(value) && value.length === 0 ? EMPTY_LIST : value,
      ]),
    ),
  );
}
