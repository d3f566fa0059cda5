/**
 * Jobs through the Kubernetes API: list/filter/sort, details with pod placement, events, logs, metrics,
 * deletion (UID preconditions, background propagation so pods never orphan) and retry of failed jobs.
 */
import {
  BatchV1Api,
  CoreV1Api,
  Metrics,
  type KubeConfig,
  type CoreV1Event,
  type V1Job,
  type V1Node,
  type V1Pod,
} from '@kubernetes/client-node';
import { HttpError, notFound } from '../../../shared/errors.js';
import { kubeStatusOf, toHttpError } from '../../../shared/kube-errors.js';
import { isoDate, jobState, kubernetesJobView, matchesStatus, sortJobs, type JobView } from '../job-view.js';
import type { JobStatus } from '../schemas.js';
import { listAllPages, pooledKubeConfig } from '../../../shared/kube.js';

const PAGE_SIZE = 500;
/** Labels the job controller stamps on a job's pod template; a retried job must get fresh ones. */
const CONTROLLER_LABELS = [
  'controller-uid',
  'batch.kubernetes.io/controller-uid',
  'job-name',
  'batch.kubernetes.io/job-name',
];
const RETRY_OF_LABEL = 'gco.dev/retry-of';
const RETRY_OF_UID_ANNOTATION = 'gco.dev/retry-of-uid';

export interface JobFilter {
  namespaces: readonly string[];
  status?: JobStatus | null;
  labelSelector?: string | null;
  olderThanDays?: number | null;
}

export interface LogOptions {
  container?: string;
  tail: number;
  previous: boolean;
  sinceSeconds?: number;
  timestamps?: boolean;
}

function podOrder(a: V1Pod, b: V1Pod): number {
  return (isoDate(a.metadata?.creationTimestamp) ?? '').localeCompare(
    isoDate(b.metadata?.creationTimestamp) ?? '',
  );
}

export class JobsService {
  private readonly core: CoreV1Api;
  private readonly batch: BatchV1Api;
  private readonly metrics: Metrics;

  constructor(config: KubeConfig) {
    const kubeConfig = pooledKubeConfig(config);
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.batch = kubeConfig.makeApiClient(BatchV1Api);
    this.metrics = new Metrics(kubeConfig);
  }

  /** Jobs of the given namespaces matching the filter (label selector applied server-side). */
  async find(filter: JobFilter): Promise<V1Job[]> {
    const perNamespace = await Promise.all(
      filter.namespaces.map((namespace) =>
        listAllPages((cont) =>
          this.batch.listNamespacedJob({
            namespace,
            limit: PAGE_SIZE,
            ...(cont ? { _continue: cont } : {}),
            ...(filter.labelSelector ? { labelSelector: filter.labelSelector } : {}),
          }),
        ).catch((error: unknown) => {
          throw toHttpError(error, `Namespace ${namespace} not found`);
        }),
      ),
    );
    const cutoff = filter.olderThanDays ? Date.now() - filter.olderThanDays * 86_400_000 : undefined;
    return perNamespace.flat().filter((job) => {
      if (filter.status && !matchesStatus(job, filter.status)) return false;
      if (cutoff !== undefined) {
        const created = Date.parse(isoDate(job.metadata?.creationTimestamp) ?? '');
        if (!(created < cutoff)) return false;
      }
      return true;
    });
  }

  async list(filter: JobFilter, page: { sort: string; limit: number; offset: number }) {
    const views = sortJobs((await this.find(filter)).map(kubernetesJobView), page.sort);
    const jobs = views.slice(page.offset, page.offset + page.limit);
    return {
      jobs,
      count: jobs.length,
      total: views.length,
      limit: page.limit,
      offset: page.offset,
      has_more: page.offset + jobs.length < views.length,
      sort: page.sort,
    };
  }

  async read(namespace: string, name: string): Promise<V1Job> {
    try {
      return await this.batch.readNamespacedJob({ namespace, name });
    } catch (error) {
      throw toHttpError(error, `Job ${namespace}/${name} not found`);
    }
  }

