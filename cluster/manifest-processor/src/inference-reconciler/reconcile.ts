/**
 * One reconcile pass of a region: every record that lists the region becomes its Deployments, Services
 * and PodDisruptionBudgets in gco-inference (server-side apply, field manager gco-inference-reconciler,
 * fieldValidation=Strict, force); every labelled object no record wants here any more — a role dropped
 * by promote/rollback, a PDB after a scale to one, a deleting endpoint, an endpoint moved to other
 * regions, an orphan whose record is gone — is deleted; and the region's status is written back.
 *
 * Exactly once per generation: only the Lease holder (leader.ts) runs a pass, and a role is applied only
 * when one of its objects is missing or carries another generation label, so a generation is applied
 * once and a later pass (or a new leader) only observes. Before each write the holder checks it still
 * leads by its own clock.
 */
import {
  AppsV1Api,
  CoreV1Api,
  PatchStrategy,
  PolicyV1Api,
  setHeaderOptions,
  type KubeConfig,
  type V1Deployment,
  type V1ObjectMeta,
  type V1Pod,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import {
  ENDPOINT_LABELS,
  INFERENCE_NAMESPACE,
  type EndpointRecord,
  type EndpointRegionStatus,
  type EndpointRole,
} from '../../../../contracts/inference-endpoints.js';
import { kubeStatusOf } from '../../../shared/kube-errors.js';
import { listAllPages } from '../../../shared/kube.js';
import { pooledKubeConfig } from '../../../shared/kube-pool.js';
import {
  desiredRoles,
  roleObjects,
  TEMPLATE_HASH_ANNOTATION,
  type RoleObjects,
  type SidecarSettings,
} from './desired-objects.js';
import type { LeaderElector } from './leader.js';
import type { EndpointRecordStore } from './records.js';
import type { TlsSecretSync } from './tls-secret-sync.js';
import { boundedReason, deriveRegionStatus, type ObservedStatus } from './status.js';

const RECONCILER_FIELD_MANAGER = 'gco-inference-reconciler';
const MANAGED_SELECTOR = `${ENDPOINT_LABELS.managedBy}=${ENDPOINT_LABELS.managedByValue}`;

type Kind = 'Deployment' | 'Service' | 'PodDisruptionBudget';

interface LiveObject {
  kind: Kind;
  metadata: V1ObjectMeta;
}

interface LiveState {
  objects: LiveObject[];
  deployments: Map<string, V1Deployment>;
  pods: V1Pod[];
}

export interface ReconcilerOptions {
  kubeConfig: KubeConfig;
  store: EndpointRecordStore;
  elector: LeaderElector;
  region: string;
  settings: Omit<SidecarSettings, 'progressDeadlineSeconds' | 'tlsCertificateHash'>;
  /** Keeps the sidecars' certificate Secret in sync (deployed stages; absent locally). */
  tlsSync?: Pick<TlsSecretSync, 'sync'>;
  gracePeriodMs: number;
  logger?: Logger;
  now?: () => number;
}

/** What one pass did (tests and logs). */
export interface PassReport {
  leader: boolean;
  /** Objects written by server-side apply. */
  applied: number;
  deleted: number;
  statusWrites: number;
  removedRecords: number;
}

/** A write the leader may no longer make: another replica may lead by now. */
class LeadershipLost extends Error {
  override readonly name = 'LeadershipLost';
}

const labelOf = (meta: V1ObjectMeta | undefined, key: string): string | undefined => meta?.labels?.[key];

/** Client errors the next attempt would only repeat: the API server refused the object itself. */
function refusal(error: unknown): string | undefined {
  const status = kubeStatusOf(error);
  if (
    !status ||
    !['Invalid', 'BadRequest', 'UnsupportedMediaType', 'RequestEntityTooLarge'].includes(status.reason)
  ) {
    return undefined;
  }
  return `${status.reason}: ${status.message}`;
}

export class InferenceReconciler {
  private readonly apps: AppsV1Api;
  private readonly core: CoreV1Api;
  private readonly policy: PolicyV1Api;
  private readonly now: () => number;
  /** When each endpoint's current generation was first applied here (the grace period's start). */
  private readonly appliedAt = new Map<string, { generation: number; at: number }>();
  /** Applies the API server refused, per endpoint and generation: not retried until the spec changes. */
  private readonly refused = new Map<string, { generation: number; message: string }>();
  /** The certificate hash of the sidecars' Secret, read at the start of each pass. */
  private tlsCertificateHash: string | undefined;

  constructor(private readonly opts: ReconcilerOptions) {
    const kc = pooledKubeConfig(opts.kubeConfig);
    this.apps = kc.makeApiClient(AppsV1Api);
    this.core = kc.makeApiClient(CoreV1Api);
    this.policy = kc.makeApiClient(PolicyV1Api);
    this.now = opts.now ?? Date.now;
  }

  private get settings(): SidecarSettings {
    return {
      ...this.opts.settings,
      ...(this.tlsCertificateHash ? { tlsCertificateHash: this.tlsCertificateHash } : {}),
      // The Deployment controller's own stuck-rollout signal fires at the same time as the grace period.
      progressDeadlineSeconds: Math.max(1, Math.ceil(this.opts.gracePeriodMs / 1000)),
    };
  }

  async pass(): Promise<PassReport> {
    const report: PassReport = { leader: false, applied: 0, deleted: 0, statusWrites: 0, removedRecords: 0 };
    if (!(await this.opts.elector.tryAcquireOrRenew())) return report;
    report.leader = true;
    if (this.opts.tlsSync) {
      const tls = await this.opts.tlsSync.sync(() => this.assertLeader());
      this.tlsCertificateHash = tls.hash;
      if (tls.written) report.applied += 1;
    }
    const { records, malformed } = await this.opts.store.list();
    if (malformed.length > 0)
      this.opts.logger?.warn({ endpoints: malformed }, 'skipping malformed endpoint records');
    let live = await this.readLive();
    const byName = new Map(records.map((r) => [r.endpoint_name, r]));

    // Apply what is wanted here.
    for (const record of records) {
      for (const role of desiredRoles(record, this.opts.region)) {
        report.applied += await this.applyRole(record, role, live);
      }
    }
    // Remove what is not.
    for (const object of live.objects) {
      const endpoint = labelOf(object.metadata, ENDPOINT_LABELS.endpoint) ?? '';
      const role = labelOf(object.metadata, ENDPOINT_LABELS.role) as EndpointRole | undefined;
      const record = byName.get(endpoint);
      const wanted =
        record !== undefined &&
        role !== undefined &&
        desiredRoles(record, this.opts.region).includes(role) &&
        (object.kind !== 'PodDisruptionBudget' || roleObjects(record, role, this.settings).pdb !== undefined);
      if (!wanted) report.deleted += await this.remove(object);
    }
    if (report.applied > 0 || report.deleted > 0) live = await this.readLive();

    for (const record of records) {
      await this.report(record, live, report);
    }
    return report;
  }

  /** Applies a role's objects when one is missing or of another generation; the number written. */
  private async applyRole(record: EndpointRecord, role: EndpointRole, live: LiveState): Promise<number> {
    const name = record.endpoint_name;
    const refusedBefore = this.refused.get(name);
    if (refusedBefore?.generation === record.generation) return 0;
    const current = live.deployments.get(`${name}/${role}`);
    const objects = roleObjects(record, role, this.settings, {
      ...(current?.metadata?.annotations?.[TEMPLATE_HASH_ANNOTATION]
        ? { hash: current.metadata.annotations[TEMPLATE_HASH_ANNOTATION] }
        : {}),
      ...(current?.spec?.template?.metadata?.labels?.[ENDPOINT_LABELS.generation]
        ? { generation: current.spec.template.metadata.labels[ENDPOINT_LABELS.generation] }
        : {}),
    });
    if (this.upToDate(record, objects, live)) return 0;
    let written = 0;
    try {
      written += await this.apply('Deployment', objects);
      written += await this.apply('Service', objects);
      if (objects.pdb) written += await this.apply('PodDisruptionBudget', objects);
    } catch (error) {
      const message = refusal(error);
      if (!message) throw error;
      this.refused.set(name, { generation: record.generation, message: boundedReason(message) });
      this.opts.logger?.warn(
        { endpoint: name, role, reason: message },
        'Kubernetes refused an endpoint object',
      );
      return written;
    }
    this.refused.delete(name);
    const seen = this.appliedAt.get(name);
    if (seen?.generation !== record.generation)
      this.appliedAt.set(name, { generation: record.generation, at: this.now() });
    return written;
  }

  private upToDate(record: EndpointRecord, objects: RoleObjects, live: LiveState): boolean {
    const generation = String(record.generation);
    const has = (kind: Kind) =>
      live.objects.some(
        (o) =>
          o.kind === kind &&
          o.metadata.name === objects.name &&
          o.metadata.deletionTimestamp === undefined &&
          labelOf(o.metadata, ENDPOINT_LABELS.generation) === generation,
      );
    // The template hash too: a renewed certificate (or sidecar setting) changes the pods without a new
    // generation.
    const liveHash = live.deployments.get(`${record.endpoint_name}/${objects.role}`)?.metadata?.annotations?.[
      TEMPLATE_HASH_ANNOTATION
    ];
    return (
      has('Deployment') &&
      has('Service') &&
      (!objects.pdb || has('PodDisruptionBudget')) &&
      liveHash === objects.deployment.metadata?.annotations?.[TEMPLATE_HASH_ANNOTATION]
    );
  }

  private assertLeader(): void {
    if (!this.opts.elector.isLeader) throw new LeadershipLost('lost the reconciler Lease during a pass');
  }

  /** One server-side apply (https://kubernetes.io/docs/reference/using-api/server-side-apply/). */
  private async apply(kind: Kind, objects: RoleObjects): Promise<number> {
    this.assertLeader();
    const options = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
    const common = {
      name: objects.name,
      namespace: INFERENCE_NAMESPACE,
      fieldManager: RECONCILER_FIELD_MANAGER,
      fieldValidation: 'Strict',
      force: true,
    };
    if (kind === 'Deployment')
      await this.apps.patchNamespacedDeployment({ ...common, body: objects.deployment }, options);
    else if (kind === 'Service')
      await this.core.patchNamespacedService({ ...common, body: objects.service }, options);
    else await this.policy.patchNamespacedPodDisruptionBudget({ ...common, body: objects.pdb }, options);
    return 1;
  }

  private async remove(object: LiveObject): Promise<number> {
    if (object.metadata.deletionTimestamp) return 0;
    this.assertLeader();
    const ref = { name: object.metadata.name ?? '', namespace: INFERENCE_NAMESPACE };
    try {
      if (object.kind === 'Deployment') {
        // Background: the garbage collector removes its ReplicaSets and pods; report() waits for them.
        await this.apps.deleteNamespacedDeployment({ ...ref, propagationPolicy: 'Background' });
      } else if (object.kind === 'Service') await this.core.deleteNamespacedService(ref);
      else await this.policy.deleteNamespacedPodDisruptionBudget(ref);
    } catch (error) {
      if (kubeStatusOf(error)?.reason === 'NotFound') return 0;
      throw error;
    }
    return 1;
  }

  private async readLive(): Promise<LiveState> {
    const namespace = INFERENCE_NAMESPACE;
    const labelSelector = MANAGED_SELECTOR;
    const [deployments, services, pdbs, pods] = await Promise.all([
      listAllPages((cont) =>
        this.apps.listNamespacedDeployment({
          namespace,
          labelSelector,
          ...(cont ? { _continue: cont } : {}),
        }),
      ),
      listAllPages((cont) =>
        this.core.listNamespacedService({ namespace, labelSelector, ...(cont ? { _continue: cont } : {}) }),
      ),
      listAllPages((cont) =>
        this.policy.listNamespacedPodDisruptionBudget({
          namespace,
          labelSelector,
          ...(cont ? { _continue: cont } : {}),
        }),
      ),
      listAllPages((cont) =>
        this.core.listNamespacedPod({ namespace, labelSelector, ...(cont ? { _continue: cont } : {}) }),
      ),
    ]);
    const objects: LiveObject[] = [
      ...deployments.map((d) => ({ kind: 'Deployment' as const, metadata: d.metadata ?? {} })),
      ...services.map((s) => ({ kind: 'Service' as const, metadata: s.metadata ?? {} })),
      ...pdbs.map((p) => ({ kind: 'PodDisruptionBudget' as const, metadata: p.metadata ?? {} })),
    ];
    const byRole = new Map<string, V1Deployment>();
    for (const d of deployments) {
      const key = `${labelOf(d.metadata, ENDPOINT_LABELS.endpoint) ?? ''}/${labelOf(d.metadata, ENDPOINT_LABELS.role) ?? ''}`;
      byRole.set(key, d);
    }
    return { objects, deployments: byRole, pods };
  }

  /** Derives and writes this region's status of a record, and removes a fully deleted record. */
  private async report(record: EndpointRecord, live: LiveState, report: PassReport): Promise<void> {
    const region = this.opts.region;
    const name = record.endpoint_name;
    const mine = (meta: V1ObjectMeta | undefined) => labelOf(meta, ENDPOINT_LABELS.endpoint) === name;
    const objectsLeft =
      live.objects.filter((o) => mine(o.metadata)).length + live.pods.filter((p) => mine(p.metadata)).length;
    const listed = record.spec.regions.includes(region);
    if (!listed) {
      // Moved away from this region: its status goes once its objects are gone.
      if (record.regions[region] && objectsLeft === 0 && !record.deleting) {
        this.assertLeader();
        if (await this.opts.store.removeRegionStatus(name, region, record.generation))
          report.statusWrites += 1;
      }
      return;
    }
    const applied = this.appliedAt.get(name);
    const since = applied?.generation === record.generation ? this.now() - applied.at : 0;
    if (applied?.generation !== record.generation)
      this.appliedAt.set(name, { generation: record.generation, at: this.now() });
    const refused = this.refused.get(name);
    const observed = deriveRegionStatus({
      record,
      roles: desiredRoles(record, region).map((role) => ({
        role,
        deployment: live.deployments.get(`${name}/${role}`),
        pods: live.pods.filter((p) => mine(p.metadata) && labelOf(p.metadata, ENDPOINT_LABELS.role) === role),
      })),
      ...(refused?.generation === record.generation ? { applyError: refused.message } : {}),
      sinceAppliedMs: since,
      gracePeriodMs: this.opts.gracePeriodMs,
      objectsLeft,
    });
    if (!sameStatus(record.regions[region], observed)) {
      this.assertLeader();
      const status: EndpointRegionStatus = { ...observed, updated_at: new Date(this.now()).toISOString() };
      if (await this.opts.store.writeRegionStatus(name, region, status)) {
        report.statusWrites += 1;
        record.regions[region] = status;
        this.opts.logger?.info(
          { endpoint: name, region, state: status.state, generation: record.generation },
          'endpoint region state',
        );
      }
    }
    if (record.deleting && record.regions[region]?.state === 'deleted') {
      this.assertLeader();
      if (await this.opts.store.removeDeleted(record)) {
        report.removedRecords += 1;
        this.appliedAt.delete(name);
        this.refused.delete(name);
      }
    }
  }
}

function sameStatus(stored: EndpointRegionStatus | undefined, next: ObservedStatus): boolean {
  return (
    stored !== undefined &&
    stored.state === next.state &&
    (stored.reason ?? '') === (next.reason ?? '') &&
    stored.observed_generation === next.observed_generation &&
    stored.ready_replicas === next.ready_replicas &&
    (stored.canary_ready_replicas ?? -1) === (next.canary_ready_replicas ?? -1)
  );
}
