// Conformance: fields the API server refuses to change after creation, answered 422 Invalid with a
// cause naming the field. The platform relies on this to refuse a resubmitted Job whose template changed.
// Job: pkg/apis/batch/validation/validation.go (ValidateJobSpecUpdate: spec.selector, spec.template,
//   spec.completionMode via apivalidation.ValidateImmutableField → "field is immutable")
// Deployment: pkg/apis/apps/validation/validation.go (ValidateDeploymentUpdate: spec.selector)
// Pod: pkg/apis/core/validation/validation.go (ValidatePodUpdate: only image, activeDeadlineSeconds,
//   tolerations additions, terminationGracePeriodSeconds may change)
// https://kubernetes.io/docs/concepts/workloads/controllers/job/ ("the Job's pod template is immutable")
// https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#label-selector-updates
import type { V1Deployment, V1Job, V1Pod } from '@kubernetes/client-node';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';

import type { KubeStatus } from './kube.js';
import { IMAGE, jobManifest, podManifest, refusal, uniqueName } from './kube.js';
import { patience, useTarget } from './target.js';

/** A newer busybox from the same registry: a legal image change. */
const OTHER_IMAGE = 'public.ecr.aws/docker/library/busybox:1.37';

const target = useTarget();

/** Expects a 422 Invalid `Status` with a cause for `field` whose message says it is immutable. */
function expectImmutable(refused: { code: number; status: KubeStatus }, field: string): void {
  expect(refused.code).toBe(422);
  expect(refused.status).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422 });
  const cause = refused.status.details?.causes?.find((c) => c.field === field);
  expect(cause).toMatchObject({ reason: 'FieldValueInvalid' });
  expect(cause?.message).toContain('field is immutable');
  expect(refused.status.message).toContain(`${field}: Invalid value`);
  expect(refused.status.message).toContain('field is immutable');
}

async function createJob(name: string, script = 'exit 0'): Promise<V1Job> {
  return target.batch.createNamespacedJob({
    namespace: target.namespace,
    body: jobManifest(target, name, script),
  });
}

