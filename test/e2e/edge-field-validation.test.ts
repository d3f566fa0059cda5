/**
 * The API server's field rules as a caller of the global API sees them (SigV4, control-plane proxy,
 * accelerator, ALB, manifest-processor, Kubernetes API simulator), and as `gco jobs submit` prints them:
 * a misspelt field is refused naming its path (fieldValidation=Strict,
 * https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation); a resubmitted Job whose
 * template changed is refused as immutable, with what to do.
 */
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import { startLocalPlatform, type LocalPlatform } from '../../local/platform.js';
import { gco, tempFile } from '../integration/cli/support/gco-process.js';
import { JOB_YAML, localEnv } from './cli/support/local-platform.js';
import { edgeClient, type EdgeClient } from './support/edge.js';

// Starts the whole local platform in this process: the hook that starts it names its own budget.
jest.setTimeout(30_000);

let platform: LocalPlatform;
let edge: EdgeClient;

beforeAll(async () => {
  platform = await startLocalPlatform({ analytics: false, kubelet: { pendingMs: 50, runningMs: 150 } });
  edge = edgeClient(platform);
}, 30_000);
afterAll(() => platform?.close());

const JSON_HEADERS = { 'content-type': 'application/json' };

function job(name: string, message: string) {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      backoffLimit: 0,
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [
            { name: 'main', image: 'public.ecr.aws/docker/library/busybox:1.36', command: ['echo', message] },
          ],
        },
      },
    },
  };
}

const submit = (manifest: unknown) =>
  edge.global({
    method: 'POST',
    path: '/api/v1/manifests',
    headers: JSON_HEADERS,
    body: JSON.stringify({ manifests: [manifest], namespace: 'svc-jobs' }),
  });

test.each([
  ['spec.backofLimit', (j: ReturnType<typeof job>) => ({ ...j, spec: { ...j.spec, backofLimit: 2 } })],
  [
    'spec.template.spec.containers[0].comand',
    (j: ReturnType<typeof job>) => {
      const copy = structuredClone(j) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- edited in place
      copy.spec.template.spec.containers[0].comand = ['echo', 'x'];
      return copy;
    },
  ],
  [
    'spec.template.spec.contianers',
    (j: ReturnType<typeof job>) => {
      const copy = structuredClone(j) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- edited in place
      copy.spec.template.spec.contianers = copy.spec.template.spec.containers;
      delete copy.spec.template.spec.containers;
      return copy;
    },
  ],
])('through the global API, %s is refused with its path', async (path, edit) => {
  const reply = await submit(edit(job('edge-typo', 'never runs')));
  expect(reply.status).toBe(400);
  expect(reply.json.resources[0]).toMatchObject({ name: 'edge-typo', status: 'failed' });
  expect(reply.json.resources[0].message).toContain(`unknown field "${path}"`);
  const read = await edge.global({ path: '/api/v1/jobs/svc-jobs/edge-typo' });
  expect(read.status).toBe(404);
});

test('through the global API, a resubmitted Job whose template changed is refused as immutable', async () => {
  const first = await submit(job('edge-immutable', 'first'));
  expect([first.status, first.json.resources[0].status]).toEqual([200, 'created']);
  const changed = await submit(job('edge-immutable', 'second'));
  expect(changed.status).toBe(400);
  expect(changed.json.resources[0].status).toBe('failed');
  expect(changed.json.resources[0].message).toContain('spec.template is immutable');
  expect(changed.json.resources[0].message).toContain(
    'delete the job and resubmit it, or submit it under a new name',
  );
});

test('through the global API, a queued Job with a misspelt field is refused at submission, not queued', async () => {
  const manifest = {
    ...job('edge-queued-typo', 'never runs'),
    spec: { ...job('x', 'y').spec, backofLimit: 1 },
  };
  const reply = await edge.global({
    method: 'POST',
    path: '/api/v1/queue/jobs',
    headers: JSON_HEADERS,
    body: JSON.stringify({ manifest, target_region: platform.endpoints.region, namespace: 'svc-jobs' }),
  });
  expect(reply.status).toBe(400);
  expect(reply.json.detail).toContain('unknown field "spec.backofLimit"');
  const queued = await edge.global({ path: '/api/v1/queue/jobs' });
  expect(JSON.stringify(queued.json)).not.toContain('edge-queued-typo');
});

test('gco jobs submit prints the unknown field’s path and exits non-zero', async () => {
  const yaml = JOB_YAML('cli-typo', 'never runs').replace('backoffLimit: 0', 'backofLimit: 0');
  // The table a user sees on a terminal.
  const result = await gco(['-o', 'table', 'jobs', 'submit', '-n', 'svc-jobs', tempFile('typo.yaml', yaml)], {
    env: localEnv(platform),
  });
  expect(result.code).not.toBe(0);
  expect(result.stdout).toContain('unknown field "spec.backofLimit"');
  expect(result.stdout).toContain('failed');
  // stderr names it too, whatever the output format.
  expect(result.stderr).toContain('Not applied (HTTP 400)');
  expect(result.stderr).toContain('Job/cli-typo: unknown field "spec.backofLimit"');
});

test('gco jobs submit of a changed Job template says it is immutable and what to do', async () => {
  const env = localEnv(platform);
  const submitFile = (message: string) =>
    gco(
      [
        '-o',
        'json',
        'jobs',
        'submit',
        '-n',
        'svc-jobs',
        tempFile('job.yaml', JOB_YAML('cli-immutable', message)),
      ],
      {
        env,
      },
    );
  expect((await submitFile('first')).code).toBe(0);
  const again = await submitFile('second');
  expect(again.code).not.toBe(0);
  expect(again.stderr).toContain('Job/cli-immutable: spec.template is immutable');
  expect(again.stderr).toContain('delete the job and resubmit it, or submit it under a new name');
});
