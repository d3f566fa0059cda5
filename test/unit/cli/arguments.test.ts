/**
 * Argument parsing: what each command line puts on the wire (method, path, query, body, headers, which
 * API and signing region), the usage errors (exit 2), and the help conventions. gco runs in-process
 * against a loopback API that records the requests (support/run-in-process.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import type { CommandUnknownOpts } from '@commander-js/extra-typings';
import { createProgram } from '../../../cli/program.js';
import { VERSION } from '../../../cli/version.js';
import { endpointsFileFor, runGco, startRecordingApi, type RecordingApi } from './support/run-in-process.js';
import { suiteTempDir } from '../../support/suite-temp-dir.js';

let api: RecordingApi;
let endpoints: string;
let dir: string;

beforeAll(async () => {
  api = await startRecordingApi();
  endpoints = endpointsFileFor(api);
  dir = suiteTempDir('gco-cli-args-');
  writeFileSync(
    join(dir, 'two-jobs.yaml'),
    'apiVersion: batch/v1\nkind: Job\nmetadata: {name: a}\n---\n# empty documents are skipped\n---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: b}\n',
  );
  writeFileSync(
    join(dir, 'job.json'),
    JSON.stringify({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'q' } }),
  );
});
afterAll(() => api.close());
beforeEach(() => {
  api.requests.length = 0;
});

/** Runs against the recording API; resolves with the result and the one request it sent. */
async function sent(args: string[], stdin?: string) {
  const result = await runGco(['--endpoints-file', endpoints, '-o', 'json', ...args], {
    cwd: dir,
    ...(stdin ? { stdin } : {}),
  });
  expect(result).toMatchObject({ code: 0, stderr: expect.not.stringContaining('gco:') });
  expect(api.requests).toHaveLength(1);
  const request = api.requests[0]!;
  return { result, request, body: request.body === '' ? undefined : JSON.parse(request.body) };
}