describe('immutable fields of a Job', () => {
  it(
    'a PUT changing spec.template (the command) is refused: 422, spec.template is immutable',
    async () => {
      const name = uniqueName('conf-imm-tpl');
      const job = await createJob(name, 'echo first; exit 0');
      const changed = structuredClone(job);
      // Unconditional (no resourceVersion): the Job controller writes status meanwhile, and a stale
      // resourceVersion would be answered 409 before validation runs.
      delete changed.metadata!.resourceVersion;
      changed.spec!.template.spec!.containers[0]!.command = ['sh', '-c', 'echo second; exit 0'];
      const refused = await refusal(
        target.batch.replaceNamespacedJob({ name, namespace: target.namespace, body: changed }),
      );
      expectImmutable(refused, 'spec.template');
      expect(refused.status.message).toMatch(new RegExp(`^Job\\.batch "${name}" is invalid: `));
      const stored = await target.batch.readNamespacedJob({ name, namespace: target.namespace });
      expect(stored.spec?.template.spec?.containers[0]?.command).toEqual(['sh', '-c', 'echo first; exit 0']);
    },
    patience.testMs,
  );

  it(
    'a merge patch changing spec.template is refused the same way (what `kubectl apply` sends)',
    async () => {
      const name = uniqueName('conf-imm-patch');
      await createJob(name);
      const refused = await refusal(
        target.batch.patchNamespacedJob(
          {
            name,
            namespace: target.namespace,
            body: { spec: { template: { spec: { containers: [{ name: 'main', image: OTHER_IMAGE }] } } } },
          },
          setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
        ),
      );
      expectImmutable(refused, 'spec.template');
    },
    patience.testMs,
  );

  it(
    'changing spec.completionMode is refused: 422, spec.completionMode is immutable',
    async () => {
      const name = uniqueName('conf-imm-mode');
      const job = await createJob(name);
      expect(job.spec?.completionMode).toBe('NonIndexed'); // the server's default
      const refused = await refusal(
        target.batch.patchNamespacedJob(
          { name, namespace: target.namespace, body: { spec: { completionMode: 'Indexed' } } },
          setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
        ),
      );
      expectImmutable(refused, 'spec.completionMode');
    },
    patience.testMs,
  );

  it(
    'changing only mutable fields (labels, annotations) of the same Job succeeds',
    async () => {
      const name = uniqueName('conf-imm-ok');
      await createJob(name);
      const patched = await target.batch.patchNamespacedJob(
        { name, namespace: target.namespace, body: { metadata: { annotations: { note: 'mutable' } } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      expect(patched.metadata?.annotations?.note).toBe('mutable');
    },
    patience.testMs,
  );
});

describe('immutable fields of a Deployment', () => {
  function deployment(name: string, app: string): V1Deployment {
    return {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: target.namespace, labels: { ...target.labels } },
      spec: {
        replicas: 0, // no pods: only the API object matters here
        selector: { matchLabels: { app } },
        template: {
          metadata: { labels: { ...target.labels, app } },
          spec: { containers: [{ name: 'main', image: IMAGE, command: ['sh', '-c', 'sleep 3600'] }] },
        },
      },
    };
  }

  it(
    'changing spec.selector (with matching template labels) is refused: 422, spec.selector is immutable',
    async () => {
      const name = uniqueName('conf-imm-deploy');
      const created = await target.apps.createNamespacedDeployment({
        namespace: target.namespace,
        body: deployment(name, 'one'),
      });
      const changed = structuredClone(created);
      delete changed.metadata!.resourceVersion; // unconditional: the controller writes status meanwhile
      changed.spec!.selector = { matchLabels: { app: 'two' } };
      changed.spec!.template.metadata = { labels: { ...target.labels, app: 'two' } };
      const refused = await refusal(
        target.apps.replaceNamespacedDeployment({ name, namespace: target.namespace, body: changed }),
      );
      expectImmutable(refused, 'spec.selector');
    },
    patience.testMs,
  );

  it(
    'changing the template of a Deployment is allowed (it rolls out)',
    async () => {
      const name = uniqueName('conf-imm-roll');
      const created = await target.apps.createNamespacedDeployment({
        namespace: target.namespace,
        body: deployment(name, 'roll'),
      });
      const changed = structuredClone(created);
      delete changed.metadata!.resourceVersion; // unconditional: the controller writes status meanwhile
      changed.spec!.template.spec!.containers[0]!.image = OTHER_IMAGE;
      const replaced = await target.apps.replaceNamespacedDeployment({
        name,
        namespace: target.namespace,
        body: changed,
      });
      expect(replaced.spec?.template.spec?.containers[0]?.image).toBe(OTHER_IMAGE);
      expect(replaced.metadata?.generation).toBe((created.metadata?.generation ?? 0) + 1);
    },
    patience.testMs,
  );
});

describe('immutable fields of a Pod', () => {
  async function createPod(name: string): Promise<V1Pod> {
    return target.core.createNamespacedPod({
      namespace: target.namespace,
      body: podManifest(target, name, 'sleep 3600'),
    });
  }

  it(
    'changing a container command is refused: 422 on spec, naming the fields that may change',
    async () => {
      const name = uniqueName('conf-imm-pod');
      await createPod(name);
      const refused = await refusal(
        target.core.patchNamespacedPod(
          {
            name,
            namespace: target.namespace,
            body: { spec: { containers: [{ name: 'main', command: ['sh', '-c', 'sleep 60'] }] } },
          },
          setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
        ),
      );
      expect(refused.code).toBe(422);
      expect(refused.status.reason).toBe('Invalid');
      const cause = refused.status.details?.causes?.find((c) => c.field === 'spec');
      expect(cause?.reason).toBe('FieldValueForbidden');
      expect(cause?.message).toContain(
        'pod updates may not change fields other than `spec.containers[*].image`',
      );
    },
    patience.testMs,
  );

  it(
    'changing a container image is allowed',
    async () => {
      const name = uniqueName('conf-imm-img');
      await createPod(name);
      const patched = await target.core.patchNamespacedPod(
        {
          name,
          namespace: target.namespace,
          body: { spec: { containers: [{ name: 'main', image: OTHER_IMAGE }] } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      );
      expect(patched.spec?.containers[0]?.image).toBe(OTHER_IMAGE);
      expect(patched.spec?.containers[0]?.command).toEqual(['sh', '-c', 'sleep 3600']);
    },
    patience.testMs,
  );
});
