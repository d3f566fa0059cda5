/**
 * Applying manifests. A submission is two-phase so a bundle is never half-applied because of a
 * validation failure: (1) every manifest passes the front-door policy (unless validate=false) and the
 * orchestrator's server-side dry run (`dryRun=All`, always: validate=false never skips the cluster's own
 * checks); (2) only if all pass, and dry_run is false, each is applied with server-side apply.
 *
 * Every write carries `fieldValidation=Strict` and the manifest exactly as submitted
 * (../../shared/strict-objects.ts), so the API server refuses an unknown or duplicate field with its
 * path, and a changed immutable field with 422; both are reported as the caller's mistake
 * (./kube-refusals.ts), never as `created` or as a platform fault.
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { kubeStatusOf } from '../../shared/kube-errors.js';
import { pooledKubeConfig } from '../../shared/kube.js';
import { StrictObjectApi } from '../../shared/strict-objects.js';
import { duplicateFieldsMessage, isFieldRefusal, refusalMessage } from './kube-refusals.js';
import type { PolicyViolation, ValidationPolicy } from './policy/index.js';

const FIELD_MANAGER = 'gco-manifest-processor';

export type ResourceOutcome = 'created' | 'updated' | 'unchanged' | 'failed' | 'skipped';

interface ResourceResult {
  index: number;
  api_version: string | null;
  kind: string | null;
  name: string | null;
  namespace: string;
  status: ResourceOutcome;
  uid?: string;
  message?: string;
  violations?: PolicyViolation[];
}

export interface ApplyReport {
  success: boolean;
  dry_run: boolean;
  validated: boolean;
  resources: ResourceResult[];
  violations: PolicyViolation[];
}

type Manifest = KubernetesObject & { metadata: { name?: string; generateName?: string; namespace?: string } };

function describe(manifest: unknown): {
  apiVersion: string | null;
  kind: string | null;
  name: string | null;
} {
  const m = (manifest ?? {}) as {
    apiVersion?: unknown;
    kind?: unknown;
    metadata?: { name?: unknown; generateName?: unknown };
  };
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    apiVersion: str(m.apiVersion),
    kind: str(m.kind),
    name: str(m.metadata?.name) ?? str(m.metadata?.generateName),
  };
}

/** Rules whose violation means the service must not ask the cluster about the manifest at all. */
const GATE_RULES: ReadonlySet<string> = new Set(['namespace_allowed', 'kind_allowed', 'max_depth']);
/** manifest_shape fields without which the manifest names no object the cluster could check. */
const IDENTITY_FIELDS: ReadonlySet<string> = new Set([
  '',
  'apiVersion',
  'kind',
  'metadata',
  'metadata.name',
  'metadata.namespace',
]);

/**
 * Whether a manifest the policy refused may still get the cluster's strict dry run: its namespace, kind
 * and identity passed (a refused namespace or kind is never sent to the cluster, not even as a dry run).
 */
function mayAskCluster(index: number, violations: readonly PolicyViolation[]): boolean {
  return !violations.some(
    (v) =>
      v.index === -1 ||
      (v.index === index &&
        (GATE_RULES.has(v.rule) || (v.rule === 'manifest_shape' && IDENTITY_FIELDS.has(v.field)))),
  );
}

/** True when every field of `wanted` (recursively; arrays element by element) has the same value in `live`. */
export function containsAll(live: unknown, wanted: unknown): boolean {
  if (Array.isArray(wanted)) {
    return (
      Array.isArray(live) && live.length === wanted.length && wanted.every((w, i) => containsAll(live[i], w))
    );
  }
  if (wanted !== null && typeof wanted === 'object') {
    if (live === null || typeof live !== 'object' || Array.isArray(live)) return false;
    const liveObject = live as Record<string, unknown>;
    return Object.entries(wanted).every(([key, value]) => containsAll(liveObject[key], value));
  }
  return live === wanted;
}

export class ManifestApplier {
  private readonly objects: StrictObjectApi;

  constructor(
    kubeConfig: KubeConfig,
    private readonly policy: ValidationPolicy,
  ) {
    this.objects = StrictObjectApi.forConfig(pooledKubeConfig(kubeConfig));
  }

  /** The manifest with its effective namespace filled in (a copy; the caller's object is untouched). */
  private normalise(
    manifest: Record<string, unknown>,
    requestNamespace: string | null | undefined,
  ): Manifest {
    const copy = structuredClone(manifest) as unknown as Manifest;
    copy.metadata = {
      ...(copy.metadata ?? {}),
      namespace: this.policy.namespaceOf(manifest, requestNamespace),
    };
    return copy;
  }

  private async existing(manifest: Manifest): Promise<KubernetesObject | undefined> {
    if (!manifest.metadata.name) return undefined; // generateName: always a new object
    try {
      return await this.objects.read({
        apiVersion: manifest.apiVersion ?? '',
        kind: manifest.kind ?? '',
        metadata: { name: manifest.metadata.name, namespace: manifest.metadata.namespace ?? '' },
      });
    } catch (error) {
      if (kubeStatusOf(error)?.reason === 'NotFound') return undefined;
      throw error;
    }
  }

  /**
   * One write. A dry run of an object that does not exist yet is a strict POST create: the API server
   * decodes a POST body strictly before anything else and answers 400 naming every unknown field
   * (server-side apply would answer 500 for the same manifest, kubernetes/kubernetes#139253). A named
   * object is otherwise written with server-side apply, whose 500 for an unknown field and 422 for an
   * immutable one are recognised as field refusals (./kube-refusals.ts).
   */
  private write(manifest: Manifest, before: KubernetesObject | undefined, dryRun: boolean) {
    const options = { fieldManager: FIELD_MANAGER, ...(dryRun ? { dryRun: 'All' as const } : {}) };
    if (!manifest.metadata.name || (dryRun && !before)) return this.objects.createStrict(manifest, options);
    return this.objects.applyStrict(manifest, { ...options, force: true });
  }

