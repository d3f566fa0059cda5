// Conformance: 409s the platform relies on — AlreadyExists on create of an existing name, Conflict on an
// update carrying a stale resourceVersion (optimistic concurrency).
// https://kubernetes.io/docs/reference/using-api/api-concepts/#resource-versions
// https://kubernetes.io/docs/reference/using-api/api-concepts/#conflicts (Status reasons in
// staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go: NewAlreadyExists, NewConflict)
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';

import { jobManifest, refusal, uniqueName } from './kube.js';
import { patience, useTarget } from './target.js';

const target = useTarget();

describe('409 AlreadyExists on create of an existing name', () => {
  it(
    'a second Job with the same name is refused and the first is untouched',
    async () => {
      const name = uniqueName('conf-dup');
      const first = jobManifest(target, name, 'exit 0');
      first.spec = { ...first.spec!, suspend: true };
      const created = await target.batch.createNamespacedJob({ namespace: target.namespace, body: first });
      const { code, status } = await refusal(
        target.batch.createNamespacedJob({
          namespace: target.namespace,
          body: jobManifest(target, name, 'echo a different job; exit 0'),
        }),
      );
      expect(code).toBe(409);
      expect(status).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'AlreadyExists', code: 409 });
      expect(status.message).toBe(`jobs.batch "${name}" already exists`);
      expect(status.details).toMatchObject({ name, kind: 'jobs' });
      const still = await target.batch.readNamespacedJob({ name, namespace: target.namespace });
      expect(still.metadata?.uid).toBe(created.metadata?.uid);
      expect(still.spec?.template.spec?.containers[0]?.command).toEqual(['sh', '-c', 'exit 0']);
    },
    patience.testMs,
  );

  it(
    'the same name in the same namespace clashes per resource type only (a ConfigMap may share it)',
    async () => {
      const name = uniqueName('conf-dup-cm');
      await target.core.createNamespacedConfigMap({
        namespace: target.namespace,
        body: { metadata: { name, labels: { ...target.labels } } },
      });
      const { code, status } = await refusal(
        target.core.createNamespacedConfigMap({
          namespace: target.namespace,
          body: { metadata: { name, labels: { ...target.labels } } },
        }),
      );
      expect(code).toBe(409);
      expect(status.message).toBe(`configmaps "${name}" already exists`);
      const job = jobManifest(target, name, 'exit 0');
      job.spec = { ...job.spec!, suspend: true };
      const created = await target.batch.createNamespacedJob({ namespace: target.namespace, body: job });
      expect(created.metadata?.name).toBe(name);
    },
    patience.testMs,
  );
});

describe('resourceVersion conflicts', () => {
  it(
    'a PUT carrying a stale resourceVersion is refused with 409 Conflict; with the current one it succeeds',
    async () => {
      const name = uniqueName('conf-rv');
      const created = await target.core.createNamespacedConfigMap({
        namespace: target.namespace,
        body: { metadata: { name, labels: { ...target.labels } }, data: { n: '1' } },
      });
      const stale = structuredClone(created);
      const fresh = await target.core.replaceNamespacedConfigMap({
        name,
        namespace: target.namespace,
        body: { ...created, data: { n: '2' } },
      });
      expect(fresh.metadata?.resourceVersion).not.toBe(created.metadata?.resourceVersion);

      const { code, status } = await refusal(
        target.core.replaceNamespacedConfigMap({
          name,
          namespace: target.namespace,
          body: { ...stale, data: { n: 'lost update' } },
        }),
      );
      expect(code).toBe(409);
      expect(status).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Conflict', code: 409 });
      expect(status.message).toBe(
        `Operation cannot be fulfilled on configmaps "${name}": the object has been modified; ` +
          'please apply your changes to the latest version and try again',
      );
      const read = await target.core.readNamespacedConfigMap({ name, namespace: target.namespace });
      expect(read.data).toEqual({ n: '2' });

      const third = await target.core.replaceNamespacedConfigMap({
        name,
        namespace: target.namespace,
        body: { ...read, data: { n: '3' } },
      });
      expect(third.data).toEqual({ n: '3' });
    },
    patience.testMs,
  );

  it(
    'a merge patch carrying a stale metadata.resourceVersion is refused with 409 Conflict too',
    async () => {
      const name = uniqueName('conf-rv-patch');
      const created = await target.core.createNamespacedConfigMap({
        namespace: target.namespace,
        body: { metadata: { name, labels: { ...target.labels } }, data: { n: '1' } },
      });
      await target.core.replaceNamespacedConfigMap({
        name,
        namespace: target.namespace,
        body: { ...created, data: { n: '2' } },
      });
      const { code, status } = await refusal(
        target.core.patchNamespacedConfigMap(
          {
            name,
            namespace: target.namespace,
            body: { metadata: { resourceVersion: created.metadata?.resourceVersion }, data: { n: 'x' } },
          },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        ),
      );
      expect(code).toBe(409);
      expect(status.reason).toBe('Conflict');
    },
    patience.testMs,
  );
});
