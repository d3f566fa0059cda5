/**
 * `gco` end to end through the local platform: following what was started (issue 26) — a queued job by
 * the name the user gave it (`queue submit` names its Job, `queue logs`, `queue get`, `queue list`),
 * manifests of any allowed kind without `--api-version`, durations, options that cannot apply, one log
 * shape, Ctrl-C during `--wait`, and completion of names from the API. The real executable as a child
 * process; the platform's state read back through the edge.
 */
import { execFile, spawn } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { startLocalPlatform, type LocalPlatform } from '../../../local/platform.js';
import { gco, jsonLines, tempFile } from '../../integration/cli/support/gco-process.js';
import { edgeClient, poll, type EdgeClient } from '../support/edge.js';
import { JOB_YAML, localEnv } from './support/local-platform.js';
import { suiteTempDir } from '../../support/suite-temp-dir.js';

jest.setTimeout(40_000);

const REGION = 'us-east-1';
// The platform runs in this process: a child that calls it must be awaited, never run synchronously.
const execFileAsync = promisify(execFile);

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

const run = (args: string[]) => gco(args, { env });
const json = async (args: string[]): Promise<Json> => {
  const result = await run(['-o', 'json', ...args]);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  return jsonLines(result)[0] as Json;
};

/** Submits a Job through `jobs submit --wait` (it has succeeded when this returns). */
async function ranJob(name: string, message: string): Promise<void> {
  const submitted = await run([
    '-o',
    'json',
    'jobs',
    'submit',
    tempFile(`${name}.yaml`, JOB_YAML(name, message)),
    '--wait',
  ]);
  expect(submitted.code).toBe(0);
}

