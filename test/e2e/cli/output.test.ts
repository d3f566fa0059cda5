/**
 * `gco` as scripts and pipes use it, end to end through the local platform (the real executable, run
 * through `sh -c` where a pipe, `xargs` or `$(...)` is the point): the table in a pipe, `-o name` into
 * `xargs`, `--query`, `-q` into the next command, destructive commands that refuse without a terminal,
 * and errors that lead with their cause (exit 2 for a refused option).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { startLocalPlatform, type LocalPlatform } from '../../../local/platform.js';
import { gco, tempFile, type GcoResult } from '../../integration/cli/support/gco-process.js';
import { edgeClient, poll, type EdgeClient } from '../support/edge.js';
import { JOB_YAML, localEnv } from './support/local-platform.js';

jest.setTimeout(30_000);

let platform: LocalPlatform;
let edge: EdgeClient;
let env: Record<string, string>;

beforeAll(async () => {
  platform = await startLocalPlatform({ kubelet: { pendingMs: 50, runningMs: 150 } });
  edge = edgeClient(platform);
  env = localEnv(platform);
}, 30_000);
afterAll(() => platform?.close());

/** A shell pipeline in which `$GCO` runs gco (node and the bin); stdin is not a terminal. */
function sh(script: string): Promise<GcoResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script.replaceAll('$GCO', '"$NODE" "$GCO_BIN"')], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        ...env,
        NODE: process.execPath,
        GCO_BIN: join(process.cwd(), 'cli', 'gco.mjs'),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end();
  });
}

const jobExists = async (name: string) =>
  (await edge.global({ path: `/api/v1/jobs/svc-jobs/${name}` })).status === 200;

describe('jobs in pipes', () => {
  beforeAll(async () => {
    const files = ['out-a', 'out-b'].map((name) => tempFile(`${name}.yaml`, JOB_YAML(name, `hi ${name}`)));
    const submitted = await gco(['jobs', 'submit', ...files, '-q'], { env });
    // -q: just the names of the created jobs, what the next command takes.
    expect([submitted.code, submitted.stdout]).toEqual([0, 'out-a\nout-b\n']);
    await poll(
      async () =>
        (await gco(['jobs', 'list', '-n', 'svc-jobs', '--status', 'succeeded', '-o', 'name'], { env }))
          .stdout,
      (names) => names.includes('job/out-a\n') && names.includes('job/out-b\n'),
    );
  }, 30_000);

  test('`gco jobs list | cat` prints the same table as a terminal gets, not JSON', async () => {
    const result = await sh('$GCO jobs list -n svc-jobs -l app=gco-e2e | cat');
    expect(result.code).toBe(0);
    const [header, ...rows] = result.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^NAMESPACE\s+NAME\s+STATUS\s+ACTIVE\s+SUCCEEDED\s+FAILED\s+CREATED$/);
    expect(rows.map((r) => r.split(/\s+/)[1]).sort()).toEqual(['out-a', 'out-b']);
    // No colour codes in a pipe.
    expect(result.stdout).not.toContain('\u001b[');
    // -o wide: the extra columns.
    const wide = await gco(['jobs', 'list', '-n', 'svc-jobs', '-l', 'app=gco-e2e', '-o', 'wide'], { env });
    expect(wide.stdout.split('\n')[0]).toMatch(/CREATED\s+STARTED\s+COMPLETED\s+IMAGES\s+UID$/);
  });

  test('`-o name` prints kind/name a line, and xargs feeds it back to `gco jobs get`', async () => {
    const names = await sh('$GCO jobs list -n svc-jobs -l app=gco-e2e -o name');
    expect(names.stdout.split('\n').filter(Boolean).sort()).toEqual(['job/out-a', 'job/out-b']);
    const got = await sh('$GCO jobs list -n svc-jobs -l app=gco-e2e -o name | xargs $GCO -o json jobs get');
    expect(got.code).toBe(0);
    const bodies = got.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { name: string; status: string });
    expect(bodies.map((b) => [b.name, b.status]).sort()).toEqual([
      ['out-a', 'succeeded'],
      ['out-b', 'succeeded'],
    ]);
    // Another kind's name is a usage error.
    expect((await gco(['jobs', 'get', 'webhook/out-a'], { env })).code).toBe(2);
  });

  test('--query selects from the JSON answer (JMESPath); text lines in a table run, JSON with -o json', async () => {
    const query = "jobs[?labels.app=='gco-e2e'] | sort_by(@, &name)[].[name, status]";
    const text = await gco(['jobs', 'list', '-n', 'svc-jobs', '--query', query], { env });
    expect(text.stdout).toBe('out-a\tsucceeded\nout-b\tsucceeded\n');
    const json = await gco(['jobs', 'list', '-n', 'svc-jobs', '-o', 'json', '--query', query], { env });
    expect(JSON.parse(json.stdout)).toEqual([
      ['out-a', 'succeeded'],
      ['out-b', 'succeeded'],
    ]);
    const bad = await gco(['jobs', 'list', '--query', 'jobs['], { env });
    expect([bad.code, bad.stdout]).toEqual([2, '']);
    expect(bad.stderr).toMatch(/^gco: --query: /);
  });

  test('bulk-delete without a terminal and without --yes deletes nothing and exits 2; --dry-run lists', async () => {
    const refused = await sh('$GCO jobs bulk-delete -n svc-jobs -l app=gco-e2e');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--yes/);
    expect(refused.stderr).toMatch(/--dry-run/);
    expect([await jobExists('out-a'), await jobExists('out-b')]).toEqual([true, true]);

    const preview = await sh('$GCO jobs bulk-delete -n svc-jobs -l app=gco-e2e --dry-run | cat');
    expect(preview.code).toBe(0);
    expect(preview.stdout).toMatch(/out-a/);
    expect(preview.stdout).toMatch(/would delete \(dry run\): 2/);
    expect([await jobExists('out-a'), await jobExists('out-b')]).toEqual([true, true]);

    // Several names are confirmed too; one is deleted at once (as kubectl).
    const several = await sh('$GCO jobs delete out-a out-b');
    expect(several.code).toBe(2);
    expect(await jobExists('out-a')).toBe(true);

    const deleted = await sh('$GCO jobs bulk-delete -n svc-jobs -l app=gco-e2e --yes -o name');
    expect([deleted.code, deleted.stdout.split('\n').filter(Boolean).sort()]).toEqual([
      0,
      ['job/out-a', 'job/out-b'],
    ]);
    await poll(
      async () => [await jobExists('out-a'), await jobExists('out-b')],
      (exists) => exists.every((e) => !e),
    );
  });
});

