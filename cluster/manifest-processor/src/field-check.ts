/**
 * The API server's strict field check of one manifest, on its own: a dry-run POST create with
 * fieldValidation=Strict (../../shared/strict-objects.ts). The server decodes the body strictly before it
 * looks at the name or the namespace, so the answer names every unknown or duplicate field even when the
 * object exists or the namespace is missing in this cluster
 * (https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go).
 * Used where a manifest is accepted now and applied later (the central queue), so a misspelt field is
 * refused at submission rather than at dispatch.
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { pooledKubeConfig } from '../../shared/kube.js';
import { StrictObjectApi } from '../../shared/strict-objects.js';
import { isFieldRefusal, refusalMessage } from './kube-refusals.js';

const FIELD_MANAGER = 'gco-manifest-processor';

export class FieldCheck {
  private readonly objects: StrictObjectApi;

  constructor(kubeConfig: KubeConfig) {
    this.objects = StrictObjectApi.forConfig(pooledKubeConfig(kubeConfig));
  }

  /**
   * The refusal message when the server refuses the manifest's fields; undefined otherwise. Any other
   * answer (accepted, AlreadyExists, a missing namespace, an unreachable API) is not this check's business:
   * the apply that follows later reports it.
   */
  async refusalOf(manifest: Record<string, unknown>, namespace: string): Promise<string | undefined> {
    const metadata = manifest.metadata;
    const copy = {
      ...structuredClone(manifest),
      metadata: { ...(metadata !== null && typeof metadata === 'object' ? metadata : {}), namespace },
    } as KubernetesObject;
    try {
      await this.objects.createStrict(copy, { dryRun: 'All', fieldManager: FIELD_MANAGER });
      return undefined;
    } catch (error) {
      if (!isFieldRefusal(error, manifest)) return undefined;
      return refusalMessage(error, manifest, typeof manifest.kind === 'string' ? manifest.kind : null);
    }
  }
}
