// Conformance: what deleting a Job does to its pods, per propagationPolicy, and the warning a delete
// without one gets (batch/v1 Jobs still orphan their pods by default).
// https://kubernetes.io/docs/concepts/architecture/garbage-collection/#cascading-deletion
// https://kubernetes.io/docs/concepts/workloads/controllers/job/#job-termination-and-cleanup
// Warning text: pkg/registry/batch/job/storage/storage.go (deleteOptionWarnings).
import type { V1Job, V1Pod } from '@kubernetes/client-node';

import { conditionOf, eventually, jobManifest, podsOfJob, refusal, uniqueName, warningsOf } from './kube.js';
import { patience, useTarget } from './target.js';

const JOB_ORPHAN_WARNING =
  'child pods are preserved by default when jobs are deleted; set propagationPolicy=Background to remove ' +
  'them or set propagationPolicy=Orphan to suppress this warning';

const target = useTarget();

/** A Job that ran to Complete, and its pod. */
async function finishedJob(prefix: string): Promise<{ job: V1Job; pods: V1Pod[] }> {
  const name = uniqueName(prefix);
  await target.batch.createNamespacedJob({
    namespace: target.namespace,
    body: jobManifest(target, name, 'exit 0'),
  });
  const job = await eventually(
    () => target.batch.readNamespacedJob({ name, namespace: target.namespace }),
    (j) => conditionOf(j, 'Complete') === 'True',
    `Job ${name} Complete`,
  );
  const pods = await podsOfJob(target, name);
  expect(pods).toHaveLength(1);
  return { job, pods };
}

async function jobGone(name: string): Promise<void> {
  await eventually(
    () =>
      refusal(target.batch.readNamespacedJob({ name, namespace: target.namespace })).catch(() => undefined),
    (r) => r?.code === 404,
    `Job ${name} deleted`,
  );
}

function podNames(pods: V1Pod[]): string[] {
  return pods.map((p) => p.metadata?.name ?? '').sort();
}

/** The pods (by name) that still exist. */
async function existing(names: string[]): Promise<string[]> {
  const list = await target.core.listNamespacedPod({ namespace: target.namespace });
  return podNames(list.items).filter((n) => names.includes(n));
}

describe('propagation on delete', () => {
  it.each(['Foreground', 'Background'])(
    'propagationPolicy=%s deletes the Job and its pods, without a warning',
    async (propagationPolicy) => {
      const { job, pods } = await finishedJob(`conf-${propagationPolicy.toLowerCase()}`);
      const name = job.metadata?.name ?? '';
      const answer = await target.batch.deleteNamespacedJobWithHttpInfo({
        name,
        namespace: target.namespace,
        propagationPolicy,
      });
      expect(answer.httpStatusCode).toBe(200);
      expect(warningsOf(answer.headers)).toEqual([]);
      await jobGone(name);
      await eventually(
        () => existing(podNames(pods)),
        (left) => left.length === 0,
        'pods deleted',
      );
    },
    patience.testMs,
  );

  it(
    'propagationPolicy=Orphan deletes the Job and keeps its pods, no longer owned by it',
    async () => {
      const { job, pods } = await finishedJob('conf-orphan');
      const name = job.metadata?.name ?? '';
      const answer = await target.batch.deleteNamespacedJobWithHttpInfo({
        name,
        namespace: target.namespace,
        propagationPolicy: 'Orphan',
      });
      expect(warningsOf(answer.headers)).toEqual([]);
      await jobGone(name);
      const kept = await eventually(
        () => podsOfJob(target, name),
        (list) =>
          list.every((p) => !(p.metadata?.ownerReferences ?? []).some((o) => o.uid === job.metadata?.uid)),
        'owner references removed',
      );
      expect(podNames(kept)).toEqual(podNames(pods));
    },
    patience.testMs,
  );

  it(
    'a delete without a policy orphans the pods (the batch/v1 default) and warns about it',
    async () => {
      const { job, pods } = await finishedJob('conf-default');
      const name = job.metadata?.name ?? '';
      const answer = await target.batch.deleteNamespacedJobWithHttpInfo({
        name,
        namespace: target.namespace,
      });
      expect(answer.httpStatusCode).toBe(200);
      expect(warningsOf(answer.headers)).toContain(JOB_ORPHAN_WARNING);
      await jobGone(name);
      const kept = await eventually(
        () => podsOfJob(target, name),
        (list) => list.every((p) => (p.metadata?.ownerReferences ?? []).length === 0),
        'owner references removed',
      );
      expect(podNames(kept)).toEqual(podNames(pods));
    },
    patience.testMs,
  );

  it(
    'an unknown propagationPolicy is refused with 422 and deletes nothing',
    async () => {
      const { job } = await finishedJob('conf-badpolicy');
      const name = job.metadata?.name ?? '';
      const { code, status } = await refusal(
        target.batch.deleteNamespacedJob({ name, namespace: target.namespace, propagationPolicy: 'Cascade' }),
      );
      expect(code).toBe(422);
      expect(status.reason).toBe('Invalid');
      expect(status.details?.causes?.map((c) => c.field)).toContain('propagationPolicy');
      const still = await target.batch.readNamespacedJob({ name, namespace: target.namespace });
      expect(still.metadata?.uid).toBe(job.metadata?.uid);
    },
    patience.testMs,
  );
});
