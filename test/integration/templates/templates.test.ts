import { ManifestApplier } from '../../../cluster/manifest-processor/src/apply.js';
import { JOBS_PREFIX, jobRoutes } from '../../../cluster/manifest-processor/src/jobs/routes.js';
import { JobsService } from '../../../cluster/manifest-processor/src/jobs/service.js';
import {
  MANIFESTS_PREFIX,
  manifestRoutes,
} from '../../../cluster/manifest-processor/src/manifests/routes.js';
import { loadPolicyConfig, ValidationPolicy } from '../../../cluster/manifest-processor/src/policy/index.js';
import { ResourceService } from '../../../cluster/manifest-processor/src/resources.js';
import {
  templateRoutes,
  TEMPLATES_PREFIX,
  TemplateStore,
} from '../../../cluster/manifest-processor/src/templates/index.js';
import type { Service } from '../../../cluster/shared/service.js';
import { startLocalDynamo, type LocalDynamo } from '../../../local/dynamodb.js';
import {
  kubeConfigFor,
  startKubeApiSimulator,
  type KubeApiSimulator,
} from '../../../local/kube-api-simulator/index.js';
import { IMAGE, POLICY_ENV } from '../../support/cluster-fixtures.js';
import { startPluginService } from '../../support/plugin-service.js';
import { signedCaller, type SignedCall } from '../../support/signed-call.js';

/** A template with placeholders in every position the rules cover. */
function trainingTemplate(name = 'training') {
  return {
    name,
    description: 'Batch training job',
    parameters: { image: IMAGE, epochs: 3, parallelism: 1, message: 'hello', extra_env: [] },
    manifest: {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'ignored', namespace: 'ignored-too', labels: { app: 'train', run: '{{name}}' } },
      spec: {
        parallelism: '{{parallelism}}',
        backoffLimit: 0,
        template: {
          spec: {
            restartPolicy: 'Never',
            containers: [
              {
                name: 'main',
                image: '{{image}}',
                command: ['sh', '-c', 'echo {{message}}', '{{message}}'],
                args: ['--epochs={{epochs}}', '--ns={{ namespace }}'],
                env: '{{extra_env}}',
                resources: { requests: { cpu: '500m', memory: '256Mi' } },
              },
            ],
          },
        },
      },
    },
  };
}