describe('a queued job, followed by what the user knows', () => {
  test('submit names the Job it will create; logs, get and list find it by id and by manifest name', async () => {
    const file = tempFile('queued.yaml', JOB_YAML('cli-named', 'queued and followed'));
    const submitted = await run(['-o', 'json', 'queue', 'submit', file, '--target-region', REGION, '--wait']);
    expect(submitted.code).toBe(0);
    const [queued, final] = jsonLines(submitted) as Json[];
    const id = String(queued?.job_id);
    const jobName = String(queued?.job_name);
    expect(jobName).toMatch(/^cli-named-q[0-9a-f]{10}$/);
    expect(submitted.stderr).toContain(
      `queued job ${id} runs as Job svc-jobs/${jobName}; follow it with: gco queue logs ${id} --follow`,
    );
    expect(final).toMatchObject({ status: 'succeeded', job_name: jobName, k8s: { name: jobName } });

    // The dispatched Job's output, by the queued job's id, its Job name and its manifest name.
    for (const ref of [id, jobName, 'cli-named']) {
      const logs = await run(['-o', 'table', 'queue', 'logs', ref]);
      expect(logs.code).toBe(0);
      expect(logs.stdout.split('\n')).toContain('queued and followed');
    }
    const followed = await run(['-o', 'table', 'queue', 'logs', 'cli-named', '--follow']);
    expect(followed.code).toBe(0);
    expect(followed.stdout.split('\n').filter((l) => l === 'queued and followed')).toHaveLength(1);
    expect((await json(['queue', 'logs', id])).pods[0].logs).toContain('queued and followed\n');

    // queue get: the record, then the Kubernetes Job and its state (table output).
    const got = await run(['-o', 'table', 'queue', 'get', 'cli-named']);
    expect(got.code).toBe(0);
    expect(got.stdout).toMatch(new RegExp(`job_name\\s+${jobName}`));
    expect(got.stdout).toContain(`Kubernetes Job svc-jobs/${jobName}:`);
    expect(got.stdout).toMatch(/status\s+succeeded/);
    expect((await json(['queue', 'get', jobName])).job_id).toBe(id);

    // queue list: a name column, and the labels.
    const labelled = await json([
      'queue',
      'submit',
      file,
      '--target-region',
      REGION,
      '-l',
      'team=ml',
      '-l',
      'run=7',
      '--max-spot-price',
      '0.01',
      '--spot-instance-type',
      'm5.large',
    ]);
    await poll(
      () => edge.global({ path: `/api/v1/queue/jobs/${String(labelled.job_id)}` }),
      (reply) => typeof reply.json?.waiting_reason === 'string',
      20_000,
    );
    const table = await run(['-o', 'table', 'queue', 'list', '--target-region', REGION]);
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.split('\n');
    expect(header).toMatch(
      /^NAME\s+JOB ID\s+STATUS\s+TARGET REGION\s+PRIORITY\s+NAMESPACE\s+REASON\s+LABELS\s+CREATED$/,
    );
    const row = rows.find((r) => r.includes(String(labelled.job_id)));
    expect(row).toContain(String(labelled.job_name));
    expect(row).toContain('run=7,team=ml');
    expect(row).toMatch(/spot/i);
    // A job that is not dispatched yet has no logs: exit 1 naming its Job to come.
    const early = await run(['queue', 'logs', String(labelled.job_id)]);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain(`has no Kubernetes Job yet: it is queued`);
    expect(early.stderr).toContain(`svc-jobs/${String(labelled.job_name)}`);
    await json(['queue', 'cancel', String(labelled.job_id)]);
  }, 90_000);

  test('-o name gives queuedjob/ID, which get, logs and cancel take back; another kind exits 2', async () => {
    const file = tempFile('byname.yaml', JOB_YAML('cli-byname', 'named back'));
    const submitted = await run(['-o', 'json', 'queue', 'submit', file, '--target-region', REGION, '--wait']);
    expect(submitted.code).toBe(0);
    const [queued] = jsonLines(submitted) as Json[];
    const id = String(queued?.job_id);
    const jobName = String(queued?.job_name);
    const listed = await run(['-o', 'name', 'queue', 'list', '--target-region', REGION]);
    expect(listed.stdout.split('\n')).toContain(`queuedjob/${id}`);

    expect((await json(['queue', 'get', `queuedjob/${id}`])).job_id).toBe(id);
    const logs = await run(['-o', 'table', 'queue', 'logs', `queuedjob/${id}`]);
    expect([logs.code, logs.stdout.split('\n')]).toEqual([0, expect.arrayContaining(['named back'])]);
    // queue logs prints its Job's logs with the one function jobs logs uses (cli/job-logs.ts).
    const options = ['--tail', '1', '--timestamps'];
    expect(await json(['queue', 'logs', id, ...options])).toEqual(
      await json(['jobs', 'logs', jobName, ...options]),
    );

    // The Job's own `-o name` is not a queued job: a usage error before any request, naming both kinds.
    for (const verb of ['get', 'logs', 'cancel']) {
      const wrong = await run(['queue', verb, `job/${jobName}`]);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toContain(
        `gco: resource type mismatch: "job/${jobName}" is a job, not a queuedjob`,
      );
      expect(wrong.stderr).toContain('hint: give ID or queuedjob/ID (as `-o name` prints it)');
    }
  }, 90_000);

  test('an unknown name exits 1 and says where to look', async () => {
    const result = await run(['queue', 'logs', 'no-such-queued-job']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('No queued job has the id or name no-such-queued-job');
  });
});

describe('manifests of any allowed kind', () => {
  test('get and delete --kind Job resolve batch/v1 without --api-version; kubectl-style names too', async () => {
    await ranJob('cli-kinds', 'kinds');
    expect(await json(['manifests', 'get', 'svc-jobs', 'cli-kinds', '--kind', 'Job'])).toMatchObject({
      kind: 'Job',
    });
    expect((await json(['manifests', 'get', 'svc-jobs', 'cli-kinds', '--kind', 'jobs'])).kind).toBe('Job');
    // --api-version still overrides: a version the platform does not allow is its 403.
    const wrong = await run([
      'manifests',
      'get',
      'svc-jobs',
      'cli-kinds',
      '--kind',
      'Job',
      '--api-version',
      'apps/v1',
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('apps/v1 Job is not an allowed kind');
    // A kind neither built in nor in the platform's allowed kinds: a usage error before the request.
    const unknown = await run(['manifests', 'get', 'svc-jobs', 'cli-kinds', '--kind', 'PyTorchJob']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--kind PyTorchJob');
    // -o name: kind/name, as every other command prints it (kubectl: one resource/name per object).
    const named = await run(['-o', 'name', 'manifests', 'get', 'svc-jobs', 'cli-kinds', '--kind', 'jobs']);
    expect([named.code, named.stdout]).toEqual([0, 'job/cli-kinds\n']);
    const deleted = await run([
      '-o',
      'name',
      'manifests',
      'delete',
      'svc-jobs',
      'cli-kinds',
      '--kind',
      'Job',
    ]);
    expect([deleted.code, deleted.stdout, deleted.stderr]).toEqual([0, 'job/cli-kinds\n', '']);
    const gone = await poll(
      () => edge.global({ path: '/api/v1/jobs/svc-jobs/cli-kinds' }),
      (reply) => reply.status === 404,
    );
    expect(gone.status).toBe(404);
  });
});

describe('durations, options that cannot apply, one log shape', () => {
  test('--since 1h is taken; a malformed duration is a usage error', async () => {
    await ranJob('cli-since', 'recent line');
    const logs = await run(['-o', 'table', 'jobs', 'logs', 'cli-since', '--since', '1h']);
    expect(logs.code).toBe(0);
    expect(logs.stdout.split('\n')).toContain('recent line');
    const bad = await run(['jobs', 'logs', 'cli-since', '--since', '1 hour']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('expected a duration such as 30s, 5m, 1h or 2d');
  });

  test('pod-logs answers in the shape of logs', async () => {
    await ranJob('cli-shape', 'one shape');
    const logs = await json(['jobs', 'logs', 'cli-shape']);
    const pod = String(logs.pods[0].pod);
    expect(await json(['jobs', 'pod-logs', 'cli-shape', pod])).toEqual(logs);
  });

  test.each([
    [['jobs', 'submit', 'job.yaml', '--wait-timeout', '300']],
    [['queue', 'submit', 'job.yaml', '--target-region', REGION, '--wait-timeout', '30s']],
    [['inference', 'scale', 'sample-model', '--replicas', '2', '--wait-timeout', '10m']],
    [['inference', 'invoke', 'sample-model', '--max-tokens', '5']],
  ])('%j: exit 2 before any request', async (args) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/gco: --(wait-timeout|max-tokens) applies only with --(wait|prompt)/);
  });

  test('costs report --include-rows shows the rows in a table', async () => {
    const report = await run(['-o', 'table', 'costs', 'report', '--window-hours', '1', '--include-rows']);
    expect(report.code).toBe(0);
    expect(report.stdout).toContain('Rows:');
    expect(report.stdout).toMatch(/NAMESPACE\s+WORKLOAD|No allocation rows in this window\./);
  });

  test('invoke -d posts to the completions path, as --prompt does', async () => {
    const answer = await run([
      '-o',
      'json',
      'inference',
      'invoke',
      'sample-model',
      '-d',
      '{"prompt":"hi","max_tokens":3}',
    ]);
    expect(answer.code).toBe(0);
    expect(JSON.parse(answer.stdout)).toHaveProperty('choices');
  });
});

describe('Ctrl-C during --wait', () => {
  test('says what keeps running and how to follow it, exits 130', async () => {
    const file = tempFile('gated.yaml', JOB_YAML('cli-interrupted', 'x'));
    const child = spawn(
      process.execPath,
      [
        join(process.cwd(), 'cli', 'gco.mjs'),
        '-o',
        'json',
        'queue',
        'submit',
        file,
        '--target-region',
        REGION,
        '--max-spot-price',
        '0.01',
        '--spot-instance-type',
        'm5.large',
        '--wait',
      ],
      {
        env: { PATH: process.env.PATH ?? '', HOME: suiteTempDir('gco-home-'), ...env },
        stdio: 'pipe',
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    const waiting = new Promise<void>((resolve) => {
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr += c;
        if (/queued job \S+: queued/.test(stderr)) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await waiting;
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const id = String((JSON.parse(stdout.split('\n')[0] ?? '{}') as Json).job_id);
    expect(stderr).toContain(
      `gco: interrupted. queued job ${id} keeps running (queued); follow it with: gco queue get ${id} --wait`,
    );
    // Only the wait ended: the job is still queued.
    expect((await edge.global({ path: `/api/v1/queue/jobs/${id}` })).json.status).toBe('queued');
    await json(['queue', 'cancel', id]);
  });
});

describe('completion', () => {
  test('Tab after `jobs logs` offers the job names from the API, not file names', async () => {
    await ranJob('cli-complete-a', 'a');
    await ranJob('cli-complete-b', 'b');
    const script = (await run(['completion', 'bash'])).stdout;
    // A `gco` on the PATH, as a user has it, running this checkout's executable.
    const bin = suiteTempDir('gco-bin-');
    writeFileSync(
      join(bin, 'gco'),
      `#!/bin/sh\nexec "${process.execPath}" "${join(process.cwd(), 'cli', 'gco.mjs')}" "$@"\n`,
    );
    chmodSync(join(bin, 'gco'), 0o755);
    writeFileSync(join(bin, 'cli-complete-file.txt'), '');
    const complete = async (...words: string[]) =>
      (
        await execFileAsync(
          'bash',
          [
            '--norc',
            '--noprofile',
            '-c',
            `${script}
COMP_WORDS=(gco ${words.map((w) => `'${w}'`).join(' ')})
COMP_CWORD=${words.length}
_gco_complete
printf '%s\\n' "\${COMPREPLY[@]}"`,
          ],
          {
            encoding: 'utf8',
            cwd: bin,
            env: { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: bin, ...env },
          },
        )
      ).stdout
        .split('\n')
        .filter(Boolean);
    expect(await complete('jobs', 'logs', 'cli-complete-')).toEqual(['cli-complete-a', 'cli-complete-b']);
    expect(await complete('jobs', 'get', '-n', 'svc-jobs', 'cli-complete-a')).toEqual(['cli-complete-a']);
    // Options are still options, and a second argument is not a job name.
    expect(await complete('jobs', 'logs', '--ta')).toEqual(['--tail']);
    // Offline: nothing, quickly, and no error on the command line.
    const offline = await execFileAsync(
      'bash',
      [
        '--norc',
        '--noprofile',
        '-c',
        `"${join(bin, 'gco')}" --api-url http://127.0.0.1:9 completion __names job; echo "exit $?"`,
      ],
      {
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH ?? '',
          HOME: bin,
          AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
          AWS_SECRET_ACCESS_KEY: 'x',
          AWS_EC2_METADATA_DISABLED: 'true',
        },
      },
    );
    expect(offline.stdout).toBe('exit 0\n');
  });
});
