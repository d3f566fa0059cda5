/**
 * Create and server-side apply of any manifest, sent byte for byte as the caller wrote it, with the API
 * server's `fieldValidation=Strict`, so a misspelt field is refused with its path instead of dropped.
 *
 * Why not `KubernetesObjectApi.create` / `.patch` as they are: client-node 1.4 serializes a kind it has a
 * model for through that model (`ObjectSerializer.serialize(spec, 'V1Job')`), which silently drops every
 * field the model does not declare — `spec.backofLimit` never reaches the server, which therefore cannot
 * refuse it — and neither method takes a `fieldValidation` argument. This subclass keeps client-node's
 * discovery (URL of any kind), authentication, pooled agent and error handling (`ApiException` carrying the
 * `Status`), and only replaces the body and the query.
 *
 * Field validation: https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation
 * (GA in 1.27; Strict = "fail the request on unknown or duplicate fields").
 * Server-side apply: https://kubernetes.io/docs/reference/using-api/server-side-apply/
 */
import {
  HttpMethod,
  KubernetesObjectApi,
  PatchStrategy,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';

interface WriteOptions {
  /** `All` persists nothing (https://kubernetes.io/docs/reference/using-api/api-concepts/#dry-run). */
  dryRun?: 'All';
  fieldManager: string;
}

export class StrictObjectApi extends KubernetesObjectApi {
  static forConfig(kubeConfig: KubeConfig): StrictObjectApi {
    const client = kubeConfig.makeApiClient(StrictObjectApi);
    client.setDefaultNamespace(kubeConfig);
    return client;
  }

  /** POST to the collection: a new object (or, with dryRun, what creating it would answer). */
  async createStrict(spec: KubernetesObject, options: WriteOptions): Promise<KubernetesObject> {
    const path = await this.specUriPath(spec, 'create');
    return this.send(path, HttpMethod.POST, 'application/json', spec, options);
  }

  /** Server-side apply (`application/apply-patch+yaml`; JSON is YAML) of a named object. */
  async applyStrict(
    spec: KubernetesObject,
    options: WriteOptions & { force: boolean },
  ): Promise<KubernetesObject> {
    const path = await this.specUriPath(spec, 'patch');
    return this.send(path, HttpMethod.PATCH, PatchStrategy.ServerSideApply, spec, options, options.force);
  }

  private async send(
    path: string,
    method: HttpMethod,
    contentType: string,
    spec: KubernetesObject,
    options: WriteOptions,
    force?: boolean,
  ): Promise<KubernetesObject> {
    const context = this.configuration.baseServer.makeRequestContext(path, method);
    context.setHeaderParam('Accept', 'application/json');
    context.setHeaderParam('Content-Type', contentType);
    context.setQueryParam('fieldValidation', 'Strict');
    context.setQueryParam('fieldManager', options.fieldManager);
    if (options.dryRun) context.setQueryParam('dryRun', options.dryRun);
    if (force !== undefined) context.setQueryParam('force', String(force));
    context.setBody(JSON.stringify(spec));
    return this.requestPromise(context);
  }
}
