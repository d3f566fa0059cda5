/**
 * Output formatting: `-o json` is the API's body byte for byte, `-o yaml` one document per answer,
 * tables (cli-table3, no borders) with `--quiet` printing identifiers, and the error text and hints
 * users see for each kind of refusal.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { apiErrorOf, hintFor, messageOf } from '../../../cli/api-errors.js';
import type { ApiTarget } from '../../../cli/endpoints.js';
import type { CliIo } from '../../../cli/io.js';
import type { OutputFormat } from '../../../cli/output-format.js';
import { Printer, loadOutputLibraries } from '../../../cli/output.js';
import { compileQuery, queryLines } from '../../../cli/query.js';
import { cellText, renderTable } from '../../../cli/table.js';
import { bulkDeleteView, jobListView, jobLogsView, submissionView } from '../../../cli/views/jobs.js';
import { globalHealthView } from '../../../cli/views/platform.js';
import { queueStatsView } from '../../../cli/views/queue.js';

beforeAll(async () => {
  await loadOutputLibraries('table');
  await loadOutputLibraries('yaml');
});

function printer(format: OutputFormat, quiet = false) {
  const out = { stdout: '', stderr: '' };
  const io: CliIo = {
    stdout: { write: (c) => ((out.stdout += String(c)), true) },
    stderr: { write: (c) => ((out.stderr += String(c)), true) },
    stdin: process.stdin,
    env: {},
    cwd: '.',
  };
  return { out, printer: new Printer(io, format, quiet) };
}

const reply = (text: string) => ({ text, json: JSON.parse(text) as unknown });

const JOBS = JSON.stringify({
  jobs: [
    {
      namespace: 'svc-jobs',
      name: 'train',
      status: 'running',
      active: 1,
      succeeded: 0,
      failed: 0,
      created_at: '2025-06-01T12:00:00Z',
    },
    {
      namespace: 'team-a',
      name: 'eval',
      status: 'succeeded',
      active: 0,
      succeeded: 1,
      failed: 0,
      created_at: null,
    },
  ],
  count: 2,
  total: 5,
  has_more: true,
});

describe('formats', () => {
  test('json: the body exactly as received (key order, spacing, unicode), one answer per line', () => {
    const { out, printer: p } = printer('json');
    const body = '{"z":1,  "a":"ü","n":null}';
    p.reply(reply(body));
    p.reply(reply('"Deleted application 1"'));
    expect(out.stdout).toBe(`${body}\n"Deleted application 1"\n`);
  });

  test('yaml: one document per answer, separated by ---', () => {
    const { out, printer: p } = printer('yaml');
    p.reply(reply('{"a":1,"b":["x"]}'));
    p.reply(reply('{"c":null}'));
    expect(out.stdout).toBe('a: 1\nb:\n  - x\n---\nc: null\n');
  });

  test('table: the view; without one, YAML of the body', () => {
    const { out, printer: p } = printer('table');
    p.reply(reply('{"policy":{"namespaces":["svc-jobs"]}}'));
    expect(out.stdout).toBe('policy:\n  namespaces:\n    - svc-jobs\n');
  });

  test('--quiet tables print the identifiers only, and notes are silenced', () => {
    const { out, printer: p } = printer('table', true);
    p.reply(reply(JOBS), jobListView);
    p.info('a note');
    p.warn('a warning');
    expect(out.stdout).toBe('train\neval\n');
    expect(out.stderr).toBe('a warning\n');
  });

  test('final answers of --wait are not repeated by --quiet tables', () => {
    const { out, printer: p } = printer('table', true);
    p.final(reply(JOBS), jobListView);
    expect(out.stdout).toBe('');
  });
});

describe('tables', () => {
  test('columns padded with two spaces, upper-case headers, no borders or trailing blanks', () => {
    const text = renderTable(
      [
        { a: 'x', b: 1 },
        { a: 'longer', b: null },
      ],
      [
        ['name', (r) => r.a],
        ['count', (r) => r.b],
      ],
    );
    expect(text).toBe('NAME    COUNT\nx       1\nlonger  -\n');
  });

  test('cell text: nothing is "-", lists joined, objects compact, newlines folded', () => {
    expect([
      cellText(undefined),
      cellText(''),
      cellText([]),
      cellText(['a', 'b']),
      cellText({ k: 1 }),
      cellText('a\n  b'),
      cellText(false),
    ]).toEqual(['-', '-', '-', 'a,b', '{"k":1}', 'a b', 'false']);
  });

  test('jobs: a region column only for all-regions answers, and a note when there is more', () => {
    expect(jobListView.render?.(JSON.parse(JOBS))).toBe(
      'NAMESPACE  NAME   STATUS     ACTIVE  SUCCEEDED  FAILED  CREATED\n' +
        'svc-jobs   train  running    1       0          0       2025-06-01T12:00:00Z\n' +
        'team-a     eval   succeeded  0       1          0       -\n' +
        '(2 of 5; more with --offset)\n',
    );
    const merged = {
      jobs: [{ region: 'us-east-1', namespace: 'n', name: 'j', status: 'failed' }],
      failed_regions: ['eu-west-1'],
    };
    expect(jobListView.render?.(merged)).toMatch(
      /^REGION {5}NAMESPACE[^\n]*\nus-east-1 .*\nfailed regions: eu-west-1\n$/,
    );
    expect(jobListView.render?.({ jobs: [] })).toBe('No jobs found.\n');
  });

  test('a manifest report lists every resource with its status and message', () => {
    const report = {
      success: false,
      resources: [
        { kind: 'Job', namespace: 'svc-jobs', name: 'a', status: 'skipped', message: 'not applied' },
        { kind: 'Job', namespace: 'svc-jobs', name: 'b', status: 'failed', message: 'image not trusted' },
      ],
    };
    expect(submissionView.render?.(report)).toBe(
      'KIND  NAMESPACE  NAME  STATUS   MESSAGE\nJob   svc-jobs   a     skipped  not applied\nJob   svc-jobs   b     failed   image not trusted\n',
    );
    expect(submissionView.render?.({ ...report, valid: false })).toMatch(/not valid\n$/);
  });

  test('logs print as text, with a header per pod when there are several', () => {
    expect(jobLogsView.render?.({ pods: [{ pod: 'p1', container: 'main', logs: 'one\ntwo' }] })).toBe(
      'one\ntwo\n',
    );
    expect(
      jobLogsView.render?.({
        pods: [
          { pod: 'p1', container: 'main', logs: 'a\n' },
          { pod: 'p2', container: 'main', logs: 'b' },
        ],
      }),
    ).toBe('==> p1 (main) <==\na\n==> p2 (main) <==\nb\n');
  });

  test('queue stats: one row per region, a column per state seen', () => {
    const stats = {
      total: 3,
      by_region: { 'us-east-1': { total: 2, queued: 1, running: 1 }, 'eu-west-1': { total: 1, failed: 1 } },
    };
    expect(queueStatsView.render?.(stats)).toBe(
      'REGION     TOTAL  FAILED  QUEUED  RUNNING\nus-east-1  2      0       1       1\neu-west-1  1      1       0       0\ntotal: 3\n',
    );
  });

  test('aggregate health shows each region with its outcome', () => {
    const body = {
      status: 'degraded',
      region_status: { 'us-east-1': 'healthy', 'eu-west-1': 'unreachable' },
      regions: {
        'eu-west-1': { status: null, error: 'timeout after 27000 ms', duration_ms: 27000 },
        'us-east-1': { status: 200, error: null, duration_ms: 41 },
      },
    };
    expect(globalHealthView.render?.(body)).toBe(
      'status: degraded\nREGION     HTTP  HEALTH       ERROR                   MS\n' +
        'eu-west-1  -     unreachable  timeout after 27000 ms  27000\nus-east-1  200   healthy      -                       41\n',
    );
  });

  test('bulk delete: what matched and what happened', () => {
    const body = {
      dry_run: true,
      matched: 1,
      deleted: 0,
      failed: 0,
      jobs: [{ namespace: 'n', name: 'j', deleted: false }],
    };
    expect(bulkDeleteView.render?.(body)).toBe(
      'NAMESPACE  NAME  DELETED  NOTE\nn          j     false    -\nmatched: 1, would delete (dry run): 1, failed: 0\n',
    );
  });
});

describe('errors as users read them', () => {
  const target: ApiTarget = {
    kind: 'global',
    url: 'https://x.execute-api.us-east-2.amazonaws.com/prod',
    region: 'us-east-2',
  };
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
    status,
    headers,
    text: JSON.stringify(body),
    json: body,
    target,
    method: 'GET' as const,
    path: '/api/v1/jobs',
  });

  test('the API message: detail string, validation list, policy report, message, Message', () => {
    expect(messageOf(answer(404, { detail: 'Job svc-jobs/x not found' }))).toBe('Job svc-jobs/x not found');
    expect(
      messageOf(
        answer(422, {
          detail: [{ loc: ['query', 'limit'], msg: 'Input should be less than or equal to 1000', type: 'x' }],
        }),
      ),
    ).toBe('query.limit: Input should be less than or equal to 1000');
    expect(
      messageOf(
        answer(400, {
          detail: { message: 'rejected', violations: [{ field: 'spec.x', message: 'too big' }] },
        }),
      ),
    ).toBe('rejected; spec.x: too big');
    expect(messageOf(answer(400, { message: 'The X-SVC-Target-Region header is not allowed' }))).toBe(
      'The X-SVC-Target-Region header is not allowed',
    );
    expect(messageOf({ json: undefined, text: '<html>502 Bad Gateway</html>' })).toBe(
      '<html>502 Bad Gateway</html>',
    );
  });

  test('403s are told apart: IAM, signature, unknown route, WAF, HMAC envelope', () => {
    expect(
      hintFor(
        answer(
          403,
          { message: 'User: … is not authorized' },
          { 'x-amzn-errortype': 'AccessDeniedException' },
        ),
      ),
    ).toMatch(/IAM/);
    expect(
      hintFor({
        ...answer(403, { message: 'denied' }, { 'x-amzn-errortype': 'AccessDeniedException' }),
        target: { ...target, kind: 'regional' },
      }),
    ).toMatch(/regional_api_enabled/);
    expect(
      hintFor(answer(403, { message: 'sig' }, { 'x-amzn-errortype': 'InvalidSignatureException' })),
    ).toMatch(/clock/);
    expect(
      hintFor(
        answer(
          403,
          { message: 'Missing Authentication Token' },
          { 'x-amzn-errortype': 'MissingAuthenticationTokenException' },
        ),
      ),
    ).toMatch(/no such route/);
    expect(
      hintFor(answer(403, { message: 'Forbidden' }, { 'x-amzn-errortype': 'ForbiddenException' })),
    ).toMatch(/web ACL/);
    expect(hintFor(answer(403, { detail: 'Forbidden' }))).toMatch(/HMAC envelope/);
    expect(hintFor(answer(403, { detail: 'Namespace kube-system is not allowed' }))).toBeUndefined();
  });

  test('analytics keys: 401 unknown key, 403 explicit deny for a disabled key', () => {
    expect(hintFor(answer(401, { message: 'Unauthorized' }))).toMatch(/API key/);
    expect(
      hintFor(
        answer(
          403,
          { Message: 'User is not authorized to access this resource with an explicit deny' },
          { 'x-amzn-errortype': 'AccessDeniedException' },
        ),
      ),
    ).toMatch(/disabled/);
  });

  test('the error line names the status, the route and the API', () => {
    const error = apiErrorOf(answer(409, { detail: 'already exists' }));
    expect([error.message, error.exitCode, 'status' in error ? error.status : undefined]).toEqual([
      'HTTP 409 from GET /api/v1/jobs (global API): already exists',
      1,
      409,
    ]);
  });
});

describe('-o name, -o wide and --query', () => {
  test('name: kind/name of each resource; an answer that names none is a usage error', () => {
    const { out, printer: p } = printer('name');
    p.reply(reply(JOBS), jobListView);
    expect(out.stdout).toBe('job/train\njob/eval\n');
    expect(() => p.reply(reply('{"logs":"x"}'), jobLogsView)).toThrow(
      expect.objectContaining({ exitCode: 2 }),
    );
  });

  test('name of a manifest report: each resource with its own kind', () => {
    const { out, printer: p } = printer('name');
    const report = {
      resources: [
        { kind: 'Job', name: 'a' },
        { kind: 'ConfigMap', name: 'b' },
      ],
    };
    p.value(report, submissionView);
    expect(out.stdout).toBe('job/a\nconfigmap/b\n');
  });

  test('wide: the extra columns; table: without them', () => {
    const wide = printer('wide');
    wide.printer.reply(reply(JOBS), jobListView);
    expect(wide.out.stdout.split('\n')[0]).toMatch(/CREATED\s+STARTED\s+COMPLETED\s+IMAGES\s+UID$/);
    const table = printer('table');
    table.printer.reply(reply(JOBS), jobListView);
    expect(table.out.stdout.split('\n')[0]).toMatch(/CREATED$/);
  });

  test('query: text lines in the table formats, the selection as JSON with -o json', async () => {
    const query = await compileQuery('jobs[].[name, status]');
    const out = { stdout: '' };
    const io: CliIo = {
      stdout: { write: (c) => ((out.stdout += String(c)), true) },
      stderr: { write: () => true },
      stdin: process.stdin,
      env: {},
      cwd: '.',
    };
    new Printer(io, 'table', false, query).reply(reply(JOBS), jobListView);
    new Printer(io, 'json', false, query).reply(reply(JOBS), jobListView);
    expect(out.stdout).toBe('train\trunning\neval\tsucceeded\n[["train","running"],["eval","succeeded"]]\n');
  });

  test('query: a syntax error or a bad function call is a usage error', async () => {
    await expect(compileQuery('jobs[')).rejects.toMatchObject({ exitCode: 2 });
    const badCall = await compileQuery('abs(jobs, jobs)');
    expect(() => badCall({ jobs: [] })).toThrow(expect.objectContaining({ exitCode: 2 }));
  });

  test('queryLines: scalars as themselves, null as nothing, objects left to YAML', () => {
    expect([queryLines('x'), queryLines(3), queryLines(null), queryLines({ a: 1 })]).toEqual([
      'x\n',
      '3\n',
      '',
      undefined,
    ]);
    expect(queryLines(['a', { b: 1 }, [1, true]])).toBe('a\n{"b":1}\n1\ttrue\n');
  });
});

describe('errors lead with the cause', () => {
  const target: ApiTarget = { kind: 'global', url: 'http://127.0.0.1:1/prod', region: 'us-east-2' };
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
    status,
    headers,
    text: JSON.stringify(body),
    json: body,
    target,
    method: 'GET' as const,
    path: '/api/v1/jobs',
  });

  test('a signature error: its first line; the canonical request only in the details', () => {
    const text =
      'The request signature we calculated does not match.\n\nThe Canonical String for this request should have been\n...';
    const error = apiErrorOf(
      answer(403, { message: text }, { 'x-amzn-errortype': 'InvalidSignatureException' }),
    );
    expect(error.message).toBe(
      'HTTP 403 from GET /api/v1/jobs (global API): The request signature we calculated does not match.',
    );
    expect(error.details).toContain('Canonical String');
  });

  test('a refused query parameter is a usage error; a refused body field is not', () => {
    const sort = { detail: [{ loc: ['query', 'sort'], msg: 'String should match pattern' }] };
    expect(apiErrorOf(answer(422, sort)).exitCode).toBe(2);
    const body = { detail: [{ loc: ['body', 'url'], msg: 'bad url' }] };
    expect(apiErrorOf(answer(422, body)).exitCode).toBe(1);
  });

  test('a refused template run: the failed resource and its reason, not the JSON body', () => {
    const report = {
      resources: [
        { kind: 'Job', name: 'abc', status: 'failed', message: 'privileged containers are refused' },
      ],
      violations: [],
    };
    expect(messageOf(answer(400, report))).toBe('Job/abc: privileged containers are refused');
  });

  test('a merged answer of refusing regions: each region’s error, no outage hint', () => {
    const merged = {
      message: 'No region answered successfully',
      regions: { 'us-east-1': { status: 403, error: 'HTTP 403: Namespace kube-system is not allowed' } },
    };
    const error = apiErrorOf(answer(502, merged));
    expect(error.message).toMatch(/us-east-1: HTTP 403: Namespace kube-system is not allowed$/);
    expect(error.hint).toBeUndefined();
  });
});
