/**
 * The API server's own field rules through manifest-processor (signed requests, Kubernetes API simulator):
 * unknown fields are refused with their path (fieldValidation=Strict), a changed immutable field is
 * refused as immutable with what to do, and submit, dry_run and validate give the same answer.
 * Real server behaviour: https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation
 */
import { signEnvelope } from '../../../contracts/envelope/envelope.js';
import { jobManifest, KEY } from '../../support/cluster-fixtures.js';
import { startHarness, type Harness } from './harness.js';

type Job = ReturnType<typeof jobManifest>;

/** The three misspellings of issue 22, each with the path the answer must name. */
const MISSPELLINGS: { what: string; path: string; edit: (job: Job) => void }[] = [
  {
    what: 'spec.backofLimit (backoffLimit)',
    path: 'spec.backofLimit',
    edit: (job) => {
      const spec = job.spec as Record<string, unknown>;
      delete spec.backoffLimit;
      spec.backofLimit = 2;
    },
  },
  {
    what: 'a container’s comand (command)',
    path: 'spec.template.spec.containers[0].comand',
    edit: (job) => {
      const container = job.spec.template.spec.containers[0] as Record<string, unknown>;
      container.comand = container.command;
      delete container.command;
    },
  },
  {
    what: 'contianers (containers)',
    path: 'spec.template.spec.contianers',
    edit: (job) => {
      const spec = job.spec.template.spec as Record<string, unknown>;
      spec.contianers = spec.containers;
      delete spec.containers;
    },
  },
];

function misspelt(name: string, edit: (job: Job) => void): Job {
  const job = jobManifest(name);
  edit(job);
  return job;
}

