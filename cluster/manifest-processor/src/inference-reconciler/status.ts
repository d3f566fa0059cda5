/**
 * A region's observed state of one endpoint, from the objects the reconciler applied and their pods:
 * - deleting / deleted: the record is being deleted; deleted once no labelled object is left;
 * - failed: the API server refused an apply (its Status message), an image cannot be pulled, or a
 *   rollout passed its progress deadline with no replica ready;
 * - stopped: spec.stopped and every role scaled to zero;
 * - running: every role's rollout is complete (all desired replicas updated and ready);
 * - degraded: not complete while some pods crash-loop, or some but not all replicas are ready after the
 *   grace period (or after the Deployment's progress deadline);
 * - pending: applied, replicas not yet ready.
 * "Complete" is kubectl's rollout-status rule
 * (https://github.com/kubernetes/kubectl/blob/master/pkg/polymorphichelpers/rollout_status.go): the
 * controller observed the current generation, and updated and available replicas reach the desired count.
 */
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import type {
  EndpointRecord,
  EndpointRegionState,
  EndpointRegionStatus,
  EndpointRole,
} from '../../../../contracts/inference-endpoints.js';
import { roleReplicas } from './desired-objects.js';

/** Waiting reasons of a container whose image cannot be pulled
 * (https://github.com/kubernetes/kubernetes/blob/master/pkg/kubelet/images/types.go). */
const IMAGE_PULL_REASONS = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'ErrImageNeverPull',
]);
/** Reasons are shown to API callers: short, one line. */
const MAX_REASON = 300;

export type ObservedStatus = Omit<EndpointRegionStatus, 'updated_at'>;

interface RoleObservation {
  role: EndpointRole;
  deployment: V1Deployment | undefined;
  pods: V1Pod[];
}

export interface StatusInput {
  record: EndpointRecord;
  roles: RoleObservation[];
  /** The API server's refusal of an apply of this generation. */
  applyError?: string;
  /** How long ago this generation was first applied here. */
  sinceAppliedMs: number;
  gracePeriodMs: number;
  /** Labelled objects of the endpoint still present (only looked at while deleting). */
  objectsLeft: number;
}

export function boundedReason(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_REASON ? `${line.slice(0, MAX_REASON - 1)}…` : line;
}

interface RoleProgress {
  desired: number;
  ready: number;
  complete: boolean;
  scaledDown: boolean;
  deadlineExceeded: boolean;
}

function progressOf(record: EndpointRecord, observation: RoleObservation): RoleProgress {
  const desired = roleReplicas(record, observation.role);
  const dep = observation.deployment;
  const status = dep?.status ?? {};
  const observed = (status.observedGeneration ?? 0) >= (dep?.metadata?.generation ?? 1);
  const ready = status.readyReplicas ?? 0;
  const updated = status.updatedReplicas ?? 0;
  const available = status.availableReplicas ?? 0;
  const total = status.replicas ?? 0;
  const progressing = (status.conditions ?? []).find((c) => c.type === 'Progressing');
  return {
    desired,
    ready,
    complete:
      dep !== undefined &&
      observed &&
      (dep.spec?.replicas ?? 1) === desired &&
      updated >= desired &&
      total <= updated &&
      available >= desired &&
      ready >= desired,
    scaledDown: dep !== undefined && observed && (dep.spec?.replicas ?? 1) === 0 && total === 0,
    // Set by the Deployment controller once spec.progressDeadlineSeconds pass without progress:
    // https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#failed-deployment
    deadlineExceeded: progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded',
  };
}

/** The first pod problem of a role: an image that cannot be pulled, or a crash-looping container. */
function podProblem(pods: V1Pod[]): { kind: 'image' | 'crash'; reason: string } | undefined {
  let crash: string | undefined;
  for (const pod of pods) {
    for (const c of pod.status?.containerStatuses ?? []) {
      const waiting = c.state?.waiting;
      if (!waiting?.reason) continue;
      if (IMAGE_PULL_REASONS.has(waiting.reason)) {
        return {
          kind: 'image',
          reason: `container ${c.name} cannot pull image ${c.image}: ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`,
        };
      }
      if (waiting.reason === 'CrashLoopBackOff' && crash === undefined) {
        crash = `container ${c.name} of pod ${pod.metadata?.name ?? ''} is crash-looping (${c.restartCount} restarts)`;
      }
    }
  }
  return crash ? { kind: 'crash', reason: crash } : undefined;
}

export function deriveRegionStatus(input: StatusInput): ObservedStatus {
  const { record } = input;
  const progress = input.roles.map((o) => ({
    role: o.role,
    ...progressOf(record, o),
    problem: podProblem(o.pods),
  }));
  const primary = progress.find((p) => p.role === 'primary');
  const canary = progress.find((p) => p.role === 'canary');
  const counts = {
    observed_generation: record.generation,
    ready_replicas: primary?.ready ?? 0,
    ...(canary ? { canary_ready_replicas: canary.ready } : {}),
  };
  const result = (state: EndpointRegionState, reason?: string): ObservedStatus => ({
    state,
    ...(reason ? { reason: boundedReason(reason) } : {}),
    ...counts,
  });

  if (record.deleting) return result(input.objectsLeft > 0 ? 'deleting' : 'deleted');
  if (input.applyError) return result('failed', input.applyError);
  const image = progress.find((p) => p.problem?.kind === 'image' && !p.complete);
  if (image?.problem) return result('failed', image.problem.reason);
  if (record.spec.stopped) return result(progress.every((p) => p.scaledDown) ? 'stopped' : 'pending');
  if (progress.every((p) => p.complete)) return result('running');

  const ready = progress.reduce((n, p) => n + p.ready, 0);
  const crash = progress.find((p) => p.problem?.kind === 'crash' && !p.complete);
  if (crash?.problem) return result('degraded', crash.problem.reason);
  const stuck = progress.find((p) => p.deadlineExceeded && !p.complete);
  if (stuck) {
    return result(
      ready > 0 ? 'degraded' : 'failed',
      `${stuck.role} rollout exceeded its progress deadline with ${stuck.ready}/${stuck.desired} replicas ready`,
    );
  }
  if (ready > 0 && input.sinceAppliedMs >= input.gracePeriodMs) {
    const lagging = progress.find((p) => !p.complete) ?? progress[0];
    return result(
      'degraded',
      `${lagging?.role ?? 'primary'}: ${lagging?.ready ?? 0}/${lagging?.desired ?? 0} replicas ready after ${Math.round(input.gracePeriodMs / 1000)}s`,
    );
  }
  return result('pending');
}