describe('job templates', () => {
  let dynamo: LocalDynamo;
  let sim: KubeApiSimulator;
  let service: Service;
  let call: SignedCall;

  beforeAll(async () => {
    dynamo = await startLocalDynamo();
    sim = await startKubeApiSimulator({ kubelet: { pendingMs: 30, runningMs: 60 } });
    const kubeConfig = kubeConfigFor(sim.url);
    const policy = new ValidationPolicy(loadPolicyConfig(POLICY_ENV));
    const templates = new TemplateStore(dynamo.client(), dynamo.env.JOB_TEMPLATES_TABLE ?? '');
    const started = await startPluginService({
      description: 'templates test instance',
      // Mounted next to the existing jobs/manifests routes, as the app will mount them.
      routes: async (app) => {
        const ctx = {
          config: { clusterName: 'sim', region: 'us-east-1', defaultJobNamespace: 'svc-jobs' },
          kubeConfig,
          policy,
          applier: new ManifestApplier(kubeConfig, policy),
          jobs: new JobsService(kubeConfig),
          resources: new ResourceService(kubeConfig),
        };
        await app.register(manifestRoutes, { ...ctx, prefix: MANIFESTS_PREFIX });
        await app.register(jobRoutes, { ...ctx, prefix: JOBS_PREFIX });
        await app.register(templateRoutes, {
          prefix: TEMPLATES_PREFIX,
          templates,
          applier: ctx.applier,
          jobs: ctx.jobs,
          policy,
        });
      },
    });
    service = started.service;
    call = signedCaller(started.base);
  });
  afterAll(async () => {
    await service?.app.close();
    await sim?.close();
    await dynamo?.close();
  });

  const simJob = (name: string, namespace = 'svc-jobs') => sim.get('batch/v1', 'Job', namespace, name);

  test('CRUD: create, 409 on a duplicate name, get, list, delete, 404 when missing', async () => {
    const created = await call('POST', '/api/v1/templates', trainingTemplate('crud'));
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      name: 'crud',
      description: 'Batch training job',
      parameters: trainingTemplate().parameters,
      manifest: trainingTemplate().manifest,
      placeholders: ['name', 'parallelism', 'image', 'message', 'epochs', 'namespace', 'extra_env'],
    });
    expect(created.body.created_at).toBe(created.body.updated_at);
    expect(Number.isNaN(Date.parse(created.body.created_at))).toBe(false);

    const again = await call('POST', '/api/v1/templates', {
      ...trainingTemplate('crud'),
      description: 'other',
    });
    expect(again).toMatchObject({ status: 409, body: { detail: 'Template crud already exists' } });
    expect((await call('GET', '/api/v1/templates/crud')).body.description).toBe('Batch training job');

    await call('POST', '/api/v1/templates', {
      name: 'a-minimal',
      manifest: { apiVersion: 'batch/v1', kind: 'Job' },
    });
    const list = await call('GET', '/api/v1/templates');
    expect(list.status).toBe(200);
    expect(list.body.templates.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(['a-minimal', 'crud']),
    );
    const minimal = list.body.templates.find((t: { name: string }) => t.name === 'a-minimal');
    expect(minimal).toMatchObject({ description: null, parameters: null, placeholders: [] });

    expect(await call('DELETE', '/api/v1/templates/crud')).toMatchObject({
      status: 200,
      body: { deleted: true, name: 'crud' },
    });
    expect(await call('GET', '/api/v1/templates/crud')).toMatchObject({
      status: 404,
      body: { detail: 'Template crud not found' },
    });
    expect((await call('DELETE', '/api/v1/templates/crud')).status).toBe(404);
    expect((await call('POST', '/api/v1/jobs/from-template/crud', { name: 'x' })).status).toBe(404);
  });

  test('operation ids of the seed; a template too big for one DynamoDB item is a 413', async () => {
    const doc = await call('GET', '/openapi.json');
    const ops = Object.values(
      doc.body.paths as Record<string, Record<string, { operationId: string }>>,
    ).flatMap((p) => Object.values(p).map((o) => o.operationId));
    expect(ops).toEqual(
      expect.arrayContaining([
        'list_templates_api_v1_templates_get',
        'create_template_api_v1_templates_post',
        'get_template_api_v1_templates__name__get',
        'delete_template_api_v1_templates__name__delete',
        'create_job_from_template_api_v1_jobs_from_template__name__post',
      ]),
    );
    const big = trainingTemplate('big');
    big.manifest.metadata.labels.app = 'd'.repeat(400 * 1024);
    expect((await call('POST', '/api/v1/templates', big)).status).toBe(413);
    expect((await call('GET', '/api/v1/templates/big')).status).toBe(404);
  });

  const manifest = { apiVersion: 'batch/v1', kind: 'Job' };
  test.each([
    ['name too long', { name: 'x'.repeat(64), manifest }, ['body', 'name'], 'string_too_long'],
    ['name empty', { name: '', manifest }, ['body', 'name'], 'string_too_short'],
    ['name not a string', { name: 7, manifest }, ['body', 'name'], 'string_type'],
    ['manifest missing', { name: 'm' }, ['body', 'manifest'], 'missing'],
    ['manifest not an object', { name: 'm', manifest: [1] }, ['body', 'manifest'], 'dict_type'],
    [
      'parameters not an object',
      { name: 'm', manifest, parameters: 'x' },
      ['body', 'parameters'],
      'dict_type',
    ],
    [
      'description not a string',
      { name: 'm', manifest, description: 1 },
      ['body', 'description'],
      'string_type',
    ],
    ['unknown field', { name: 'm', manifest, paramters: {} }, ['body', 'paramters'], 'extra_forbidden'],
    [
      'not a Job',
      { name: 'm', manifest: { apiVersion: 'v1', kind: 'Pod' } },
      ['body', 'manifest', 'kind'],
      'literal_error',
    ],
    [
      'kind from a placeholder',
      { name: 'm', manifest: { apiVersion: 'batch/v1', kind: '{{kind}}' } },
      ['body', 'manifest', 'kind'],
      'literal_error',
    ],
    [
      'placeholder in a key',
      { name: 'm', manifest: { ...manifest, metadata: { labels: { '{{k}}': 'v' } } } },
      ['body', 'manifest', 'metadata', 'labels', '{{k}}'],
      'value_error',
    ],
  ])('create 422: %s', async (_label, body, loc, type) => {
    const res = await call('POST', '/api/v1/templates', body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
  });

  test('a too deep template is refused before it is walked', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 40; i++) deep = { d: deep };
    const res = await call('POST', '/api/v1/templates', {
      name: 'deep',
      manifest: { ...manifest, spec: deep },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].msg).toMatch(/nesting deeper than/);
  });

  test('from-template: defaults, overrides, structural substitution, name/namespace from the request', async () => {
    expect((await call('POST', '/api/v1/templates', trainingTemplate())).status).toBe(200);
    const evil = '"}, "evil": {"x": "';
    const res = await call('POST', '/api/v1/jobs/from-template/training', {
      name: 'train-1',
      parameters: { epochs: 10, message: evil, extra_env: [{ name: 'MODE', value: 'fast' }] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      template: 'training',
      resources: [{ kind: 'Job', name: 'train-1', namespace: 'svc-jobs', status: 'created' }],
      job: { name: 'train-1', namespace: 'svc-jobs', uid: expect.any(String) },
    });

    const job = simJob('train-1')!;
    expect(job.metadata.labels).toMatchObject({
      app: 'train',
      run: 'train-1',
      'gco.dev/template': 'training',
    });
    const spec = job.spec as {
      parallelism: unknown;
      template: { spec: { containers: Record<string, unknown>[] } };
    };
    expect(spec.parallelism).toBe(1); // a number, not "1"
    const container = spec.template.spec.containers[0]!;
    expect(container.image).toBe(IMAGE);
    expect(container.command).toEqual(['sh', '-c', `echo ${evil}`, evil]);
    expect(container.args).toEqual(['--epochs=10', '--ns=svc-jobs']);
    expect(container.env).toEqual([{ name: 'MODE', value: 'fast' }]);
    expect(JSON.stringify(job)).not.toContain('"evil":');

    const other = await call('POST', '/api/v1/jobs/from-template/training', {
      name: 'train-2',
      namespace: 'default',
      parameters: { parallelism: 2 },
    });
    expect(other.status).toBe(200);
    const second = simJob('train-2', 'default')!;
    expect((second.spec as { parallelism: unknown }).parallelism).toBe(2);
    expect(simJob('train-2', 'ignored-too')).toBeUndefined();
    const viaJobs = await call('GET', '/api/v1/jobs/default/train-2');
    expect(viaJobs.body).toMatchObject({ name: 'train-2', labels: { 'gco.dev/template': 'training' } });
  });

  test('template names of any 1–63 characters and name/namespace defaults are accepted, as the spec allows', async () => {
    const template = {
      ...trainingTemplate('Nightly Training #1'),
      parameters: { ...trainingTemplate().parameters, name: 'default-name', namespace: 'default' },
    };
    const created = await call('POST', '/api/v1/templates', template);
    expect(created.status).toBe(200);
    const path = `/api/v1/jobs/from-template/${encodeURIComponent('Nightly Training #1')}`;
    // The request's name and namespace supersede the template's defaults for {{name}} and {{namespace}}.
    const job = await call('POST', path, { name: 'nightly-1' });
    expect(job.status).toBe(200);
    const applied = simJob('nightly-1')!;
    expect(applied.metadata.labels).toMatchObject({ run: 'nightly-1' });
    // Not a valid label value: named by the annotation only.
    expect(applied.metadata.labels).not.toHaveProperty(['gco.dev/template']);
    expect(applied.metadata.annotations).toMatchObject({ 'gco.dev/template': 'Nightly Training #1' });
    // An override equal to the request's own field is no conflict.
    const same = await call('POST', path, { name: 'nightly-2', parameters: { name: 'nightly-2' } });
    expect(same.status).toBe(200);
    expect((await call('GET', `/api/v1/templates/${encodeURIComponent('Nightly Training #1')}`)).status).toBe(
      200,
    );
  });

  test('an existing job name is a 409 and the job is left alone', async () => {
    await call('POST', '/api/v1/templates', trainingTemplate('dup'));
    expect((await call('POST', '/api/v1/jobs/from-template/dup', { name: 'dup-job' })).status).toBe(200);
    const uid = simJob('dup-job')!.metadata.uid;
    const again = await call('POST', '/api/v1/jobs/from-template/dup', {
      name: 'dup-job',
      parameters: { epochs: 99 },
    });
    expect(again).toMatchObject({ status: 409, body: { detail: 'Job svc-jobs/dup-job already exists' } });
    expect(simJob('dup-job')!.metadata.uid).toBe(uid);
  });

  test('unresolved placeholders and objects inside strings are 422s naming the parameter', async () => {
    await call('POST', '/api/v1/templates', {
      name: 'needs-params',
      parameters: { image: IMAGE },
      manifest: {
        ...trainingTemplate().manifest,
        spec: {
          template: {
            spec: {
              restartPolicy: 'Never',
              containers: [{ name: 'm', image: '{{image}}', command: ['run', '{{dataset}}', 'x={{shard}}'] }],
            },
          },
        },
      },
    });
    const missing = await call('POST', '/api/v1/jobs/from-template/needs-params', { name: 'np' });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'parameters', 'dataset'], type: 'missing' }),
      expect.objectContaining({ loc: ['body', 'parameters', 'shard'], type: 'missing' }),
    ]);
    expect(missing.body.detail[0].msg).toContain('{{dataset}}');
    expect(missing.body.detail[0].msg).toContain('spec.template.spec.containers[0].command[1]');

    const objectInString = await call('POST', '/api/v1/jobs/from-template/needs-params', {
      name: 'np',
      parameters: { dataset: 's3://bucket/x', shard: { n: 1 } },
    });
    expect(objectInString.status).toBe(422);
    expect(objectInString.body.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'parameters', 'shard'], type: 'value_error' }),
    ]);
    expect(simJob('np')).toBeUndefined();
  });

  test.each([
    ['job name too long', { name: 'j'.repeat(64) }, ['body', 'name'], 'string_too_long'],
    ['job name missing', {}, ['body', 'name'], 'missing'],
    ['job name not a DNS label', { name: 'Job.1' }, ['body', 'name'], 'string_pattern_mismatch'],
    ['parameters not an object', { name: 'j', parameters: [1] }, ['body', 'parameters'], 'dict_type'],
    [
      'reserved parameter',
      { name: 'j', parameters: { name: 'other' } },
      ['body', 'parameters', 'name'],
      'value_error',
    ],
    ['unknown field', { name: 'j', params: {} }, ['body', 'params'], 'extra_forbidden'],
  ])('from-template 422: %s', async (_label, body, loc, type) => {
    await call('POST', '/api/v1/templates', trainingTemplate('for-422'));
    const res = await call('POST', '/api/v1/jobs/from-template/for-422', body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
  });

  test('the job passes the same policy as a submission: untrusted images and namespaces are 400s', async () => {
    await call('POST', '/api/v1/templates', trainingTemplate('policy'));
    const image = await call('POST', '/api/v1/jobs/from-template/policy', {
      name: 'evil-image',
      parameters: { image: 'evil.example.com/miner:latest' },
    });
    expect(image.status).toBe(400);
    expect(image.body).toMatchObject({
      success: false,
      template: 'policy',
      resources: [{ name: 'evil-image', status: 'failed' }],
    });
    expect(image.body.violations.length).toBeGreaterThan(0);
    expect(JSON.stringify(image.body.violations)).toContain('evil.example.com');
    expect(simJob('evil-image')).toBeUndefined();

    const hardcoded = trainingTemplate('hardcoded');
    hardcoded.manifest.spec.template.spec.containers[0]!.image = 'docker.io/someone/unknown:1';
    await call('POST', '/api/v1/templates', hardcoded);
    const res = await call('POST', '/api/v1/jobs/from-template/hardcoded', { name: 'hc' });
    expect(res.status).toBe(400);
    expect(simJob('hc')).toBeUndefined();

    const namespace = await call('POST', '/api/v1/jobs/from-template/policy', {
      name: 'sys',
      namespace: 'kube-system',
    });
    expect(namespace.status).toBe(400);
    expect(simJob('sys', 'kube-system')).toBeUndefined();
  });
});
