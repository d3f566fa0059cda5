// Conformance: server-side field validation of unknown fields (GA since Kubernetes 1.27).
// https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation
//   Strict: the request fails with 400 Bad Request naming every unknown field;
//   Warn (the default): the object is stored without the field, with a Warning header per field;
//   Ignore: the field is dropped silently.
// Messages: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go and update.go
// (transformDecodeError → `… cannot be handled as a Job: strict decoding error: unknown field "…"`),
// handlers/patch.go (merge patch: 422 with a `patch` cause holding the strict decoding error), and
// test/integration/apiserver/field_validation_test.go upstream for the full field paths.
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';

import { jobManifest, refusal, sendingVerbatim, uniqueName, warningsOf } from './kube.js';
import { patience, useTarget } from './target.js';

const target = useTarget();

/** A Job manifest as a user typed it: `spec.backofLimit` (typo of backoffLimit) instead of the real one. */
function withBackofLimit(name: string): Record<string, unknown> {
  const job = jobManifest(target, name, 'exit 0') as unknown as { spec: Record<string, unknown> };
  delete job.spec.backoffLimit;
  job.spec.backofLimit = 2;
  return job;
}

/** A Job manifest whose container says `comand` (typo of command). */
function withComand(name: string): Record<string, unknown> {
  const job = jobManifest(target, name, 'exit 0');
  const container = job.spec!.template.spec!.containers[0]! as unknown as Record<string, unknown>;
  container.comand = container.command;
  delete container.command;
  return job as unknown as Record<string, unknown>;
}

/** Creates `body` exactly as given (unknown fields included) with the given fieldValidation. */
function create(body: Record<string, unknown>, fieldValidation?: string, dryRun?: string) {
  return target.batch.createNamespacedJobWithHttpInfo(
    {
      namespace: target.namespace,
      body: body,
      ...(fieldValidation ? { fieldValidation } : {}),
      ...(dryRun ? { dryRun } : {}),
    },
    sendingVerbatim(body),
  );
}

async function expectNotStored(name: string): Promise<void> {
  const { code } = await refusal(target.batch.readNamespacedJob({ name, namespace: target.namespace }));
  expect(code).toBe(404);
}

