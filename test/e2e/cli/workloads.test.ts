/**
 * `gco` end to end through the local platform (real SigV4 through the API Gateway emulator, the real
 * proxies, ALB router, services and Kubernetes API simulator): each control-plane command group run as
 * the real executable with `-o json`, asserting on the platform's state (read back through the edge),
 * not only on exit codes. One platform for the whole file.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { STACK_OUTPUTS, globalStackName, regionalStackName } from '../../../cli/stack-outputs.js';
import { startCloudFormationStandIn } from '../../../local/aws-stand-ins/index.js';
import { staticCredentialStore } from '../../../local/credentials.js';
import {
  LOCAL_ACCOUNT_ID,
  PROJECT,
  startLocalPlatform,
  type LocalPlatform,
} from '../../../local/platform.js';
import { gco, jsonLines, tempFile } from '../../integration/cli/support/gco-process.js';
import { edgeClient, poll, type EdgeClient } from '../support/edge.js';
import { JOB_YAML, localEnv } from './support/local-platform.js';

// Starts the whole local platform (services, emulators, esbuild bundles) and runs the real `gco`
// executable as child processes: tests and hooks get an explicit budget here; the hook that starts
// the platform and the longer tests name their own.
jest.setTimeout(30_000);

const REGION = 'us-east-1';

let platform: LocalPlatform;
let edge: EdgeClient;
let env: Record<string, string>;

beforeAll(async () => {
  platform = await startLocalPlatform({ analytics: false, kubelet: { pendingMs: 50, runningMs: 150 } });
  edge = edgeClient(platform);
  env = localEnv(platform);
}, 30_000);
afterAll(() => platform?.close());

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- API bodies in assertions

const run = (args: string[], extraEnv: Record<string, string> = {}) =>
  gco(['-o', 'json', ...args], { env: { ...env, ...extraEnv } });
const single = async (args: string[]): Promise<Json> => {
  const result = await run(args);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  return jsonLines(result)[0] as Json;
};

describe('jobs', () => {
  test('jobs submit FILE --wait returns once the job has succeeded; logs, events, pods, list, manifests, delete', async () => {
    const file = tempFile('hello.yaml', JOB_YAML('cli-hello', 'hello from gco'));
    const submitted = await run(['jobs', 'submit', file, '--wait']);
    expect(submitted.code).toBe(0);
    const [report, final] = jsonLines(submitted) as Json[];
    expect(report?.resources[0]).toMatchObject({
      kind: 'Job',
      namespace: 'svc-jobs',
      name: 'cli-hello',
      status: 'created',
    });
    expect(final).toMatchObject({ name: 'cli-hello', status: 'succeeded' });
    // The platform agrees at the moment gco returned.
    const state = await edge.global({ path: '/api/v1/jobs/svc-jobs/cli-hello' });
    expect([state.status, state.json.status, state.json.succeeded]).toEqual([200, 'succeeded', 1]);

    expect((await single(['jobs', 'logs', 'cli-hello'])).pods[0].logs).toContain('hello from gco');
    expect((await single(['jobs', 'events', 'cli-hello'])).events.map((e: Json) => e.reason)).toContain(
      'Completed',
    );
    expect((await single(['jobs', 'pods', 'cli-hello'])).pods[0]).toMatchObject({ phase: 'Succeeded' });
    expect((await single(['jobs', 'get', 'cli-hello'])).uid).toBe(state.json.uid);
    expect(
      (await single(['jobs', 'list', '-n', 'svc-jobs', '-l', 'app=gco-e2e'])).jobs.map((j: Json) => j.name),
    ).toContain('cli-hello');
    const merged = await single(['jobs', 'list', '--all-regions', '--status', 'succeeded']);
    expect(merged.jobs.find((j: Json) => j.name === 'cli-hello')).toMatchObject({ region: REGION });
    expect(
      (
        await single([
          'manifests',
          'get',
          'svc-jobs',
          'cli-hello',
          '--kind',
          'Job',
          '--api-version',
          'batch/v1',
        ])
      ).kind,
    ).toBe('Job');

    await single(['jobs', 'delete', 'cli-hello', '--expected-uid', String(state.json.uid)]);
    const gone = await poll(
      () => edge.global({ path: '/api/v1/jobs/svc-jobs/cli-hello' }),
      (reply) => reply.status === 404,
    );
    expect(gone.status).toBe(404);
  });

  test('jobs logs --follow prints the lines as the job writes them and returns when it has finished', async () => {
    expect(
      (await run(['jobs', 'submit', tempFile('f.yaml', JOB_YAML('cli-follow', 'followed line'))])).code,
    ).toBe(0);
    const followed = await gco(['jobs', 'logs', 'cli-follow', '--follow'], { env });
    expect(followed.code).toBe(0);
    expect(followed.stdout.split('\n').filter((l) => l === 'followed line')).toHaveLength(1);
    const state = await edge.global({ path: '/api/v1/jobs/svc-jobs/cli-follow' });
    expect(state.json.status).toBe('succeeded');
  });

  test('a failing job: --wait exits 1 naming it; retry creates a new job labelled as its retry', async () => {
    const failing = JOB_YAML('cli-fails', 'x').replace(
      'command: ["echo", "x"]',
      'command: ["sh", "-c", "exit 3"]',
    );
    const submitted = await run(['jobs', 'submit', tempFile('fail.yaml', failing), '--wait']);
    expect(submitted.code).toBe(1);
    expect(submitted.stderr).toContain('Not succeeded: svc-jobs/cli-fails failed');
    const retried = await single(['jobs', 'retry', 'cli-fails']);
    expect(retried.retried).toBe(true);
    const copy = await edge.global({ path: `/api/v1/jobs/svc-jobs/${String(retried.job.name)}` });
    expect(copy.json.labels['gco.dev/retry-of']).toBe('cli-fails');
  });

  test('bulk-delete --dry-run lists what it would delete and deletes nothing', async () => {
    const preview = await single([
      'jobs',
      'bulk-delete',
      '-n',
      'svc-jobs',
      '--status',
      'failed',
      '--dry-run',
    ]);
    expect(preview.dry_run).toBe(true);
    expect(preview.jobs.map((j: Json) => j.name)).toContain('cli-fails');
    expect((await edge.global({ path: '/api/v1/jobs/svc-jobs/cli-fails' })).status).toBe(200);
  });
});

describe('queue', () => {
  const manifest = () => tempFile('queued.yaml', JOB_YAML('cli-queued', 'queued through gco'));

  test('a submission retried with the same key is one job, dispatched and run once', async () => {
    const args = [
      'queue',
      'submit',
      manifest(),
      '--target-region',
      REGION,
      '--priority',
      '70',
      '-l',
      'run=e2e',
      '--idempotency-key',
      'cli-e2e-key',
    ];
    const first = await single(args);
    const retry = await single(args);
    expect(retry.job_id).toBe(first.job_id);
    expect([first.idempotent_replay, retry.idempotent_replay]).toEqual([false, true]);

    const final = await poll(
      () => edge.global({ path: `/api/v1/queue/jobs/${String(first.job_id)}` }),
      (reply) => reply.json?.status === 'succeeded',
      30_000,
    );
    expect(final.json).toMatchObject({ status: 'succeeded', priority: 70, labels: { run: 'e2e' } });
    const records = (
      await edge.global({ path: '/api/v1/queue/jobs', query: { limit: '1000' } })
    ).json.jobs.filter((j: Json) => j.idempotency_key === 'cli-e2e-key');
    expect(records).toHaveLength(1);
    const k8s = await edge.global({ path: '/api/v1/jobs', query: { namespace: 'svc-jobs' } });
    expect(k8s.json.jobs.filter((j: Json) => j.name === final.json.k8s.name)).toHaveLength(1);

    expect((await single(['queue', 'get', String(first.job_id)])).status).toBe('succeeded');
    expect(
      (await single(['queue', 'list', '--target-region', REGION])).jobs.map((j: Json) => j.job_id),
    ).toContain(first.job_id);
    expect((await single(['queue', 'stats'])).by_region[REGION].succeeded).toBeGreaterThanOrEqual(1);
  }, 40_000);

  test('without --idempotency-key a key is generated, printed and stored with the job', async () => {
    const result = await run(['queue', 'submit', manifest(), '--target-region', REGION, '--wait']);
    expect(result.code).toBe(0);
    const key = /idempotency key: (\S+)/.exec(result.stderr)?.[1];
    const [queued, final] = jsonLines(result) as Json[];
    expect(queued?.idempotency_key).toBe(key);
    expect(final?.status).toBe('succeeded');
  }, 40_000);

  test('a spot-gated job waits in the queue and can be cancelled; poll runs a worker pass', async () => {
    const gated = await single([
      'queue',
      'submit',
      manifest(),
      '--target-region',
      REGION,
      '--max-spot-price',
      '0.01',
      '--spot-instance-type',
      'm5.large',
    ]);
    const pass = await single(['queue', 'poll', '--limit', '5']);
    expect(pass.region).toBe(REGION);
    expect((await edge.global({ path: `/api/v1/queue/jobs/${String(gated.job_id)}` })).json.status).toBe(
      'queued',
    );
    const cancelled = await single(['queue', 'cancel', String(gated.job_id), '--reason', 'too expensive']);
    expect(cancelled).toMatchObject({ status: 'cancelled', cancel_reason: 'too expensive' });
    expect((await edge.global({ path: `/api/v1/queue/jobs/${String(gated.job_id)}` })).json.status).toBe(
      'cancelled',
    );
  });
});

test('templates: create from YAML, run with parameters until the job succeeds, delete', async () => {
  const template = JOB_YAML('{{name}}', 'epochs={{epochs}}');
  const created = await single([
    'templates',
    'create',
    'cli-template',
    tempFile('t.yaml', template),
    '--description',
    'e2e',
    '-p',
    'epochs=2',
  ]);
  expect(created.placeholders).toContain('epochs');
  expect((await single(['templates', 'list'])).templates.map((t: Json) => t.name)).toContain('cli-template');
  expect((await single(['templates', 'get', 'cli-template'])).parameters).toEqual({ epochs: 2 });

  const ran = await run([
    'templates',
    'run',
    'cli-template',
    '--name',
    'cli-from-template',
    '-p',
    'epochs=5',
    '--wait',
  ]);
  expect(ran.code).toBe(0);
  const logs = await edge.global({ path: '/api/v1/jobs/svc-jobs/cli-from-template/logs' });
  expect(logs.json.pods[0].logs).toContain('epochs=5');

  await single(['templates', 'delete', 'cli-template']);
  expect((await edge.global({ path: '/api/v1/templates/cli-template' })).status).toBe(404);
});

test('webhooks: create, list, delete', async () => {
  const created = await single([
    'webhooks',
    'create',
    '--url',
    'https://127.0.0.1:9/hook',
    '-e',
    'job.completed',
    '-n',
    'svc-jobs',
  ]);
  expect(created).toMatchObject({ events: ['job.completed'], namespace: 'svc-jobs', has_secret: false });
  expect((await single(['webhooks', 'list'])).webhooks.map((w: Json) => w.webhook_id)).toContain(
    created.webhook_id,
  );
  await single(['webhooks', 'delete', String(created.webhook_id), '--yes']);
  const left = await edge.global({ path: '/api/v1/webhooks' });
  expect(left.json.webhooks.map((w: Json) => w.webhook_id)).not.toContain(created.webhook_id);
});

test('costs, policy, status and health', async () => {
  const report = await single(['costs', 'report', '--window-hours', '1']);
  expect(report).toMatchObject({ kind: 'adhoc', region: REGION });
  expect((await single(['costs', 'reports', '--adhoc'])).reports.map((r: Json) => r.report_id)).toContain(
    report.report_id,
  );
  expect(await single(['costs', 'status'])).toHaveProperty('cost_data_source');
  expect(await single(['policy'])).toHaveProperty('policy');
  expect((await single(['status'])).regions[REGION].ok).toBe(true);
  expect((await single(['health'])).status).toBe('healthy');
  expect((await single(['--region', REGION, 'health'])).status).toBe('healthy');
});

describe('exit codes', () => {
  test('1: an API error, with the status and the API’s message on stderr', async () => {
    const result = await run(['jobs', 'get', 'no-such-job']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(
      'HTTP 404 from GET /api/v1/jobs/svc-jobs/no-such-job (global API): Job svc-jobs/no-such-job not found',
    );
  });

  test('2: bad usage, before any request', async () => {
    const result = await run(['queue', 'submit', 'job.yaml']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("required option '--target-region <region>' not specified");
  });

  test('3: no credentials, naming the variables to set', async () => {
    const result = await gco(['--api-url', platform.endpoints.apis.global, 'health']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/No AWS credentials/);
    expect(result.stderr).toMatch(/hint: Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
  });
});

describe('a deployed stage: the standard credential chain and CloudFormation discovery', () => {
  test('credentials from the environment, API from DescribeStacks, SigV4 accepted by the platform', async () => {
    const { credentials, apis, globalRegion } = platform.endpoints;
    const cloudformation = await startCloudFormationStandIn({
      accountId: LOCAL_ACCOUNT_ID,
      credentials: staticCredentialStore([
        {
          ...credentials,
          principal: {
            arn: `arn:aws:iam::${LOCAL_ACCOUNT_ID}:user/dev`,
            accountId: LOCAL_ACCOUNT_ID,
            userId: 'AIDADEV',
          },
        },
      ]),
    });
    try {
      cloudformation.putStack(globalRegion, {
        name: globalStackName(PROJECT),
        outputs: { [STACK_OUTPUTS.globalApiUrl]: apis.global },
      });
      cloudformation.putStack(REGION, {
        name: regionalStackName(PROJECT, REGION),
        outputs: { [STACK_OUTPUTS.regionalApiUrl]: apis.regional[REGION] ?? '' },
      });
      const deployed = {
        AWS_ACCESS_KEY_ID: credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        AWS_ENDPOINT_URL_CLOUDFORMATION: cloudformation.endpoint,
      };
      const health = await gco(['-o', 'json', 'health'], { env: deployed });
      expect(health.code).toBe(0);
      expect((jsonLines(health)[0] as Json).summary).toMatchObject({ total: 1, healthy: 1 });
      const regional = await gco(['-o', 'json', '--region', REGION, 'queue', 'stats'], { env: deployed });
      expect(regional.code).toBe(0);
      // The regional API signs for its own region: a wrong scope would have been a 403.
      expect(jsonLines(regional)[0]).toHaveProperty('by_region');
    } finally {
      await cloudformation.close();
    }
  });
});
