/**
 * What the manifest-processor routes share: configuration, the policy, the Kubernetes-facing services
 * and the checks every Kubernetes-facing route applies.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../../shared/errors.js';
import type { ManifestApplier } from './apply.js';
import type { CentralTableFeatures } from './central-table-features.js';
import type { ManifestProcessorConfig } from './config.js';
import type { JobsService } from './jobs/service.js';
import type { ValidationPolicy } from './policy/index.js';
import type { ResourceService } from './resources.js';

export interface ProcessorContext {
  config: ManifestProcessorConfig;
  kubeConfig: KubeConfig;
  policy: ValidationPolicy;
  applier: ManifestApplier;
  jobs: JobsService;
  resources: ResourceService;
  /** Queue, templates and webhooks, when wired (central-table-features.ts). */
  centralTables?: CentralTableFeatures;
}

/** Reads and deletes are confined to the namespaces the policy allows writes to. */
export function assertNamespaceAllowed(policy: ValidationPolicy, namespace: string): void {
  const allowed = policy.config.allowedNamespaces;
  if (!allowed.includes(namespace)) {
    throw new HttpError(403, `Namespace ${namespace} is not allowed (allowed: ${allowed.join(', ')})`);
  }
}

/**
 * The namespace check of every route under a `/:namespace` path segment, as one preHandler of their
 * scope: it runs after request validation (a malformed request is still a 422) and before the handler.
 */
export function namespaceGuard(policy: ValidationPolicy) {
  return async function allowedNamespaceOnly(request: FastifyRequest): Promise<void> {
    // Every route of the guarded scope declares `namespace` in its params schema.
    const { namespace } = request.params as { namespace: string };
    assertNamespaceAllowed(policy, namespace);
  };
}

export function assertKindAllowed(policy: ValidationPolicy, apiVersion: string, kind: string): void {
  const allowed = policy.config.allowedKinds.some((k) => k === kind || k === `${apiVersion}/${kind}`);
  if (!allowed) throw new HttpError(403, `${apiVersion} ${kind} is not an allowed kind`);
}