  async pods(job: V1Job): Promise<V1Pod[]> {
    const namespace = job.metadata?.namespace ?? '';
    const uid = job.metadata?.uid;
    // Select by controller uid: a job deleted and recreated under the same name has other pods.
    const selector = uid ? `controller-uid=${uid}` : `job-name=${job.metadata?.name ?? ''}`;
    const pods = await listAllPages((cont) =>
      this.core.listNamespacedPod({
        namespace,
        labelSelector: selector,
        limit: PAGE_SIZE,
        ...(cont ? { _continue: cont } : {}),
      }),
    ).catch((error: unknown) => {
      throw toHttpError(error, `Pods of job ${namespace}/${job.metadata?.name ?? ''} not found`);
    });
    return pods.sort(podOrder);
  }

  async details(namespace: string, name: string) {
    const job = await this.read(namespace, name);
    const pods = await this.podPlacements(job);
    return { ...kubernetesJobView(job), pods };
  }

  /** Pods of a job with the hardware each landed on. */
  async podPlacements(job: V1Job) {
    const pods = await this.pods(job);
    const nodes = new Map<string, V1Node | null>();
    for (const nodeName of new Set(
      pods.map((p) => p.spec?.nodeName).filter((n): n is string => Boolean(n)),
    )) {
      nodes.set(nodeName, await this.core.readNode({ name: nodeName }).catch(() => null));
    }
    return pods.map((pod) => {
      const nodeName = pod.spec?.nodeName ?? null;
      const node = nodeName ? nodes.get(nodeName) : null;
      const labels = node?.metadata?.labels ?? {};
      return {
        name: pod.metadata?.name ?? '',
        phase: pod.status?.phase ?? 'Unknown',
        node: nodeName,
        instance_type: labels['node.kubernetes.io/instance-type'] ?? null,
        zone: labels['topology.kubernetes.io/zone'] ?? null,
        capacity_type:
          labels['karpenter.sh/capacity-type'] ?? labels['eks.amazonaws.com/capacityType'] ?? null,
        architecture: labels['kubernetes.io/arch'] ?? null,
        node_gpus: node?.status?.allocatable?.['nvidia.com/gpu'] ?? null,
        pod_ip: pod.status?.podIP ?? null,
        started_at: isoDate(pod.status?.startTime),
        containers: (pod.status?.containerStatuses ?? []).map((c) => ({
          name: c.name,
          image: c.image,
          ready: c.ready,
          restart_count: c.restartCount,
          state: c.state?.running ? 'running' : c.state?.terminated ? 'terminated' : 'waiting',
          exit_code: c.state?.terminated?.exitCode ?? null,
          reason: c.state?.terminated?.reason ?? c.state?.waiting?.reason ?? null,
        })),
      };
    });
  }

  /** Events of the job and of its pods, oldest first (matched by object uid, not name). */
  async events(namespace: string, name: string) {
    const job = await this.read(namespace, name);
    const pods = await this.pods(job);
    const uids = new Set([job.metadata?.uid, ...pods.map((p) => p.metadata?.uid)].filter(Boolean));
    const events = await listAllPages((cont) =>
      this.core.listNamespacedEvent({ namespace, limit: PAGE_SIZE, ...(cont ? { _continue: cont } : {}) }),
    );
    const at = (e: CoreV1Event) =>
      isoDate(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata?.creationTimestamp) ?? '';
    const mine = events
      .filter((e) => uids.has(e.involvedObject.uid))
      .sort((a, b) => at(a).localeCompare(at(b)));
    return {
      job: name,
      namespace,
      count: mine.length,
      events: mine.map((e) => ({
        type: e.type ?? null,
        reason: e.reason ?? null,
        message: e.message ?? null,
        object: { kind: e.involvedObject.kind ?? null, name: e.involvedObject.name ?? null },
        count: e.count ?? 1,
        first_timestamp: isoDate(e.firstTimestamp ?? e.eventTime),
        last_timestamp: at(e) || null,
        source: e.source?.component ?? e.reportingComponent ?? null,
      })),
    };
  }

