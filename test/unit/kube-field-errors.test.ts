/**
 * The recognisers of cluster/shared/kube-field-errors.ts on the Status bodies a real Kubernetes 1.34 API
 * server sends (texts from kubernetes/kubernetes v1.34 handlers and kubernetes/kubernetes#139253), including
 * the keyed list paths of structured-merge-diff that the local simulator does not produce.
 */
import { fieldRefusalOf, userPathOfSmdPath } from '../../cluster/shared/kube-field-errors.js';

const job = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'x' },
  spec: {
    template: {
      spec: {
        containers: [
          { name: 'side', image: 'a' },
          { name: 'main', image: 'b', ports: [{ containerPort: 80, protocol: 'TCP', bogus: 1 }] },
        ],
      },
    },
  },
};

describe('field refusals of a real API server', () => {
  test('strict decoding 400 (POST / PUT / PATCH with fieldValidation=Strict): every unknown and duplicate path', () => {
    expect(
      fieldRefusalOf(
        {
          code: 400,
          reason: 'BadRequest',
          message:
            'Job in version "v1" cannot be handled as a Job: strict decoding error: unknown field "spec.backofLimit", unknown field "spec.template.spec.containers[0].comand", duplicate field "metadata.name"',
        },
        job,
      ),
    ).toEqual({
      kind: 'unknown_fields',
      unknown: ['spec.backofLimit', 'spec.template.spec.containers[0].comand'],
      duplicate: ['metadata.name'],
    });
  });

  test('server-side apply 500 (kubernetes/kubernetes#139253): smd paths, keyed items resolved to indexes', () => {
    const message = [
      'failed to create typed patch object (svc-jobs/x; batch/v1, Kind=Job): errors:',
      '  .spec.backofLimit: field not declared in schema',
      '  .spec.template.spec.containers[name="main"].comand: field not declared in schema',
      '  .spec.template.spec.containers[name="main"].ports[containerPort=80,protocol="TCP"].bogus: field not declared in schema',
    ].join('\n');
    expect(fieldRefusalOf({ code: 500, reason: 'InternalError', message }, job)).toEqual({
      kind: 'unknown_fields',
      unknown: [
        'spec.backofLimit',
        'spec.template.spec.containers[1].comand',
        'spec.template.spec.containers[1].ports[0].bogus',
      ],
      duplicate: [],
    });
  });

  test('a single SSA error has no "errors:" header', () => {
    expect(
      fieldRefusalOf(
        {
          code: 500,
          reason: 'InternalError',
          message:
            'failed to create typed patch object (svc-jobs/x; batch/v1, Kind=Job): .spec.backofLimit: field not declared in schema',
        },
        job,
      ),
    ).toEqual({ kind: 'unknown_fields', unknown: ['spec.backofLimit'], duplicate: [] });
  });

  test('an unresolvable key keeps the server’s selector', () => {
    expect(userPathOfSmdPath('.spec.template.spec.containers[name="gone"].comand', job)).toBe(
      'spec.template.spec.containers[name="gone"].comand',
    );
    expect(userPathOfSmdPath('.metadata.finalizers[="a"]', job)).toBe('metadata.finalizers[="a"]');
  });

  test('immutable 422: the fields of its causes', () => {
    expect(
      fieldRefusalOf(
        {
          code: 422,
          reason: 'Invalid',
          message:
            'Job.batch "x" is invalid: spec.template: Invalid value: core.PodTemplateSpec{...}: field is immutable',
          details: {
            causes: [
              {
                reason: 'FieldValueInvalid',
                message: 'Invalid value: core.PodTemplateSpec{...}: field is immutable',
                field: 'spec.template',
              },
            ],
          },
        },
        job,
      ),
    ).toEqual({ kind: 'immutable_fields', fields: ['spec.template'] });
  });

  test('other failures are not field refusals', () => {
    for (const status of [
      { code: 500, reason: 'InternalError', message: 'etcdserver: request timed out' },
      { code: 400, reason: 'BadRequest', message: 'the server rejected our request' },
      {
        code: 422,
        reason: 'Invalid',
        message:
          'Job.batch "x" is invalid: spec.parallelism: Invalid value: -1: must be greater than or equal to 0',
        details: { causes: [{ field: 'spec.parallelism', message: 'Invalid value: -1: must be >= 0' }] },
      },
      { code: 409, reason: 'AlreadyExists', message: 'jobs.batch "x" already exists' },
    ])
      expect(fieldRefusalOf(status, job)).toBeUndefined();
  });
});
