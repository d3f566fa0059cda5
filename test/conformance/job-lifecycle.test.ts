// Conformance: a Job runs to Complete or Failed, and the finished pod's log holds what it printed.
// https://kubernetes.io/docs/concepts/workloads/controllers/job/#job-termination-and-cleanup
// https://kubernetes.io/docs/concepts/workloads/controllers/job/#pod-backoff-failure-policy
import type { V1Job } from '@kubernetes/client-node';

import { conditionOf, eventually, jobManifest, podsOfJob, uniqueName } from './kube.js';
import { patience, useTarget } from './target.js';

const target = useTarget();

function readJob(name: string): () => Promise<V1Job> {
  return () => target.batch.readNamespacedJob({ name, namespace: target.namespace });
}

describe('Job lifecycle', () => {
  it(
    'a container exiting 0 makes the Job Complete with status.succeeded 1',
    async () => {
      const name = uniqueName('conf-ok');
      await target.batch.createNamespacedJob({
        namespace: target.namespace,
        body: jobManifest(target, name, 'exit 0'),
      });
      const job = await eventually(readJob(name), (j) => conditionOf(j, 'Complete') === 'True', 'Complete');
      expect(job.status?.succeeded).toBe(1);
      expect(job.status?.failed ?? 0).toBe(0);
      expect(conditionOf(job, 'Failed')).toBeUndefined();
      expect(job.status?.completionTime).toBeDefined();
      const pods = await podsOfJob(target, name);
      expect(pods.map((p) => p.status?.phase)).toEqual(['Succeeded']);
    },
    patience.testMs,
  );

  it(
    'a container exiting 1 with backoffLimit 0 makes the Job Failed (BackoffLimitExceeded), never Complete',
    async () => {
      const name = uniqueName('conf-fail');
      await target.batch.createNamespacedJob({
        namespace: target.namespace,
        body: jobManifest(target, name, 'exit 1'),
      });
      const job = await eventually(readJob(name), (j) => conditionOf(j, 'Failed') === 'True', 'Failed');
      const failed = job.status?.conditions?.find((c) => c.type === 'Failed');
      expect(failed?.reason).toBe('BackoffLimitExceeded');
      expect(job.status?.failed).toBe(1);
      expect(job.status?.succeeded ?? 0).toBe(0);
      expect(conditionOf(job, 'Complete')).toBeUndefined();
      const pods = await podsOfJob(target, name);
      expect(pods).toHaveLength(1); // backoffLimit 0: no retry
      expect(pods[0]?.status?.phase).toBe('Failed');
      const terminated = pods[0]?.status?.containerStatuses?.[0]?.state?.terminated;
      expect(terminated?.exitCode).toBe(1);
    },
    patience.testMs,
  );
});

describe('pod logs', () => {
  it(
    "the finished pod's log (readNamespacedPodLog) contains what the container echoed",
    async () => {
      const name = uniqueName('conf-logs');
      const marker = `conformance-marker-${name}`;
      await target.batch.createNamespacedJob({
        namespace: target.namespace,
        body: jobManifest(target, name, `echo ${marker}; exit 0`),
      });
      await eventually(readJob(name), (j) => conditionOf(j, 'Complete') === 'True', 'Complete');
      const [pod] = await podsOfJob(target, name);
      const log = await target.core.readNamespacedPodLog({
        name: pod?.metadata?.name ?? '',
        namespace: target.namespace,
        container: 'main',
      });
      expect(log.split('\n')).toContain(marker);
    },
    patience.testMs,
  );

  it(
    'asking for the log of a container the pod does not have is refused with 400',
    async () => {
      const name = uniqueName('conf-nolog');
      await target.batch.createNamespacedJob({
        namespace: target.namespace,
        body: jobManifest(target, name, 'echo hi; exit 0'),
      });
      await eventually(readJob(name), (j) => conditionOf(j, 'Complete') === 'True', 'Complete');
      const [pod] = await podsOfJob(target, name);
      await expect(
        target.core.readNamespacedPodLog({
          name: pod?.metadata?.name ?? '',
          namespace: target.namespace,
          container: 'sidecar',
        }),
      ).rejects.toMatchObject({ code: 400 });
    },
    patience.testMs,
  );
});