describe('create -q into the next command', () => {
  test('$(gco analytics apps create … -q) is the UUID the next command takes', async () => {
    const result = await sh(
      'APP=$($GCO analytics apps create "pipe game" -q) && $GCO analytics apps get "$APP" -o name && ' +
        '$GCO analytics apps delete "$APP" --dry-run -q -o name; $GCO analytics apps delete "$APP"; echo "refused=$?"',
    );
    const [name, dryRun] = result.stdout.split('\n');
    expect(name).toMatch(/^application\/[0-9a-f-]{36}$/);
    expect(dryRun).toBe(name);
    expect(result.stdout).toMatch(/refused=2\n$/);
    const id = String(name).slice('application/'.length);
    const still = await gco(['-o', 'json', 'analytics', 'apps', 'get', id], { env });
    expect(still.code).toBe(0);
    expect((await gco(['analytics', 'apps', 'delete', id, '--yes'], { env })).code).toBe(0);
  });

  test('templates and webhooks create -q print the name and the id', async () => {
    const template = tempFile('tpl.yaml', JOB_YAML('{{name}}', 'template'));
    const created = await gco(['templates', 'create', 'pipe-template', template, '-q'], { env });
    expect([created.code, created.stdout]).toEqual([0, 'pipe-template\n']);
    expect((await gco(['templates', 'delete', 'pipe-template', '-o', 'name'], { env })).stdout).toBe(
      'template/pipe-template\n',
    );
    const hook = await gco(
      ['webhooks', 'create', '--url', 'https://127.0.0.1:9/hook', '-e', 'job.failed', '-q'],
      { env },
    );
    const id = hook.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{8,}$/);
    expect((await gco(['webhooks', 'delete', id], { env })).code).toBe(2);
    expect((await gco(['webhooks', 'delete', id, '--dry-run', '-o', 'name'], { env })).stdout).toBe(
      `webhook/${id}\n`,
    );
    expect((await gco(['webhooks', 'delete', `webhook/${id}`, '--yes', '-q'], { env })).stdout).toBe(
      `${id}\n`,
    );
  });
});

describe('errors that lead with the cause', () => {
  test('a --sort the API refuses is a usage error (exit 2), the body only with -v', async () => {
    const result = await gco(['jobs', 'list', '--sort', 'size:up'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toMatch(/^gco: HTTP 422 .*query\.sort/);
    expect(result.stderr).not.toMatch(/"detail"/);
    const verbose = await gco(['-v', 'jobs', 'list', '--sort', 'size:up'], { env });
    expect(verbose.stderr).toMatch(/"detail"/);
  });

  test('a namespace that is not allowed shows its reason in the table and on the error line', async () => {
    const file = tempFile('nons.yaml', JOB_YAML('out-ns', 'x'));
    const result = await gco(['jobs', 'submit', '-n', 'kube-system', file], { env });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/skipped\s+namespace: namespace "kube-system" is not allowed/);
    expect(result.stderr).toMatch(
      /^gco: Not applied \(HTTP 400\): namespace: namespace "kube-system" is not allowed/,
    );
  });

  test('dry run and validation never say created', async () => {
    const file = tempFile('dry.yaml', JOB_YAML('out-dry', 'x'));
    const dry = await gco(['jobs', 'submit', file, '--dry-run'], { env });
    expect(dry.stdout).toMatch(/Job\s+svc-jobs\s+out-dry\s+would create/);
    const valid = await gco(['jobs', 'submit', file, '--validate-only'], { env });
    expect(valid.stdout).toMatch(/Job\s+svc-jobs\s+out-dry\s+valid/);
    expect(`${dry.stdout}${valid.stdout}`).not.toMatch(/\bcreated\b/);
    expect(await jobExists('out-dry')).toBe(false);
  });

  test('a YAML error names file:line:column and ends with its message', async () => {
    const result = await gco(['jobs', 'submit', tempFile('bad.yaml', 'a: [\n')], { env });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toMatch(/^gco: .*bad\.yaml:2:1: .*[^:]$/);
  });
});
