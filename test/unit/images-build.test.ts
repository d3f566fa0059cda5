/**
 * `npm run images:build` (bin/images-build.mjs) run as a real child process against a fake container
 * CLI: a small executable in a temporary folder, named by CDK_DOCKER (or found on PATH as `docker`),
 * that records every argv and its working directory and fails on request. Asserts the commands, their
 * order, the printed `images` snippet and the exit codes.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { loadConfig } from '../../lib/config.js';
import { CLUSTER_SERVICES } from '../../contracts/routing.js';

const root = process.cwd();
const script = join(root, 'bin', 'images-build.mjs');
let dir: string;
let fakeCli: string;
let runs = 0;

/** Records `{argv, cwd}` per call; exits 3 when an argument equals FAKE_CLI_FAIL_ON. */
const FAKE_CLI = `#!${process.execPath}
const { appendFileSync } = require('node:fs');
const argv = process.argv.slice(2);
appendFileSync(process.env.FAKE_CLI_LOG, JSON.stringify({ argv, cwd: process.cwd() }) + '\\n');
if (process.env.FAKE_CLI_FAIL_ON && argv.includes(process.env.FAKE_CLI_FAIL_ON)) {
  process.stderr.write('fake build error\\n');
  process.exit(3);
}
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gco-images-build-'));
  // CommonJS (require): no package.json above the temporary folder makes it an ES module.
  fakeCli = join(dir, 'fake-container-cli');
  writeFileSync(fakeCli, FAKE_CLI);
  chmodSync(fakeCli, 0o755);
  writeFileSync(join(dir, 'docker'), FAKE_CLI);
  chmodSync(join(dir, 'docker'), 0o755);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Every call of the fake CLI, in order. */
  calls: { argv: string[]; cwd: string }[];
}

function imagesBuild(args: string[], env: Record<string, string | undefined> = {}): Run {
  const log = join(dir, `calls-${(runs += 1)}.jsonl`);
  const result = spawnSync(process.execPath, [script, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, CDK_DOCKER: fakeCli, FAKE_CLI_LOG: log, ...env },
  });
  const calls = existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { argv: string[]; cwd: string })
    : [];
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, calls };
}

const ecr = '123456789012.dkr.ecr.{region}.amazonaws.com/gco';
const inRegion = (region: string) => `123456789012.dkr.ecr.${region}.amazonaws.com/gco`;

const buildArgs = (service: string, refs: string[]): string[] => [
  'build',
  '--platform',
  'linux/amd64',
  '-f',
  'cluster/Dockerfile',
  '--build-arg',
  `SERVICE=${service}`,
  ...refs.flatMap((ref) => ['-t', ref]),
  '.',
];

describe('building', () => {
  test('each service once for linux/amd64 from the repository root, tagged for every region; the snippet is valid config', () => {
    const run = imagesBuild([
      '--registry',
      ecr,
      '--tag',
      'v1.4.0',
      '--region',
      'us-east-1',
      '--region',
      'eu-west-1',
    ]);
    expect(run.status).toBe(0);
    expect(run.calls.map((c) => c.argv)).toEqual(
      CLUSTER_SERVICES.map((service) =>
        buildArgs(service, [
          `${inRegion('us-east-1')}/${service}:v1.4.0`,
          `${inRegion('eu-west-1')}/${service}:v1.4.0`,
        ]),
      ),
    );
    expect(new Set(run.calls.map((c) => c.cwd))).toEqual(new Set([root]));
    const snippet = JSON.parse(run.stdout) as { images: { registry: string; tag: string } };
    expect(snippet).toEqual({ images: { registry: ecr, tag: 'v1.4.0' } });
    // What cdk.json gets is what the CDK app accepts as pre-built images.
    expect(loadConfig(snippet).images).toEqual({ source: 'prebuilt', registry: ecr, tag: 'v1.4.0' });
    expect(run.stderr).toMatch(/not pushed/);
  });

  test('--push pushes every reference after all builds succeeded', () => {
    const run = imagesBuild(['--registry', ecr, '--tag', 'abc123', '--region', 'us-west-2', '--push']);
    expect(run.status).toBe(0);
    expect(run.calls.map((c) => c.argv[0])).toEqual([
      ...CLUSTER_SERVICES.map(() => 'build'),
      ...CLUSTER_SERVICES.map(() => 'push'),
    ]);
    expect(run.calls.slice(CLUSTER_SERVICES.length).map((c) => c.argv)).toEqual(
      CLUSTER_SERVICES.map((service) => ['push', `${inRegion('us-west-2')}/${service}:abc123`]),
    );
    expect(run.stderr).not.toMatch(/not pushed/);
  });

  test('a registry without {region} takes no --region; --service builds a subset, each once', () => {
    const run = imagesBuild([
      '--registry',
      'ghcr.io/acme/gco',
      '--tag',
      '2026.11.1',
      '--service',
      'cost-monitor',
      '--service',
      'inference-proxy',
      '--service',
      'cost-monitor',
    ]);
    expect(run.status).toBe(0);
    expect(run.calls.map((c) => c.argv)).toEqual([
      buildArgs('cost-monitor', ['ghcr.io/acme/gco/cost-monitor:2026.11.1']),
      buildArgs('inference-proxy', ['ghcr.io/acme/gco/inference-proxy:2026.11.1']),
    ]);
    expect(run.stderr).toMatch(/needs all 4 services under the same tag/);
  });

  test('without CDK_DOCKER the CLI is `docker` from PATH', () => {
    const run = imagesBuild(['--registry', 'ghcr.io/acme/gco', '--tag', 't', '--service', 'health-monitor'], {
      CDK_DOCKER: undefined,
      PATH: `${dir}${delimiter}${process.env.PATH ?? ''}`,
    });
    expect(run.status).toBe(0);
    expect(run.calls.map((c) => c.argv)).toEqual([
      buildArgs('health-monitor', ['ghcr.io/acme/gco/health-monitor:t']),
    ]);
    expect(run.stderr).toContain('$ docker build --platform linux/amd64');
  });
});

describe('failures: exit 1', () => {
  test('a failed build stops the run: no later build, no push, no snippet', () => {
    const run = imagesBuild(['--registry', ecr, '--tag', 'v1', '--region', 'us-east-1', '--push'], {
      FAKE_CLI_FAIL_ON: 'SERVICE=health-monitor',
    });
    expect(run.status).toBe(1);
    expect(run.calls.map((c) => c.argv[6])).toEqual(['SERVICE=manifest-processor', 'SERVICE=health-monitor']);
    expect(run.stderr).toContain('fake build error');
    expect(run.stderr).toContain(`"${fakeCli} build" failed (exit code 3)`);
    expect(run.stdout).toBe('');
  });

  test('a failed push fails the run', () => {
    const run = imagesBuild(['--registry', 'ghcr.io/acme/gco', '--tag', 'v1', '--push'], {
      FAKE_CLI_FAIL_ON: 'push',
    });
    expect(run.status).toBe(1);
    expect(run.calls.filter((c) => c.argv[0] === 'push')).toHaveLength(1);
    expect(run.stdout).toBe('');
  });

  test('a container CLI that does not exist', () => {
    const run = imagesBuild(['--registry', 'ghcr.io/acme/gco', '--tag', 'v1'], {
      CDK_DOCKER: join(dir, 'no-such-cli'),
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /container CLI ".*no-such-cli" not found \(install Docker, Finch or Podman, or set CDK_DOCKER\)/,
    );
  });
});

describe('bad arguments: exit 2, nothing run', () => {
  test.each([
    [['--tag', 'v1'], /--registry required/],
    [['--registry', 'ghcr.io/acme/gco'], /--tag required/],
    [[], /--registry and --tag required/],
    // lib/config.ts's rules, named by flag.
    [
      ['--registry', 'ghcr.io/acme/gco/', '--tag', 'v1'],
      /--registry: expected an image repository prefix .* got "ghcr.io\/acme\/gco\/"/,
    ],
    [['--registry', 'ghcr.io/acme/gco:v1', '--tag', 'v1'], /--registry: expected an image repository prefix/],
    [['--registry', 'ghcr.io/acme/gco', '--tag=-v1'], /--tag: expected a Docker image tag.* got "-v1"/],
    [['--registry', ecr, '--tag', 'v1'], /--registry contains \{region\}: give --region/],
    [
      ['--registry', 'ghcr.io/acme/gco', '--tag', 'v1', '--region', 'us-east-1'],
      /--region given, but --registry has no \{region\}/,
    ],
    [
      ['--registry', ecr, '--tag', 'v1', '--region', 'us-east-9'],
      /--region: not a known AWS region: us-east-9/,
    ],
    [
      ['--registry', ecr, '--tag', 'v1', '--region', 'us-east-1', '--service', 'web'],
      /--service: unknown web \(services: manifest-processor, /,
    ],
    [['--registry', ecr, '--tag', 'v1', '--regions', 'us-east-1'], /Unknown option '--regions'/],
    [['--registry', ecr, '--tag', 'v1', 'extra'], /Unexpected argument 'extra'/],
  ])('%j', (args, message) => {
    const run = imagesBuild(args);
    expect({ status: run.status, calls: run.calls, stdout: run.stdout }).toEqual({
      status: 2,
      calls: [],
      stdout: '',
    });
    expect(run.stderr).toMatch(message);
  });

  test('--help prints the usage and exits 0', () => {
    const run = imagesBuild(['--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Usage: npm run images:build -- --registry <prefix> --tag <tag>');
    expect(run.calls).toEqual([]);
  });
});
