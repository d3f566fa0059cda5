/**
 * Leader election among the manifest-processor replicas of one region, on a coordination.k8s.io Lease in
 * gco-inference, as client-go's leaderelection package does it
 * (https://github.com/kubernetes/client-go/blob/master/tools/leaderelection/leaderelection.go,
 * tryAcquireOrRenew):
 * - a missing Lease is created with this replica as holder (AlreadyExists: another replica won);
 * - a Lease held by another replica is taken over only when it has not changed for leaseDurationSeconds,
 *   measured on this replica's own clock from when it last saw it change (no trust in other clocks);
 * - every takeover or renewal is an update at the read resourceVersion, so of two replicas racing for an
 *   expired Lease one gets 409 Conflict;
 * - stop() releases the Lease (holder emptied), so another replica takes over without waiting.
 * The holder may act until `validUntil` (its renewal time plus the duration): a replica paused longer
 * than that stops writing before another can have taken over.
 */
import { CoordinationV1Api, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { INFERENCE_NAMESPACE } from '../../../../contracts/inference-endpoints.js';
import { kubeStatusOf } from '../../../shared/kube-errors.js';
import { pooledKubeConfig } from '../../../shared/kube-pool.js';

export const RECONCILER_LEASE = 'gco-inference-reconciler';

export interface LeaderElectorOptions {
  kubeConfig: KubeConfig;
  identity: string;
  leaseDurationSeconds: number;
  now?: () => number;
}

export class LeaderElector {
  private readonly api: CoordinationV1Api;
  private readonly now: () => number;
  private observed: { key: string; at: number } | undefined;
  private until = 0;

  constructor(private readonly opts: LeaderElectorOptions) {
    this.api = pooledKubeConfig(opts.kubeConfig).makeApiClient(CoordinationV1Api);
    this.now = opts.now ?? Date.now;
  }

  /** Whether this replica holds the Lease right now (by its own clock). */
  get isLeader(): boolean {
    return this.now() < this.until;
  }

  private get durationMs(): number {
    return this.opts.leaseDurationSeconds * 1000;
  }

  /** Acquires or renews the Lease; true when this replica leads until at least the next call. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const started = this.now();
    const name = RECONCILER_LEASE;
    const namespace = INFERENCE_NAMESPACE;
    let lease: V1Lease;
    try {
      lease = await this.api.readNamespacedLease({ name, namespace });
    } catch (error) {
      if (kubeStatusOf(error)?.reason !== 'NotFound') throw error;
      return this.won(
        await this.attempt(() =>
          this.api.createNamespacedLease({ namespace, body: this.leaseBody(undefined, started) }),
        ),
        started,
      );
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? '';
    const key = `${holder}|${String(spec.renewTime ?? '')}|${lease.metadata?.resourceVersion ?? ''}`;
    if (this.observed?.key !== key) this.observed = { key, at: started };
    const heldByOther = holder !== '' && holder !== this.opts.identity;
    const durationMs = (spec.leaseDurationSeconds ?? this.opts.leaseDurationSeconds) * 1000;
    if (heldByOther && this.observed.at + durationMs > started) {
      this.until = 0;
      return false;
    }
    return this.won(
      await this.attempt(() =>
        this.api.replaceNamespacedLease({ name, namespace, body: this.leaseBody(lease, started) }),
      ),
      started,
    );
  }

  /** Gives the Lease up (best effort), so another replica need not wait for it to expire. */
  async release(): Promise<void> {
    if (!this.isLeader) return;
    this.until = 0;
    try {
      const lease = await this.api.readNamespacedLease({
        name: RECONCILER_LEASE,
        namespace: INFERENCE_NAMESPACE,
      });
      if (lease.spec?.holderIdentity !== this.opts.identity) return;
      lease.spec = { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1 };
      await this.api.replaceNamespacedLease({
        name: RECONCILER_LEASE,
        namespace: INFERENCE_NAMESPACE,
        body: lease,
      });
    } catch {
      // Expiry releases it anyway.
    }
  }

  private won(ok: boolean, started: number): boolean {
    this.until = ok ? started + this.durationMs : 0;
    return ok;
  }

  /** An optimistic write: Conflict / AlreadyExists mean another replica got there first. */
  private async attempt(write: () => Promise<V1Lease>): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (error) {
      const reason = kubeStatusOf(error)?.reason;
      if (reason === 'Conflict' || reason === 'AlreadyExists') return false;
      throw error;
    }
  }

  private leaseBody(previous: V1Lease | undefined, at: number): V1Lease {
    const now = new Date(at);
    const spec = previous?.spec ?? {};
    const mine = spec.holderIdentity === this.opts.identity;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        ...(previous?.metadata ?? {}),
        name: RECONCILER_LEASE,
        namespace: INFERENCE_NAMESPACE,
      },
      spec: {
        holderIdentity: this.opts.identity,
        leaseDurationSeconds: this.opts.leaseDurationSeconds,
        acquireTime: mine && spec.acquireTime ? spec.acquireTime : now,
        renewTime: now,
        leaseTransitions: (spec.leaseTransitions ?? 0) + (mine ? 0 : 1),
      },
    };
  }
}
