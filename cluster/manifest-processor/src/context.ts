/** What the manifest-processor routes share: configuration, the policy and the Kubernetes-facing services. */
import type { KubeConfig } from '@kubernetes/client-node';
import { HttpError } from '../../shared/errors.js';
import type { ManifestApplier } from './apply.js';
import type { CentralState } from './central.js';
import type { ManifestProcessorConfig } from './config.js';
import type { JobsService } from './jobs.js';
import type { ValidationPolicy } from './policy/index.js';
import type { ResourceService } from './resources.js';

export interface ProcessorContext {
  config: ManifestProcessorConfig;
  kubeConfig: KubeConfig;
  policy: ValidationPolicy;
  applier: ManifestApplier;
  jobs: JobsService;
  resources: ResourceService;
  /** Queue, templates, webhooks and cost, when wired (central.ts). */
  central?: CentralState;
}

/** Reads and deletes are confined to the namespaces the policy allows writes to. */
export function assertNamespaceAllowed(ctx: ProcessorContext, namespace: string): void {
  if (!ctx.policy.config.allowedNamespaces.includes(namespace)) {
    throw new HttpError(
      403,
      `Namespace ${namespace} is not allowed (allowed: ${ctx.policy.config.allowedNamespaces.join(', ')})`,
    );
  }
}

export function assertKindAllowed(ctx: ProcessorContext, apiVersion: string, kind: string): void {
  const allowed = ctx.policy.config.allowedKinds.some((k) => k === kind || k === `${apiVersion}/${kind}`);
  if (!allowed) throw new HttpError(403, `${apiVersion} ${kind} is not an allowed kind`);
}
