/**
 * The API server's strict field check of one manifest, on its own: a dry-run POST create with
 * fieldValidation=Strict (../../shared/strict-objects.ts). The server decodes the body strictly before it
 * looks at the name or the namespace, so the answer names every unknown or duplicate field even when the
 * object exists or the namespace is missing in this cluster
 * (https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go).
 * Used where a manifest is accepted now and applied later (the central queue), so a misspelt field is
 * refused at submission rather than at dispatch.
 */
import { createHash } from 'node:crypto';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { pooledKubeConfig } from '../../shared/kube.js';
import { StrictObjectApi } from '../../shared/strict-objects.js';
import { isFieldRefusal, refusalMessage } from './kube-refusals.js';

const FIELD_MANAGER = 'gco-manifest-processor';

/**
 * How long a field shape the server accepted is trusted without asking again: bounded, so a schema change
 * (an API server upgrade) is seen within minutes.
 */
export const ACCEPTED_SHAPE_TTL_MS = 10 * 60_000;
/** Shapes remembered at most (the oldest go first): a bounded memory whatever the manifests look like. */
const MAX_SHAPES = 1_000;

/**
 * What strict decoding of a manifest depends on: its apiVersion and kind (they pick the schema), every
 * object key at every depth, array lengths, and each leaf's JSON type, but no leaf value. The server
 * refuses a field as unknown when the schema of the enclosing object does not declare its key, which is
 * a function of the keys above it and the types it meets on the way (sigs.k8s.io/json `UnmarshalStrict`
 * reports unknown and duplicate fields while decoding into the Go type:
 * https://github.com/kubernetes/kubernetes/blob/v1.34.0/vendor/sigs.k8s.io/json/README.md;
 * https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation). Duplicate keys cannot
 * reach the check: the manifest was parsed into an object before, and is sent as JSON re-serialised from it.
 */
export function fieldShape(manifest: Record<string, unknown>): string {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value).sort();
      return keys.map((k) => [k, walk((value as Record<string, unknown>)[k])]);
    }
    return value === null ? 'null' : typeof value;
  };
  const text = JSON.stringify([manifest.apiVersion ?? null, manifest.kind ?? null, walk(manifest)]);
  return createHash('sha256').update(text).digest('base64url');
}

export class FieldCheck {
  private readonly objects: StrictObjectApi;
  /** Field shapes the server accepted, with when that answer stops being trusted (insertion order = age). */
  private readonly accepted = new Map<string, number>();

  constructor(
    kubeConfig: KubeConfig,
    private readonly now: () => number = Date.now,
  ) {
    this.objects = StrictObjectApi.forConfig(pooledKubeConfig(kubeConfig));
  }

  /**
   * The refusal message when the server refuses the manifest's fields; undefined otherwise. Any other
   * answer (accepted, AlreadyExists, a missing namespace, an unreachable API) is not this check's business:
   * the apply that follows later reports it.
   *
   * A manifest of a shape (fieldShape) the server accepted within ACCEPTED_SHAPE_TTL_MS is not sent again:
   * its strict decoding cannot differ (a queue typically receives many jobs from one template, differing
   * only in values). Only acceptances are remembered; every refused or unanswered manifest asks the server,
   * so a misspelt field always gets the server's own refusal.
   */
  async refusalOf(manifest: Record<string, unknown>, namespace: string): Promise<string | undefined> {
    const shape = fieldShape(manifest);
    const trustedUntil = this.accepted.get(shape);
    if (trustedUntil !== undefined && trustedUntil > this.now()) return undefined;
    const metadata = manifest.metadata;
    const copy = {
      ...structuredClone(manifest),
      metadata: { ...(metadata !== null && typeof metadata === 'object' ? metadata : {}), namespace },
    } as KubernetesObject;
    try {
      await this.objects.createStrict(copy, { dryRun: 'All', fieldManager: FIELD_MANAGER });
      this.remember(shape);
      return undefined;
    } catch (error) {
      if (!isFieldRefusal(error, manifest)) return undefined;
      return refusalMessage(error, manifest, typeof manifest.kind === 'string' ? manifest.kind : null);
    }
  }

  private remember(shape: string): void {
    this.accepted.delete(shape);
    this.accepted.set(shape, this.now() + ACCEPTED_SHAPE_TTL_MS);
    if (this.accepted.size > MAX_SHAPES) {
      const oldest = this.accepted.keys().next().value;
      if (oldest !== undefined) this.accepted.delete(oldest);
    }
  }
}