describe('field validation: Strict', () => {
  it.each([
    ['spec.backofLimit', withBackofLimit],
    ['spec.template.spec.containers[0].comand', withComand],
  ])(
    'an unknown field %s is refused with 400 BadRequest naming its path, and nothing is stored',
    async (path, manifest) => {
      const name = uniqueName('conf-strict');
      const { code, status } = await refusal(create(manifest(name), 'Strict'));
      expect(code).toBe(400);
      expect(status).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
      expect(status.message).toContain(`strict decoding error: unknown field "${path}"`);
      expect(status.message).toContain('cannot be handled as a Job');
      await expectNotStored(name);
    },
    patience.testMs,
  );

  it(
    '`contianers` is refused as an unknown field (named), not as a pod without containers',
    async () => {
      const name = uniqueName('conf-strict-ctr');
      const job = jobManifest(target, name, 'exit 0') as unknown as {
        spec: { template: { spec: Record<string, unknown> } };
      };
      job.spec.template.spec.contianers = job.spec.template.spec.containers;
      delete job.spec.template.spec.containers;
      const { code, status } = await refusal(create(job, 'Strict'));
      expect(code).toBe(400);
      expect(status.message).toContain('unknown field "spec.template.spec.contianers"');
    },
    patience.testMs,
  );

  it(
    'every unknown field of one manifest is named in the one refusal',
    async () => {
      const name = uniqueName('conf-strict-two');
      const body = withComand(name) as { spec: Record<string, unknown> };
      body.spec.backofLimit = 2;
      const { code, status } = await refusal(create(body, 'Strict'));
      expect(code).toBe(400);
      expect(status.message).toContain('unknown field "spec.backofLimit"');
      expect(status.message).toContain('unknown field "spec.template.spec.containers[0].comand"');
    },
    patience.testMs,
  );

  it(
    'a dryRun=All create is refused the same way (what a validate call sends)',
    async () => {
      const name = uniqueName('conf-strict-dry');
      const { code, status } = await refusal(create(withBackofLimit(name), 'Strict', 'All'));
      expect(code).toBe(400);
      expect(status.message).toContain('unknown field "spec.backofLimit"');
    },
    patience.testMs,
  );

  it(
    'a valid Job passes Strict with no warnings',
    async () => {
      const name = uniqueName('conf-strict-ok');
      const answer = await create(
        jobManifest(target, name, 'exit 0') as unknown as Record<string, unknown>,
        'Strict',
      );
      expect(answer.httpStatusCode).toBe(201);
      expect(warningsOf(answer.headers)).toEqual([]);
      expect(answer.data.spec?.backoffLimit).toBe(0);
    },
    patience.testMs,
  );

  it(
    'a PUT with an unknown field is refused with 400, and the stored Job is unchanged',
    async () => {
      const name = uniqueName('conf-strict-put');
      const created = await target.batch.createNamespacedJob({
        namespace: target.namespace,
        body: jobManifest(target, name, 'exit 0'),
      });
      const body = structuredClone(created) as unknown as { metadata: Record<string, unknown> };
      delete body.metadata.resourceVersion; // an unconditional update: only the unknown field is wrong
      body.metadata.unknownMeta = 'x';
      const { code, status } = await refusal(
        target.batch.replaceNamespacedJob(
          { name, namespace: target.namespace, body: body, fieldValidation: 'Strict' },
          sendingVerbatim(body),
        ),
      );
      expect(code).toBe(400);
      expect(status.message).toContain('strict decoding error: unknown field "metadata.unknownMeta"');
    },
    patience.testMs,
  );

  it.each([
    ['merge patch', PatchStrategy.MergePatch],
    [
      'strategic merge patch (what `kubectl apply` sends for an existing object)',
      PatchStrategy.StrategicMergePatch,
    ],
  ])(
    'a %s with an unknown field is refused with 422 whose `patch` cause holds the strict decoding error',
    async (_kind, contentType) => {
      // handlers/patch.go: the patched object fails strict decoding → errors.NewInvalid(…,
      // field.Invalid(field.NewPath("patch"), …, "strict decoding error: …")), not a 400.
      const name = uniqueName('conf-strict-patch');
      await target.batch.createNamespacedJob({
        namespace: target.namespace,
        body: jobManifest(target, name, 'exit 0'),
      });
      const { code, status } = await refusal(
        target.batch.patchNamespacedJob(
          {
            name,
            namespace: target.namespace,
            body: { metadata: { annotations: { a: 'b' } }, spec: { backofLimit: 3 } },
            fieldValidation: 'Strict',
          },
          setHeaderOptions('Content-Type', contentType),
        ),
      );
      expect(code).toBe(422);
      expect(status.reason).toBe('Invalid');
      expect(status.message).toContain('strict decoding error: unknown field "spec.backofLimit"');
      expect(status.details?.causes?.map((c) => c.field)).toContain('patch');
      const stored = await target.batch.readNamespacedJob({ name, namespace: target.namespace });
      expect(stored.metadata?.annotations?.a).toBeUndefined();
    },
    patience.testMs,
  );

  it(
    'an unsupported fieldValidation value is refused with 422 on CreateOptions',
    async () => {
      const name = uniqueName('conf-strict-bad');
      const { code, status } = await refusal(create(withBackofLimit(name), 'Loose'));
      expect(code).toBe(422);
      expect(status.reason).toBe('Invalid');
      expect(status.details?.causes?.map((c) => c.field)).toContain('fieldValidation');
      await expectNotStored(name);
    },
    patience.testMs,
  );
});

describe('field validation: Warn (the default)', () => {
  it.each([undefined, 'Warn'])(
    'fieldValidation=%s stores the Job without the unknown field and warns naming it',
    async (fieldValidation) => {
      const name = uniqueName('conf-warn');
      const answer = await create(withBackofLimit(name), fieldValidation);
      expect(answer.httpStatusCode).toBe(201);
      expect(warningsOf(answer.headers)).toEqual(['unknown field "spec.backofLimit"']);
      const stored = await target.batch.readNamespacedJob({ name, namespace: target.namespace });
      // The misspelt value is gone and the real field has its default, not the 2 the user meant.
      expect(stored.spec?.backoffLimit).toBe(6);
      expect(JSON.stringify(stored)).not.toContain('backofLimit');
    },
    patience.testMs,
  );

  it(
    'a nested unknown field is warned with its full path',
    async () => {
      const name = uniqueName('conf-warn-ctr');
      const answer = await create(withComand(name), 'Warn');
      expect(answer.httpStatusCode).toBe(201);
      expect(warningsOf(answer.headers)).toEqual(['unknown field "spec.template.spec.containers[0].comand"']);
      expect(answer.data.spec?.template.spec?.containers[0]?.command).toBeUndefined();
    },
    patience.testMs,
  );
});

describe('field validation: Ignore', () => {
  it(
    'stores the Job without the unknown field and without any warning',
    async () => {
      const name = uniqueName('conf-ignore');
      const answer = await create(withBackofLimit(name), 'Ignore');
      expect(answer.httpStatusCode).toBe(201);
      expect(warningsOf(answer.headers)).toEqual([]);
      expect(answer.data.spec?.backoffLimit).toBe(6);
      expect(JSON.stringify(answer.data)).not.toContain('backofLimit');
    },
    patience.testMs,
  );
});
