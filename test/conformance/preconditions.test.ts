// Conformance: delete with preconditions, the platform's `expected_uid` (a delete that names the uid of
// the object it means, so a same-named successor is never deleted by mistake).
// https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/delete-options/ (preconditions)
// Message: staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go (checkPreconditions →
// storage.NewInvalidObjError "Precondition failed: UID in precondition: …, UID in object meta: …").
import type { V1Job } from '@kubernetes/client-node';

import { jobManifest, refusal, uniqueName } from './kube.js';
import { patience, useTarget } from './target.js';

const target = useTarget();

/** A suspended Job: a real object with a uid, and no pods to run. */
async function createSuspendedJob(name: string): Promise<V1Job> {
  const body = jobManifest(target, name, 'exit 0');
  body.spec = { ...body.spec!, suspend: true };
  return target.batch.createNamespacedJob({ namespace: target.namespace, body });
}

describe('delete preconditions (expected_uid)', () => {
  it(
    'a delete whose preconditions.uid is another object’s uid is refused with 409 Conflict and deletes nothing',
    async () => {
      const mine = await createSuspendedJob(uniqueName('conf-pre-a'));
      const other = await createSuspendedJob(uniqueName('conf-pre-b'));
      const name = mine.metadata?.name ?? '';
      const otherUid = other.metadata?.uid ?? '';
      const { code, status } = await refusal(
        target.batch.deleteNamespacedJob({
          name,
          namespace: target.namespace,
          propagationPolicy: 'Background',
          body: { preconditions: { uid: otherUid } },
        }),
      );
      expect(code).toBe(409);
      expect(status).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409 });
      expect(status.message).toContain(`Precondition failed: UID in precondition: ${otherUid}`);
      expect(status.message).toContain(`UID in object meta: ${mine.metadata?.uid ?? ''}`);
      const still = await target.batch.readNamespacedJob({ name, namespace: target.namespace });
      expect(still.metadata?.uid).toBe(mine.metadata?.uid);
    },
    patience.testMs,
  );

  it(
    'a delete whose preconditions.uid is the object’s own uid deletes it',
    async () => {
      const job = await createSuspendedJob(uniqueName('conf-pre-ok'));
      const name = job.metadata?.name ?? '';
      await target.batch.deleteNamespacedJob({
        name,
        namespace: target.namespace,
        propagationPolicy: 'Background',
        body: { preconditions: { uid: job.metadata?.uid ?? '' } },
      });
      const { code } = await refusal(target.batch.readNamespacedJob({ name, namespace: target.namespace }));
      expect(code).toBe(404);
    },
    patience.testMs,
  );

  it(
    'a delete whose preconditions.resourceVersion is stale is refused with 409 Conflict',
    async () => {
      const job = await createSuspendedJob(uniqueName('conf-pre-rv'));
      const name = job.metadata?.name ?? '';
      const stale = job.metadata?.resourceVersion ?? '';
      await target.batch.patchNamespacedJob({
        name,
        namespace: target.namespace,
        body: [{ op: 'add', path: '/metadata/annotations', value: { touched: 'yes' } }],
      });
      const { code, status } = await refusal(
        target.batch.deleteNamespacedJob({
          name,
          namespace: target.namespace,
          propagationPolicy: 'Background',
          body: { preconditions: { resourceVersion: stale } },
        }),
      );
      expect(code).toBe(409);
      expect(status.reason).toBe('Conflict');
      expect(status.message).toContain(`Precondition failed: ResourceVersion in precondition: ${stale}`);
    },
    patience.testMs,
  );
});
