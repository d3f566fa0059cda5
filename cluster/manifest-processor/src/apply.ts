/**
 * Applying manifests. A submission is two-phase so a bundle is never half-applied because of a
 * validation failure: (1) every manifest passes the front-door policy (unless validate=false) and the
 * orchestrator's server-side dry run (`dryRun=All`, always: validate=false never skips the cluster's own
 * checks); (2) only if all pass, and dry_run is false, each is applied with server-side apply.
 */
import { errorMessage } from '../../../contracts/runtime/errors.js';
import {
  KubernetesObjectApi,
  PatchStrategy,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { kubeStatusOf } from '../../shared/kube-errors.js';
import { pooledKubeConfig } from '../../shared/kube.js';
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

function failureMessage(error: unknown): string {
  const status = kubeStatusOf(error);
  if (status) {
    const causes = status.details?.causes?.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`).join('; ');
    return `${status.reason || status.code}: ${status.message}${causes ? ` (${causes})` : ''}`;
  }
  return errorMessage(error);
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
  private readonly objects: KubernetesObjectApi;

  constructor(
    kubeConfig: KubeConfig,
    private readonly policy: ValidationPolicy,
  ) {
    this.objects = KubernetesObjectApi.makeApiClient(pooledKubeConfig(kubeConfig));
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

  private async applyOne(
    manifest: Manifest,
    dryRun: boolean,
  ): Promise<{ status: ResourceOutcome; uid?: string }> {
    const before = await this.existing(manifest);
    const dry = dryRun ? 'All' : undefined;
    const after = manifest.metadata.name
      ? await this.objects.patch(manifest, undefined, dry, FIELD_MANAGER, true, PatchStrategy.ServerSideApply)
      : await this.objects.create(manifest, undefined, dry, FIELD_MANAGER);
    const uid = after.metadata?.uid ?? before?.metadata?.uid;
    if (!before) return { status: 'created', ...(uid ? { uid } : {}) };
    // resourceVersion also moves when controllers write status, so "unchanged" means: the live object
    // already held every field this manifest sets (or nothing was written at all).
    const unchanged =
      before.metadata?.resourceVersion === after.metadata?.resourceVersion ||
      containsAll(JSON.parse(JSON.stringify(before)) as unknown, manifest);
    return { status: unchanged ? 'unchanged' : 'updated', ...(uid ? { uid } : {}) };
  }

  async apply(
    manifests: readonly Record<string, unknown>[],
    opts: { namespace?: string | null; dryRun: boolean; validate: boolean },
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
    if (violations.length > 0) return report(false);

    // Phase 1: the orchestrator validates every manifest without persisting anything.
    const normalised = manifests.map((m) => this.normalise(m, opts.namespace));
    let failed = false;
    for (const [index, manifest] of normalised.entries()) {
      const result = results[index]!;
      try {
        // Only the would-be outcome: a dry run's uid belongs to no object.
        result.status = (await this.applyOne(manifest, true)).status;
      } catch (error) {
        failed = true;
        Object.assign(result, { status: 'failed', message: failureMessage(error) });
      }
    }
    if (failed) {
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
    for (const [index, manifest] of normalised.entries()) {
      const result = results[index]!;
      try {
        Object.assign(result, await this.applyOne(manifest, false));
      } catch (error) {
        failed = true;
        Object.assign(result, { status: 'failed', message: failureMessage(error) });
      }
    }
    return report(!failed);
  }
}