  private async podLog(pod: V1Pod, opts: LogOptions): Promise<{ container: string; logs: string }> {
    const containers = pod.spec?.containers.map((c) => c.name) ?? [];
    const container =
      opts.container ??
      pod.metadata?.annotations?.['kubectl.kubernetes.io/default-container'] ??
      containers[0] ??
      '';
    if (opts.container && !containers.includes(opts.container)) {
      throw new HttpError(404, `Container ${opts.container} not found in pod ${pod.metadata?.name ?? ''}`);
    }
    try {
      const logs = await this.core.readNamespacedPodLog({
        namespace: pod.metadata?.namespace ?? '',
        name: pod.metadata?.name ?? '',
        container,
        tailLines: opts.tail,
        previous: opts.previous,
        ...(opts.sinceSeconds ? { sinceSeconds: opts.sinceSeconds } : {}),
        timestamps: opts.timestamps ?? false,
      });
      return { container, logs };
    } catch (error) {
      const status = kubeStatusOf(error);
      if (status?.reason === 'BadRequest') throw new HttpError(409, status.message);
      throw toHttpError(error, `Pod ${pod.metadata?.name ?? ''} not found`);
    }
  }

  /** Logs of every started pod of the job; 404 without pods, 409 while all of them are still pending. */
  async jobLogs(namespace: string, name: string, opts: LogOptions) {
    const job = await this.read(namespace, name);
    const pods = await this.pods(job);
    if (pods.length === 0) throw notFound(`Job ${namespace}/${name} has no pods`);
    const started = pods.filter((p) => p.status?.phase !== 'Pending');
    if (started.length === 0) {
      throw new HttpError(
        409,
        `Job ${namespace}/${name} has no started pod yet (pod ${pods[0]?.metadata?.name ?? ''} is Pending)`,
      );
    }
    const entries = [];
    for (const pod of started)
      entries.push({ pod: pod.metadata?.name ?? '', ...(await this.podLog(pod, opts)) });
    return { job: name, namespace, pods: entries, pending_pods: pods.length - started.length };
  }

  async podLogs(namespace: string, name: string, podName: string, opts: LogOptions) {
    const job = await this.read(namespace, name);
    const pod = (await this.pods(job)).find((p) => p.metadata?.name === podName);
    if (!pod) throw notFound(`Pod ${podName} of job ${namespace}/${name} not found`);
    if (pod.status?.phase === 'Pending')
      throw new HttpError(409, `Pod ${podName} is Pending; it has no logs yet`);
    return { job: name, namespace, pod: podName, ...(await this.podLog(pod, opts)) };
  }

  /** Live CPU/memory usage of the job's pods from metrics.k8s.io. */
  async jobMetrics(namespace: string, name: string) {
    const job = await this.read(namespace, name);
    const pods = await this.pods(job);
    let usage;
    try {
      usage = await this.metrics.getPodMetrics(namespace);
    } catch {
      throw new HttpError(503, 'Pod metrics are unavailable (metrics.k8s.io did not answer)');
    }
    const byName = new Map(usage.items.map((m) => [m.metadata.name, m]));
    return {
      job: name,
      namespace,
      timestamp: new Date().toISOString(),
      pods: pods.map((pod) => {
        const m = byName.get(pod.metadata?.name ?? '');
        return {
          name: pod.metadata?.name ?? '',
          phase: pod.status?.phase ?? 'Unknown',
          window: m?.window ?? null,
          containers: (m?.containers ?? []).map((c) => ({
            name: c.name,
            cpu: c.usage.cpu,
            memory: c.usage.memory,
          })),
        };
      }),
    };
  }