describe('manifest-processor: the API server’s field rules', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  test.each(MISSPELLINGS)(
    '$what: refused with its path by submit, dry_run and validate alike',
    async ({ path, edit }) => {
      const name = `typo-${path.length}`;
      const body = { manifests: [misspelt(name, edit)], namespace: 'svc-jobs' };

      const submit = await h.call('POST', '/api/v1/manifests', body);
      expect(submit.status).toBe(400);
      expect(submit.body).toMatchObject({ success: false, resources: [{ index: 0, status: 'failed' }] });
      const message: string = submit.body.resources[0].message;
      expect(message).toContain(`unknown field "${path}"`);
      expect(h.sim.get('batch/v1', 'Job', 'svc-jobs', name)).toBeUndefined();

      const dryRun = await h.call('POST', '/api/v1/manifests', { ...body, dry_run: true });
      expect(dryRun.status).toBe(400);
      expect(dryRun.body.resources).toEqual(submit.body.resources);

      const validate = await h.call('POST', '/api/v1/manifests/validate', body);
      expect([validate.status, validate.body.valid]).toEqual([200, false]);
      expect(validate.body.resources).toEqual(submit.body.resources);
      expect(h.sim.get('batch/v1', 'Job', 'svc-jobs', name)).toBeUndefined();
    },
  );

  test('contianers: the unknown field comes before the policy’s own "needs at least one container"', async () => {
    const res = await h.call('POST', '/api/v1/manifests', {
      manifests: [misspelt('no-containers', MISSPELLINGS[2]!.edit)],
      namespace: 'svc-jobs',
    });
    expect(res.status).toBe(400);
    const message: string = res.body.resources[0].message;
    expect(message.indexOf('unknown field "spec.template.spec.contianers"')).toBe(0);
    expect(message).toContain('a pod spec needs at least one container');
    expect(res.body.violations).toEqual([
      expect.objectContaining({ rule: 'manifest_shape', field: 'spec.template.spec.containers' }),
    ]);
  });

  test('every unknown field of a manifest is named at once', async () => {
    const job = misspelt('two-typos', (j) => {
      MISSPELLINGS[0]!.edit(j);
      MISSPELLINGS[1]!.edit(j);
    });
    const res = await h.call('POST', '/api/v1/manifests', { manifests: [job], namespace: 'svc-jobs' });
    expect(res.status).toBe(400);
    expect(res.body.resources[0].message).toEqual(
      expect.stringContaining('unknown field "spec.backofLimit"'),
    );
    expect(res.body.resources[0].message).toEqual(
      expect.stringContaining('unknown field "spec.template.spec.containers[0].comand"'),
    );
  });

  test('a typo in a resubmitted (existing) Job is refused with its path, not as a server fault', async () => {
    const created = await h.call('POST', '/api/v1/manifests', {
      manifests: [jobManifest('existing-typo')],
      namespace: 'svc-jobs',
    });
    expect(created.body.resources[0]).toMatchObject({ status: 'created' });
    // Server-side apply answers this with 500 "field not declared in schema" (kubernetes/kubernetes#139253).
    const res = await h.call('POST', '/api/v1/manifests', {
      manifests: [misspelt('existing-typo', MISSPELLINGS[1]!.edit)],
      namespace: 'svc-jobs',
    });
    expect(res.status).toBe(400);
    expect(res.body.resources[0].message).toContain(
      'unknown field "spec.template.spec.containers[0].comand"',
    );
  });

  test('a field repeated in the request’s text is refused as the API server refuses it (parsing kept one)', async () => {
    const job = jobManifest('dup');
    const text = JSON.stringify({ manifests: [job], namespace: 'svc-jobs' })
      .replace('"backoffLimit":0', '"backoffLimit":0,"backoffLimit":6')
      .replace('"name":"main"', '"name":"main","name":"main"');
    const send = async (path: string) => {
      const res = await fetch(`${h.base}${path}`, {
        method: 'POST',
        headers: {
          ...signEnvelope({ key: KEY, method: 'POST', target: path, body: text }),
          'content-type': 'application/json',
        },
        body: text,
      });
      return { status: res.status, body: (await res.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- asserted below
    };
    const submit = await send('/api/v1/manifests');
    expect(submit.status).toBe(400);
    const message: string = submit.body.resources[0].message;
    expect(message).toContain('duplicate field "spec.backoffLimit"');
    expect(message).toContain('duplicate field "spec.template.spec.containers[0].name"');
    expect(message).not.toContain('"spec.template.spec.containers[0].image"');
    expect(message.match(/duplicate field/g)).toHaveLength(2);
    const validate = await send('/api/v1/manifests/validate');
    expect(validate.body.valid).toBe(false);
    expect(validate.body.resources).toEqual(submit.body.resources);
    expect(h.sim.get('batch/v1', 'Job', 'svc-jobs', 'dup')).toBeUndefined();
  });

  test('a refused namespace is never sent to the cluster, not even as a dry run', async () => {
    const job = misspelt('elsewhere', MISSPELLINGS[0]!.edit);
    const res = await h.call('POST', '/api/v1/manifests', { manifests: [job], namespace: 'kube-system' });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).not.toContain('unknown field');
    expect(res.body.violations[0]).toMatchObject({ rule: 'namespace_allowed' });
  });

  test('a resubmitted Job whose template changed is refused as immutable, with what to do; the old Job stays', async () => {
    const first = await h.call('POST', '/api/v1/manifests', {
      manifests: [jobManifest('immutable', { command: ['sh', '-c', 'echo one'] })],
      namespace: 'svc-jobs',
    });
    expect(first.body.resources[0]).toMatchObject({ status: 'created' });
    const uid = first.body.resources[0].uid as string;

    const again = await h.call('POST', '/api/v1/manifests', {
      manifests: [jobManifest('immutable', { command: ['sh', '-c', 'echo one'] })],
      namespace: 'svc-jobs',
    });
    expect(again.body.resources[0]).toMatchObject({ status: 'unchanged' });

    const changed = {
      manifests: [jobManifest('immutable', { command: ['sh', '-c', 'echo two'] })],
      namespace: 'svc-jobs',
    };
    for (const [path, extra] of [
      ['/api/v1/manifests', {}],
      ['/api/v1/manifests', { dry_run: true }],
      ['/api/v1/manifests/validate', {}],
    ] as const) {
      const res = await h.call('POST', path, { ...changed, ...extra });
      expect(res.status).toBe(path.endsWith('validate') ? 200 : 400);
      expect(res.body.resources[0]).toMatchObject({ status: 'failed' });
      const message: string = res.body.resources[0].message;
      expect(message).toContain('spec.template is immutable');
      expect(message).toContain('delete the job and resubmit it, or submit it under a new name');
    }
    const live = h.sim.get('batch/v1', 'Job', 'svc-jobs', 'immutable');
    expect(live?.metadata.uid).toBe(uid);
    expect(JSON.stringify(live)).toContain('echo one');
  });

  test('a valid Job is still created and runs to succeeded', async () => {
    const res = await h.call('POST', '/api/v1/manifests', {
      manifests: [jobManifest('valid-still-runs')],
      namespace: 'svc-jobs',
    });
    expect(res.status).toBe(200);
    expect(res.body.resources[0]).toMatchObject({ status: 'created' });
    const done = await h.waitFor(async () => {
      const job = await h.call('GET', '/api/v1/jobs/svc-jobs/valid-still-runs');
      return job.body.status === 'succeeded' ? job.body : undefined;
    });
    expect(done.status).toBe('succeeded');
  });
});