  private async applyOne(
    manifest: Manifest,
    dryRun: boolean,
  ): Promise<{ status: ResourceOutcome; uid?: string }> {
    const before = await this.existing(manifest);
    const after = await this.write(manifest, before, dryRun);
    const uid = after.metadata?.uid ?? before?.metadata?.uid;
    if (!before) return { status: 'created', ...(uid ? { uid } : {}) };
    // resourceVersion also moves when controllers write status, so "unchanged" means: the live object
    // already held every field this manifest sets (or nothing was written at all).
    const unchanged =
      before.metadata?.resourceVersion === after.metadata?.resourceVersion ||
      containsAll(JSON.parse(JSON.stringify(before)) as unknown, manifest);
    return { status: unchanged ? 'unchanged' : 'updated', ...(uid ? { uid } : {}) };
  }

  /**
   * After the policy refused the request: the cluster's strict dry run of every manifest it may still
   * see, so a field the server does not know is named even where the policy's shape message would hide
   * it (`contianers:` is also "a pod spec needs at least one container"). The server's field refusal
   * comes first in the message, since fixing it usually clears the policy's complaint too; any other
   * answer of the dry run is left out (the policy's refusal stands). A dry run persists nothing.
   */
  private async addFieldRefusals(
    manifests: readonly Record<string, unknown>[],
    results: ResourceResult[],
    violations: readonly PolicyViolation[],
    requestNamespace: string | null | undefined,
  ): Promise<void> {
    for (const [index, manifest] of manifests.entries()) {
      if (!mayAskCluster(index, violations)) continue;
      const result = results[index]!;
      try {
        await this.applyOne(this.normalise(manifest, requestNamespace), true);
      } catch (error) {
        if (!isFieldRefusal(error, manifest)) continue;
        const refusal = refusalMessage(error, manifest, result.kind);
        Object.assign(result, {
          status: 'failed',
          message: result.message ? `${refusal}; ${result.message}` : refusal,
        });
      }
    }
  }

  async apply(
    manifests: readonly Record<string, unknown>[],
    opts: {
      namespace?: string | null;
      dryRun: boolean;
      validate: boolean;
      /**
       * Fields the request's text repeats, by manifest index (./manifests/duplicate-fields.ts): refused as
       * the API server refuses them with fieldValidation=Strict, since parsing already dropped all but one.
       */
      duplicateFields?: ReadonlyMap<number, readonly string[]>;
    },
  ): Promise<ApplyReport> {
    const violations = opts.validate ? this.policy.check(manifests, opts.namespace) : [];
    const results: ResourceResult[] = manifests.map((manifest, index) => {
      const d = describe(manifest);
      const mine = violations.filter((v) => v.index === index);
      return {
        index,
        api_version: d.apiVersion,
        kind: d.kind,
        name: d.name,
        namespace: this.policy.namespaceOf(manifest, opts.namespace),
        status: mine.length > 0 ? 'failed' : 'skipped',
        ...(mine.length > 0 ? { message: mine.map((v) => v.message).join('; '), violations: mine } : {}),
      };
    });
    const report = (success: boolean): ApplyReport => ({
      success,
      dry_run: opts.dryRun,
      validated: opts.validate,
      resources: results,
      violations,
    });
    markDuplicateFields(results, opts.duplicateFields);
    if (violations.length > 0 || results.some((r) => r.status === 'failed')) {
      await this.addFieldRefusals(manifests, results, violations, opts.namespace);
      return report(false);
    }

    // Phase 1: the orchestrator validates every manifest without persisting anything.
    const normalised = manifests.map((m) => this.normalise(m, opts.namespace));
    if (await this.runPhase(normalised, manifests, results, true)) {
      for (const r of results)
        if (r.status !== 'failed')
          Object.assign(r, {
            status: 'skipped',
            message: 'not applied: another manifest in this request failed',
          });
      return report(false);
    }
    if (opts.dryRun) return report(true);

    // Phase 2: apply for real, in request order.
    return report(!(await this.runPhase(normalised, manifests, results, false)));
  }

  /** One phase over every manifest, in request order; true when any of them failed. */
  private async runPhase(
    normalised: readonly Manifest[],
    manifests: readonly Record<string, unknown>[],
    results: ResourceResult[],
    dryRun: boolean,
  ): Promise<boolean> {
    let failed = false;
    for (const [index, manifest] of normalised.entries()) {
      const result = results[index]!;
      try {
        const outcome = await this.applyOne(manifest, dryRun);
        // Of a dry run only the would-be outcome counts: its uid belongs to no object.
        if (dryRun) result.status = outcome.status;
        else Object.assign(result, outcome);
      } catch (error) {
        failed = true;
        Object.assign(result, {
          status: 'failed',
          message: refusalMessage(error, manifests[index], result.kind),
        });
      }
    }
    return failed;
  }
}

/** Fields the request's text repeats (by manifest index), put first in that manifest's refusal. */
function markDuplicateFields(
  results: ResourceResult[],
  duplicateFields: ReadonlyMap<number, readonly string[]> | undefined,
): void {
  for (const [index, paths] of duplicateFields ?? []) {
    const result = results[index];
    if (!result || paths.length === 0) continue;
    const refusal = duplicateFieldsMessage(paths, result.kind);
    Object.assign(result, {
      status: 'failed',
      message: result.message ? `${refusal}; ${result.message}` : refusal,
    });
  }
}