  /** Deletes one job; `expectedUid` makes it a no-op (409) if the name now belongs to another object. */
  async delete(namespace: string, name: string, expectedUid?: string) {
    const body = {
      propagationPolicy: 'Background',
      ...(expectedUid ? { preconditions: { uid: expectedUid } } : {}),
    };
    try {
      await this.batch.deleteNamespacedJob({ namespace, name, body });
    } catch (error) {
      const status = kubeStatusOf(error);
      if (status?.reason === 'Conflict' && expectedUid) {
        throw new HttpError(
          409,
          `Job ${namespace}/${name} does not have uid ${expectedUid}; nothing was deleted`,
        );
      }
      throw toHttpError(error, `Job ${namespace}/${name} not found`);
    }
    return {
      deleted: true,
      namespace,
      name,
      ...(expectedUid ? { uid: expectedUid } : {}),
      propagation_policy: 'Background',
    };
  }

  async bulkDelete(filter: JobFilter, dryRun: boolean) {
    const jobs = (await this.find(filter)).map(kubernetesJobView);
    const row = (job: JobView, deleted: boolean, outcome?: { skipped: string } | { error: string }) => ({
      namespace: job.namespace,
      name: job.name,
      uid: job.uid,
      status: job.status,
      deleted,
      ...outcome,
    });
    const results = [];
    for (const job of jobs) {
      if (dryRun) {
        results.push(row(job, false));
        continue;
      }
      try {
        await this.delete(job.namespace, job.name, job.uid ?? undefined);
        results.push(row(job, true));
      } catch (error) {
        // Gone already (someone else deleted it) is not a failure of this request.
        const gone = error instanceof HttpError && error.statusCode === 404;
        results.push(
          row(
            job,
            false,
            gone
              ? { skipped: 'already deleted' }
              : { error: error instanceof HttpError ? String(error.detail) : 'delete failed' },
          ),
        );
      }
    }
    return {
      dry_run: dryRun,
      matched: jobs.length,
      deleted: results.filter((r) => r.deleted).length,
      failed: results.filter((r) => 'error' in r).length,
      jobs: results,
    };
  }

  /**
   * The manifest of a new job built from a failed job's spec: controller-generated selector and labels
   * removed, linked to the original by label and annotation, named `<name>-retry-<suffix>`.
   */
  async retryManifest(
    namespace: string,
    name: string,
  ): Promise<{ original: JobView; manifest: Record<string, unknown> }> {
    const job = await this.read(namespace, name);
    const original = kubernetesJobView(job);
    if (jobState(job) !== 'failed') {
      throw new HttpError(
        409,
        `Job ${namespace}/${name} is ${original.status}; only failed jobs can be retried`,
      );
    }
    // V1Job's model has no renamed fields in the Job/Pod tree, so a JSON round trip gives the API's JSON.
    const spec = JSON.parse(JSON.stringify(job.spec ?? {})) as Record<string, unknown> & {
      template?: { metadata?: { labels?: Record<string, string> } };
    };
    delete spec.selector;
    delete spec.manualSelector;
    for (const label of CONTROLLER_LABELS) delete spec.template?.metadata?.labels?.[label];
    const labels = { ...(job.metadata?.labels ?? {}) };
    for (const label of CONTROLLER_LABELS) delete labels[label];
    const base = name.slice(0, 63 - '-retry-xxxxx'.length);
    return {
      original,
      manifest: {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {
          generateName: `${base}-retry-`,
          namespace,
          labels: { ...labels, [RETRY_OF_LABEL]: name },
          annotations: { [RETRY_OF_UID_ANNOTATION]: job.metadata?.uid ?? '' },
        },
        spec,
      },
    };
  }

  async create(namespace: string, manifest: Record<string, unknown>): Promise<V1Job> {
    try {
      // Strict like every other write; this manifest is the server's own spec of the failed job.
      return await this.batch.createNamespacedJob({ namespace, body: manifest, fieldValidation: 'Strict' });
    } catch (error) {
      throw toHttpError(error, `Namespace ${namespace} not found`);
    }
  }

  /** True when the Kubernetes API answers at all (an error Status is still an answer). */
  async reachable(): Promise<boolean> {
    try {
      await this.core.listNamespace({ limit: 1 });
      return true;
    } catch (error) {
      return kubeStatusOf(error) !== undefined;
    }
  }
}