describe('requests', () => {
  test('jobs list: filters become the query, in the global API, signed for the global region', async () => {
    const { request } = await sent([
      'jobs',
      'list',
      '-n',
      'team-a',
      '--status',
      'running',
      '--limit',
      '5',
      '-l',
      'app=x,tier=y',
    ]);
    expect(request.method).toBe('GET');
    expect(request.target).toBe(
      '/prod/api/v1/jobs?namespace=team-a&status=running&label_selector=app%3Dx%2Ctier%3Dy&limit=5',
    );
    expect(request.signedFor).toBe('us-east-2');
  });

  test('--all-regions goes to the aggregate route; --region pins the regional API and its signing region', async () => {
    expect((await sent(['jobs', 'list', '--all-regions', '--sort', 'name:asc'])).request.target).toBe(
      '/prod/api/v1/global/jobs?sort=name%3Aasc',
    );
    api.requests.length = 0;
    const { request } = await sent(['--region', 'us-west-2', 'queue', 'stats']);
    expect([request.target, request.signedFor]).toEqual(['/west/prod/api/v1/queue/stats', 'us-west-2']);
    api.requests.length = 0;
    // Global options are accepted after the command too.
    expect((await sent(['status', '--region', 'us-east-1'])).request.target).toBe(
      '/regional/prod/api/v1/status',
    );
  });

  test('jobs submit: every document of the files in one request, the default namespace, only documented fields', async () => {
    const { body, request } = await sent(['jobs', 'submit', 'two-jobs.yaml', 'job.json', '--dry-run']);
    expect([request.method, request.target]).toEqual(['POST', '/prod/api/v1/manifests']);
    expect(request.headers['content-type']).toBe('application/json');
    expect(body).toEqual({
      manifests: [
        { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'a' } },
        { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'b' } },
        { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'q' } },
      ],
      namespace: 'svc-jobs',
      dry_run: true,
    });
  });

  test('jobs submit --validate-only reads stdin and calls the validate route', async () => {
    const { body, request } = await sent(
      ['jobs', 'submit', '-', '--validate-only', '-n', 'team-b'],
      'kind: Job\napiVersion: batch/v1\n',
    );
    expect(request.target).toBe('/prod/api/v1/manifests/validate');
    expect(body).toEqual({ manifests: [{ kind: 'Job', apiVersion: 'batch/v1' }], namespace: 'team-b' });
  });

  test('job paths encode their segments; logs options map to the query', async () => {
    const { request } = await sent([
      'jobs',
      'logs',
      'train',
      '-n',
      'ns',
      '--tail',
      '20',
      '--timestamps',
      '--since',
      '60',
      '-c',
      'main',
    ]);
    expect(request.target).toBe(
      '/prod/api/v1/jobs/ns/train/logs?container=main&tail=20&since_seconds=60&timestamps=true',
    );
    api.requests.length = 0;
    expect((await sent(['jobs', 'pod-logs', 'train', 'train-x1', '--previous'])).request.target).toBe(
      '/prod/api/v1/jobs/svc-jobs/train/pods/train-x1/logs?tail=100&previous=true',
    );
    api.requests.length = 0;
    expect((await sent(['jobs', 'delete', 'a b', '--expected-uid', 'u-1'])).request.target).toBe(
      '/prod/api/v1/jobs/svc-jobs/a%20b?expected_uid=u-1',
    );
  });

  test('jobs logs and pod-logs take job/NAME back as -o name prints it; retry refuses another kind', async () => {
    expect((await sent(['jobs', 'logs', 'job/train'])).request.target).toMatch(
      /^\/prod\/api\/v1\/jobs\/svc-jobs\/train\/logs\?/,
    );
    api.requests.length = 0;
    expect((await sent(['jobs', 'pod-logs', 'job.batch/train', 'train-x1'])).request.target).toMatch(
      /^\/prod\/api\/v1\/jobs\/svc-jobs\/train\/pods\/train-x1\/logs\?/,
    );
    api.requests.length = 0;
    const refused = await runGco(['--endpoints-file', endpoints, 'jobs', 'retry', 'queuedjob/train']);
    expect(refused.code).toBe(2);
    expect(refused.stderr.split('\n')[0]).toBe(
      'gco: resource type mismatch: "queuedjob/train" is a queuedjob, not a job',
    );
    expect(api.requests).toHaveLength(0);
  });

  test('jobs bulk-delete sends only the filters given', async () => {
    const { body, request } = await sent([
      'jobs',
      'bulk-delete',
      '--status',
      'completed',
      '--older-than-days',
      '7',
      '--dry-run',
    ]);
    expect([request.method, request.target]).toEqual(['DELETE', '/prod/api/v1/jobs']);
    expect(body).toEqual({ dry_run: true, status: 'completed', older_than_days: 7 });
  });

  test('queue submit: the documented body, repeated labels, and a generated idempotency key that is printed', async () => {
    const { body, request, result } = await sent([
      'queue',
      'submit',
      'job.json',
      '--target-region',
      'us-east-1',
      '--priority',
      '80',
      '-l',
      'team=a',
      '-l',
      'run=7',
      '--max-spot-price',
      '0.4',
      '--spot-instance-type',
      'g5.xlarge',
    ]);
    expect(body).toEqual({
      manifest: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'q' } },
      target_region: 'us-east-1',
      priority: 80,
      labels: { team: 'a', run: '7' },
      max_spot_price: 0.4,
      spot_instance_type: 'g5.xlarge',
    });
    const key = String(request.headers['idempotency-key']);
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.stderr).toContain(`--idempotency-key ${key}`);
  });

  test('queue submit with --idempotency-key sends that key and prints nothing about it', async () => {
    const { request, result } = await sent([
      'queue',
      'submit',
      'job.json',
      '--target-region',
      'us-east-1',
      '--idempotency-key',
      'nightly-1',
    ]);
    expect(request.headers['idempotency-key']).toBe('nightly-1');
    expect(result.stderr).toBe('');
  });

  test('templates: --param values are typed YAML scalars', async () => {
    const { body, request } = await sent([
      'templates',
      'run',
      'train',
      '--name',
      'j1',
      '-p',
      'epochs=3',
      '-p',
      'debug=true',
      '-p',
      'tag="3"',
      '-p',
      'lr=0.5',
    ]);
    expect(request.target).toBe('/prod/api/v1/jobs/from-template/train');
    expect(body).toEqual({ name: 'j1', parameters: { epochs: 3, debug: true, tag: '3', lr: 0.5 } });
  });

  test('webhooks create: repeated events, de-duplicated', async () => {
    const { body } = await sent([
      'webhooks',
      'create',
      '--url',
      'https://hooks.example.com/x',
      '-e',
      'job.failed',
      '-e',
      'job.completed',
      '-e',
      'job.failed',
    ]);
    expect(body).toEqual({ url: 'https://hooks.example.com/x', events: ['job.failed', 'job.completed'] });
  });

  test('costs and manifests', async () => {
    expect((await sent(['costs', 'report', '--window-hours', '6'])).body).toEqual({ window_hours: 6 });
    api.requests.length = 0;
    expect((await sent(['costs', 'reports', '--adhoc', '--limit', '3'])).request.target).toBe(
      '/prod/api/v1/cost/reports?adhoc=true&limit=3',
    );
    api.requests.length = 0;
    expect(
      (await sent(['manifests', 'delete', 'svc-jobs', 'train', '--kind', 'Job', '--api-version', 'batch/v1']))
        .request.target,
    ).toBe('/prod/api/v1/manifests/svc-jobs/train?api_version=batch%2Fv1&kind=Job');
  });

  test('analytics administration is signed for the analytics API; keys enable/disable send {"Enabled": bool}', async () => {
    const { body, request } = await sent(['analytics', 'keys', 'disable', 'app-1', 'key-1']);
    expect([request.method, request.target, request.signedFor]).toEqual([
      'PUT',
      '/live/applications/app-1/authorizations/key-1',
      'us-east-2',
    ]);
    expect(body).toEqual({ Enabled: false });
    api.requests.length = 0;
    expect((await sent(['analytics', 'apps', 'create', 'Space Miners'])).body).toEqual({
      Name: 'Space Miners',
    });
  });

  test('analytics send uses the API key, not SigV4', async () => {
    const events = `${JSON.stringify({ event_id: 'x' })}\n`;
    const result = await runGco(
      ['--endpoints-file', endpoints, '-o', 'json', 'analytics', 'send', 'app-1', '-', '--key', 'gak_test'],
      {
        stdin: events,
      },
    );
    // The recording API answers {} without per-event results: the event counts as not accepted.
    expect(result.code).toBe(1);
    const request = api.requests[0]!;
    expect([request.target, request.headers.authorization, request.signedFor]).toEqual([
      '/live/applications/app-1/events',
      'gak_test',
      undefined,
    ]);
    expect(JSON.parse(request.body)).toEqual({ Events: [{ event_id: 'x' }] });
  });

  test('inference invoke --prompt builds a completion request on the serving path', async () => {
    const { body, request } = await sent([
      'inference',
      'invoke',
      'sample-model',
      '--prompt',
      'Hi',
      '--max-tokens',
      '4',
      '--stream',
    ]);
    expect([request.method, request.target]).toEqual(['POST', '/prod/inference/sample-model/v1/completions']);
    expect(body).toEqual({ prompt: 'Hi', max_tokens: 4, stream: true });
  });
});

