/**
 * Reading and deleting one applied resource (GET|DELETE /api/v1/manifests/{namespace}/{name}). Confined to
 * the policy's allowed namespaces and kinds: this must not become a way to read, say, kube-system objects.
 */
import { KubernetesObjectApi, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { HttpError } from '../../shared/errors.js';
import { kubeStatusOf, toHttpError } from '../../shared/kube-errors.js';
import { pooledKubeConfig } from '../../shared/kube.js';
import { isoDate } from './job-view.js';

export interface ResourceRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

type WithStatus = KubernetesObject & { status?: unknown; spec?: unknown };

export class ResourceService {
  private readonly objects: KubernetesObjectApi;

  constructor(kubeConfig: KubeConfig) {
    this.objects = KubernetesObjectApi.makeApiClient(pooledKubeConfig(kubeConfig));
  }

  private header(ref: ResourceRef) {
    return {
      apiVersion: ref.apiVersion,
      kind: ref.kind,
      metadata: { name: ref.name, namespace: ref.namespace },
    };
  }

  private fail(error: unknown, ref: ResourceRef): HttpError {
    // Discovery could not map apiVersion/kind to a resource: the caller named a kind the cluster lacks.
    if (
      !kubeStatusOf(error) &&
      error instanceof Error &&
      /unrecognized|not found|no matches/i.test(error.message)
    ) {
      return new HttpError(404, `${ref.kind} (${ref.apiVersion}) is not served by this cluster`);
    }
    return toHttpError(error, `${ref.kind} ${ref.namespace}/${ref.name} not found`);
  }

  async status(ref: ResourceRef) {
    let object: WithStatus;
    try {
      object = await this.objects.read(this.header(ref));
    } catch (error) {
      throw this.fail(error, ref);
    }
    return {
      api_version: ref.apiVersion,
      kind: ref.kind,
      name: ref.name,
      namespace: ref.namespace,
      uid: object.metadata?.uid ?? null,
      resource_version: object.metadata?.resourceVersion ?? null,
      generation: object.metadata?.generation ?? null,
      created_at: isoDate(object.metadata?.creationTimestamp),
      labels: object.metadata?.labels ?? {},
      status: object.status ?? null,
    };
  }

  async delete(ref: ResourceRef) {
    try {
      await this.objects.delete(this.header(ref), undefined, undefined, undefined, undefined, 'Background');
    } catch (error) {
      throw this.fail(error, ref);
    }
    return {
      deleted: true,
      api_version: ref.apiVersion,
      kind: ref.kind,
      name: ref.name,
      namespace: ref.namespace,
    };
  }
}
