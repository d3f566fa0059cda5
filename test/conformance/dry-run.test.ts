// Conformance: dryRun=All runs the whole request (defaulting, validation, admission) and stores nothing.
// https://kubernetes.io/docs/reference/using-api/api-concepts/#dry-run
import { jobManifest, refusal, uniqueName } from './kube.js';
import { patience, useTarget } from './target.js';

const target = useTarget();

describe('dry-run', () => {
  it(
    'a dryRun=All create answers the object as it would be stored (defaults applied) and stores nothing',
    async () => {
      const name = uniqueName('conf-dry');
      const answered = await target.batch.createNamespacedJob({
        namespace: target.namespace,
        body: jobManifest(target, name, 'exit 0'),
        dryRun: 'All',
      });
      expect(answered.metadata?.name).toBe(name);
      expect(answered.metadata?.namespace).toBe(target.namespace);
      // Defaulted by the server: https://kubernetes.io/docs/concepts/workloads/controllers/job/
      expect(answered.spec?.completions).toBe(1);
      expect(answered.spec?.parallelism).toBe(1);
      const { code } = await refusal(target.batch.readNamespacedJob({ name, namespace: target.namespace }));
      expect(code).toBe(404);
      const listed = await target.batch.listNamespacedJob({ namespace: target.namespace });
      expect(listed.items.map((j) => j.metadata?.name)).not.toContain(name);
      // Nothing was stored, so nothing ran either.
      const pods = await target.core.listNamespacedPod({
        namespace: target.namespace,
        labelSelector: `batch.kubernetes.io/job-name=${name}`,
      });
      expect(pods.items).toEqual([]);
    },
    patience.testMs,
  );

  it(
    'a dryRun=All delete answers success and the object stays',
    async () => {
      const name = uniqueName('conf-dry-del');
      await target.core.createNamespacedConfigMap({
        namespace: target.namespace,
        body: { metadata: { name, labels: { ...target.labels } }, data: { k: 'v' } },
      });
      await target.core.deleteNamespacedConfigMap({ name, namespace: target.namespace, dryRun: 'All' });
      const still = await target.core.readNamespacedConfigMap({ name, namespace: target.namespace });
      expect(still.data).toEqual({ k: 'v' });
    },
    patience.testMs,
  );

  it(
    'a dryRun=All create is refused exactly like a real one: an invalid Job gets 422, an existing name 409',
    async () => {
      const bad = jobManifest(target, uniqueName('conf-dry-bad'), 'exit 0');
      bad.spec!.template.spec!.restartPolicy = 'Always'; // a Job's pods must be Never or OnFailure
      const invalid = await refusal(
        target.batch.createNamespacedJob({ namespace: target.namespace, body: bad, dryRun: 'All' }),
      );
      expect(invalid.code).toBe(422);
      expect(invalid.status.reason).toBe('Invalid');
      expect(invalid.status.details?.causes?.map((c) => c.field)).toContain(
        'spec.template.spec.restartPolicy',
      );

      const name = uniqueName('conf-dry-dup');
      await target.core.createNamespacedConfigMap({
        namespace: target.namespace,
        body: { metadata: { name, labels: { ...target.labels } } },
      });
      const duplicate = await refusal(
        target.core.createNamespacedConfigMap({
          namespace: target.namespace,
          body: { metadata: { name, labels: { ...target.labels } } },
          dryRun: 'All',
        }),
      );
      expect(duplicate.code).toBe(409);
      expect(duplicate.status.reason).toBe('AlreadyExists');
    },
    patience.testMs,
  );
});
