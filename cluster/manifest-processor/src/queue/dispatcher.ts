/**
 * Applying queued jobs to Kubernetes, idempotently, and reading their status back.
 *
 * The Kubernetes name is derived from the queue job id (record.ts kubernetesName) and the
 * Job carries the label gco.dev/queue-job-id: a second attempt after a worker died mid-apply gets
 * AlreadyExists, finds the Job with its own label and adopts it instead of creating a duplicate.
 */
import { PlatformError, errorMessage } from '../../../../contracts/runtime/errors.js';
import { BatchV1Api, type KubeConfig, type KubernetesObject, type V1Job } from '@kubernetes/client-node';
import { kubeStatusOf } from '../../../shared/kube-errors.js';
import { isConnectionReset } from '../../../shared/kube-http.js';
import { pooledKubeConfig } from '../../../shared/kube-pool.js';
import { StrictObjectApi } from '../../../shared/strict-objects.js';
import { jobState } from '../job-view.js';
import { kubernetesName, type K8sRef, type QueuedJob } from './record.js';

export const QUEUE_JOB_LABEL = 'gco.dev/queue-job-id';
const QUEUE_FIELD_MANAGER = 'gco-queue-worker';

type ObservedState = 'pending' | 'running' | 'succeeded' | 'failed' | 'missing';

export interface ObservedJob {
  state: ObservedState;
  /** Why a job failed or went missing. */
  message?: string;
}

export interface JobDispatcher {
  /** Creates the job's Kubernetes Job, or finds the one an earlier attempt created. */
  apply(job: QueuedJob): Promise<K8sRef>;
  /** State of dispatched jobs in their cluster, keyed by job id. */
  observe(jobs: readonly QueuedJob[]): Promise<Map<string, ObservedJob>>;
  /** Deletes a Job this worker created for an entry that finished without it (optional). */
  withdraw?(ref: K8sRef): Promise<void>;
}

/** A dispatch failure; `permanent` ones fail the job, others return it to the queue for another try. */
export class DispatchError extends PlatformError {
  override readonly name = 'DispatchError';
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The manifest as it is created: deterministic name, effective namespace, queue label, no server fields. */
export function kubernetesManifest(job: QueuedJob): V1Job {
  const manifest = structuredClone(job.manifest);
  const metadata: Json = isRecord(manifest.metadata) ? { ...manifest.metadata } : {};
  for (const field of [
    'generateName',
    'uid',
    'resourceVersion',
    'creationTimestamp',
    'selfLink',
    'managedFields',
  ])
    delete metadata[field];
  metadata.name = kubernetesName(job);
  metadata.namespace = job.namespace;
  metadata.labels = { ...(isRecord(metadata.labels) ? metadata.labels : {}), [QUEUE_JOB_LABEL]: job.job_id };
  manifest.metadata = metadata;
  delete manifest.status;
  // Pods carry the label too, so they can be traced back to the queue entry.
  const spec = isRecord(manifest.spec) ? manifest.spec : undefined;
  const template = spec && isRecord(spec.template) ? spec.template : undefined;
  if (template) {
    const tmeta: Json = isRecord(template.metadata) ? { ...template.metadata } : {};
    tmeta.labels = { ...(isRecord(tmeta.labels) ? tmeta.labels : {}), [QUEUE_JOB_LABEL]: job.job_id };
    template.metadata = tmeta;
  }
  return manifest;
}

function refOf(job: KubernetesObject, fallback: { namespace: string; name: string }): K8sRef {
  return {
    namespace: job.metadata?.namespace ?? fallback.namespace,
    name: job.metadata?.name ?? fallback.name,
    uid: job.metadata?.uid ?? '',
  };
}

/** Client errors that another attempt cannot fix fail the job; the rest (5xx, 429, 403 quota, network) retry. */
function classify(error: unknown): DispatchError {
  const status = kubeStatusOf(error);
  if (!status) {
    return new DispatchError(`Kubernetes API unreachable: ${errorMessage(error)}`, false);
  }
  const permanent = [
    'Invalid',
    'BadRequest',
    'NotFound',
    'MethodNotAllowed',
    'UnsupportedMediaType',
  ].includes(status.reason);
  const causes = status.details?.causes?.map((c) => `${c.field ?? ''}: ${c.message ?? ''}`).join('; ');
  return new DispatchError(
    `${status.reason || status.code}: ${status.message}${causes ? ` (${causes})` : ''}`,
    permanent,
  );
}

function failureMessage(job: V1Job): string {
  const failed = (job.status?.conditions ?? []).find((c) => c.type === 'Failed' && c.status === 'True');
  return failed
    ? `Kubernetes Job failed: ${failed.reason ?? 'Failed'}${failed.message ? `: ${failed.message}` : ''}`
    : 'Kubernetes Job failed';
}

const LIST_CHUNK = 50;

export class KubeJobDispatcher implements JobDispatcher {
  private readonly batch: BatchV1Api;
  private readonly objects: StrictObjectApi;

