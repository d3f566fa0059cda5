/** The manifest-processor's single validation policy (submit, validate, retry, templates, queue worker). */
import { formatBytes, formatCpu } from '../../../shared/quantity.js';
import {
  checkKind,
  checkManifestNamespace,
  checkRequestNamespace,
  checkShape,
  effectiveNamespace,
} from './checks.js';
import { POLICY_ENV, type PolicyConfig } from './config.js';
import { findTooDeep } from './depth.js';
import { isRecord, preview } from './json.js';
import { KindAllowlist } from './kinds.js';
import { RegistryAllowlist } from './registry.js';
import { checkResources, GPU_RESOURCE } from './resources.js';
import { RULES, violation, type PolicyViolation, type RuleId } from './rules.js';
import { checkSecurity, normaliseCapability, type SecuritySettings } from './security.js';
import { podTemplateOf, type PodTemplate } from './workloads.js';

function frozenCopy(config: PolicyConfig): PolicyConfig {
  const copy: PolicyConfig = {
    ...config,
    allowedNamespaces: [...config.allowedNamespaces],
    allowedKinds: [...config.allowedKinds],
    trustedRegistries: [...config.trustedRegistries],
    trustedDockerHubOrgs: [...config.trustedDockerHubOrgs],
    projectRegistries: [...config.projectRegistries],
    reservedServiceAccounts: [...config.reservedServiceAccounts],
    allowedCapabilities: [...config.allowedCapabilities],
  };
  for (const value of Object.values(copy)) if (Array.isArray(value)) Object.freeze(value);
  return Object.freeze(copy);
}

export class ValidationPolicy {
  /** Frozen: the precomputed allowlists below must not drift from it. */
  readonly config: PolicyConfig;
  private readonly namespaces: ReadonlySet<string>;
  private readonly kinds: KindAllowlist;
  private readonly registries: RegistryAllowlist;
  private readonly security: SecuritySettings;

  /** Throws on malformed kind or registry entries (loadPolicyConfig reports them per variable first). */
  constructor(config: PolicyConfig) {
    this.config = frozenCopy(config);
    this.namespaces = new Set(config.allowedNamespaces);
    this.kinds = new KindAllowlist(config.allowedKinds);
    this.registries = new RegistryAllowlist(config);
    this.security = {
      allowedCapabilities: new Set(config.allowedCapabilities.map(normaliseCapability)),
      requireRunAsNonRoot: config.requireRunAsNonRoot,
      reservedServiceAccounts: new Set(config.reservedServiceAccounts.map((s) => s.trim().toLowerCase())),
    };
  }

  /** Front-door checks for one manifest, including the request-level namespace itself (index -1). */
  checkManifest(manifest: unknown, index: number, requestNamespace?: string | null): PolicyViolation[] {
    const out: PolicyViolation[] = [];
    checkRequestNamespace(requestNamespace, this.namespaces, out);
    this.checkOne(manifest, index, requestNamespace, out);
    return out;
  }

  /** All manifests of a request; the request-level namespace is reported once, with index -1. */
  check(manifests: readonly unknown[], requestNamespace?: string | null): PolicyViolation[] {
    const out: PolicyViolation[] = [];
    checkRequestNamespace(requestNamespace, this.namespaces, out);
    manifests.forEach((manifest, index) => this.checkOne(manifest, index, requestNamespace, out));
    return out;
  }

  /** metadata.namespace ?? requestNamespace ?? 'default'. */
  namespaceOf(manifest: unknown, requestNamespace?: string | null): string {
    return effectiveNamespace(manifest, requestNamespace);
  }

  private checkOne(
    manifest: unknown,
    index: number,
    requestNamespace: string | null | undefined,
    out: PolicyViolation[],
  ): void {
    if (!isRecord(manifest)) {
      out.push(
        violation(index, [], 'manifest_shape', `a manifest must be an object, got ${preview(manifest, 40)}`),
      );
      return;
    }
    const tooDeep = findTooDeep(manifest, this.config.maxDepth);
    if (tooDeep)
      out.push(
        violation(
          index,
          tooDeep,
          'max_depth',
          `objects and arrays are nested deeper than ${this.config.maxDepth} levels`,
        ),
      );
    const identity = checkShape(manifest, index, out);
    checkManifestNamespace(manifest, requestNamespace, this.namespaces, index, out);
    if (!identity) return;
    checkKind(identity, this.kinds, index, out);
    const template = podTemplateOf(manifest, identity.kind, index, out);
    if (template) this.checkPod(template, index, out);
  }

  private checkPod(template: PodTemplate, index: number, out: PolicyViolation[]): void {
    checkResources(template, this.config, index, out);
    checkSecurity(template, this.security, index, out);
    for (const ref of template.containers) {
      const image = ref.container.image;
      const path = [...ref.path, 'image'];
      if (typeof image !== 'string') {
        out.push(violation(index, path, 'manifest_shape', 'every container needs an image (a string)'));
        continue;
      }
      const verdict = this.registries.judge(image);
      if (!verdict.trusted)
        out.push(violation(index, path, 'trusted_registry', `image ${preview(image)} ${verdict.reason}`));
    }
  }

  /** The `policy` layer of GET /api/v1/policy: what this live processor enforces. */
  describe(): Record<string, unknown> {
    const c = this.config;
    const rules = (Object.keys(RULES) as RuleId[]).map((id) => ({ id, checks: RULES[id] }));
    return {
      source:
        'environment variables of the running manifest-processor (the queue processor reads the same ones)',
      namespaces: {
        allowed: [...c.allowedNamespaces],
        request_namespace_checked: true,
        fallback: 'metadata.namespace, else the request-level namespace, else "default"',
        env: POLICY_ENV.allowedNamespaces,
      },
      kinds: { allowed: this.kinds.list(), env: POLICY_ENV.allowedKinds },
      max_depth: { value: c.maxDepth, env: POLICY_ENV.maxDepth },
      resources: {
        scope: 'per manifest: per-pod request (limit when no request) × replicas / parallelism (at least 1)',
        max_cpu: { cores: c.maxCpuCores, quantity: formatCpu(c.maxCpuCores), env: POLICY_ENV.maxCpuCores },
        max_memory: {
          bytes: c.maxMemoryBytes,
          quantity: formatBytes(c.maxMemoryBytes),
          env: POLICY_ENV.maxMemoryBytes,
        },
        max_gpu: { resource: GPU_RESOURCE, count: c.maxGpus, env: POLICY_ENV.maxGpus },
      },
      registries: {
        ...this.registries.describe(),
        env: {
          configured: POLICY_ENV.trustedRegistries,
          project: POLICY_ENV.projectRegistries,
          docker_hub_orgs: POLICY_ENV.trustedDockerHubOrgs,
        },
      },
      security: {
        rejected: [
          'hostNetwork/hostPID/hostIPC: true',
          'hostPath volumes',
          'privileged: true (and Windows hostProcess)',
          'allowPrivilegeEscalation: true',
          'capabilities.add outside the allowed list',
        ],
        allowed_capabilities: [...c.allowedCapabilities],
        require_run_as_non_root: c.requireRunAsNonRoot,
        env: {
          allowed_capabilities: POLICY_ENV.allowedCapabilities,
          require_run_as_non_root: POLICY_ENV.requireRunAsNonRoot,
        },
      },
      service_accounts: {
        reserved: [...c.reservedServiceAccounts],
        fields: ['serviceAccountName', 'serviceAccount'],
        env: POLICY_ENV.reservedServiceAccounts,
      },
      rules,
    };
  }
}