describe('usage errors exit 2 and send nothing', () => {
  test.each([
    [['jobs', 'lst']],
    [['jobs', 'list', '--limit', '0']],
    [['jobs', 'list', '--status', 'done']],
    [['queue', 'submit', 'job.json']],
    [['queue', 'submit', 'job.json', '--target-region', 'us-east-1', '--priority', '101']],
    [['queue', 'submit', 'job.json', '--target-region', 'mars-1']],
    [['queue', 'submit', 'job.json', '--target-region', 'us-east-1', '--max-spot-price', '0.5']],
    [['jobs', 'submit', 'job.json', '--wait', '--dry-run']],
    [['jobs', 'submit', 'missing.yaml']],
    [['jobs', 'list', '--all-regions', '--region', 'us-east-1']],
    [['-o', 'xml', 'policy']],
    [['webhooks', 'create', '--url', 'https://x', '-e', 'job.exploded']],
    [['templates', 'run', 'train']],
    [['analytics', 'send', 'app-1', 'job.json']],
    [['completion', 'fish']],
    [['jobs']],
  ])('%j', async (args) => {
    const result = await runGco(['--endpoints-file', endpoints, ...args], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toBe('');
    expect(api.requests).toHaveLength(0);
  });
});

describe('help and version', () => {
  const allCommands = (cmd: CommandUnknownOpts, path: string[] = []): string[][] =>
    cmd.commands.flatMap((c) => [[...path, c.name()], ...allCommands(c, [...path, c.name()])]);
  const program = createProgram(
    { stdout: { write: () => true }, stderr: { write: () => true }, stdin: process.stdin, env: {}, cwd: '.' },
    { context: () => Promise.reject(new Error('not run')) },
  );

  test.each(allCommands(program).map((path) => [path.join(' ')]))(
    'gco %s --help shows an example',
    async (path) => {
      const result = await runGco([...path.split(' '), '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/Examples:\n {2}\$ \S/);
      // The global options are listed on every command's help.
      expect(result.stdout).toContain('--local');
    },
  );

  test('--version prints the package version', async () => {
    expect(await runGco(['--version'])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });
});