  constructor(kubeConfig: KubeConfig) {
    const pooled = pooledKubeConfig(kubeConfig);
    this.batch = pooled.makeApiClient(BatchV1Api);
    this.objects = StrictObjectApi.forConfig(pooled);
  }

  async apply(job: QueuedJob): Promise<K8sRef> {
    const body = kubernetesManifest(job);
    const target = { namespace: job.namespace, name: body.metadata?.name ?? '' };
    try {
      // The manifest as queued, with fieldValidation=Strict (BatchV1Api would drop unknown fields
      // client-side: ../../../shared/strict-objects.ts); a refusal is a permanent BadRequest.
      return refOf(await this.create(body), target);
    } catch (error) {
      if (kubeStatusOf(error)?.reason !== 'AlreadyExists') throw classify(error);
    }
    // An earlier attempt got this far: adopt its Job if it is ours.
    let existing: V1Job;
    try {
      existing = await this.batch.readNamespacedJob(target);
    } catch (error) {
      throw classify(error);
    }
    if (existing.metadata?.labels?.[QUEUE_JOB_LABEL] !== job.job_id) {
      throw new DispatchError(
        `Job ${target.namespace}/${target.name} exists and does not belong to queued job ${job.job_id}`,
        true,
      );
    }
    return refOf(existing, target);
  }

  /**
   * Creates the Job. The client does not resend a create whose connection was reset (it cannot know
   * whether it took effect); here it is safe once more: the name is this job's own, so a second delivery
   * can only create it or answer AlreadyExists, which `apply` resolves by adopting it.
   */
  private async create(body: V1Job): Promise<KubernetesObject> {
    try {
      return await this.objects.createStrict(body, { fieldManager: QUEUE_FIELD_MANAGER });
    } catch (error) {
      if (!isConnectionReset(error)) throw error;
      return this.objects.createStrict(body, { fieldManager: QUEUE_FIELD_MANAGER });
    }
  }

  async withdraw(ref: K8sRef): Promise<void> {
    try {
      await this.batch.deleteNamespacedJob({
        namespace: ref.namespace,
        name: ref.name,
        // Only that very Job (a UID precondition), and its pods with it.
        body: { preconditions: { uid: ref.uid }, propagationPolicy: 'Background' },
      });
    } catch (error) {
      if (kubeStatusOf(error)?.reason !== 'NotFound') throw error;
    }
  }

  async observe(jobs: readonly QueuedJob[]): Promise<Map<string, ObservedJob>> {
    const out = new Map<string, ObservedJob>();
    const byNamespace = new Map<string, QueuedJob[]>();
    for (const job of jobs) {
      if (!job.k8s) continue;
      const list = byNamespace.get(job.k8s.namespace) ?? [];
      list.push(job);
      byNamespace.set(job.k8s.namespace, list);
    }
    for (const [namespace, group] of byNamespace) {
      for (let i = 0; i < group.length; i += LIST_CHUNK) {
        const chunk = group.slice(i, i + LIST_CHUNK);
        // One LIST per namespace and chunk instead of one GET per job.
        const listed = await this.batch.listNamespacedJob({
          namespace,
          labelSelector: `${QUEUE_JOB_LABEL} in (${chunk.map((j) => j.job_id).join(',')})`,
        });
        const byUid = new Map(listed.items.map((j) => [j.metadata?.uid ?? '', j]));
        for (const job of chunk) {
          const found = byUid.get(job.k8s?.uid ?? '');
          if (!found) {
            out.set(job.job_id, {
              state: 'missing',
              message: `Kubernetes Job ${namespace}/${job.k8s?.name ?? ''} was deleted before it finished`,
            });
            continue;
          }
          const state = jobState(found);
          out.set(job.job_id, state === 'failed' ? { state, message: failureMessage(found) } : { state });
        }
      }
    }
    return out;
  }
}
