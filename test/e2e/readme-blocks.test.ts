/**
 * README.md's shell blocks run as a reader pastes them: `npm start` in a fresh working copy, then every
 * ```sh block, top to bottom, each in a new `bash` (so no block leans on a variable an earlier one set),
 * with `set -eo pipefail` so any failing command fails the block. `curl` is wrapped to fail on an HTTP
 * error status (curl itself exits 0 on a 403), so a signing mistake in an example is a failure here.
 * Blocks marked `<!-- readme-blocks: skip: … -->` (deploying to AWS, `npm start` itself) are listed, not run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { shellBlocks } from '../support/readme-blocks.js';
import { suiteTempDir } from '../support/suite-temp-dir.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const blocks = shellBlocks(readFileSync(join(root, 'README.md'), 'utf8'));

/** A working copy: the repository's files linked in, its own `.local/` (what `npm start` writes). */
function workingCopy(): string {
  const dir = suiteTempDir('gco-readme-');
  for (const entry of readdirSync(root)) {
    if (entry === '.local' || entry === '.git' || entry === 'cdk.out') continue;
    symlinkSync(join(root, entry), join(dir, entry));
  }
  return dir;
}

/** PATH entry whose `curl` fails on HTTP errors, as `--fail-with-body` does, and otherwise is curl. */
function failingCurl(dir: string): string {
  const bin = join(dir, '.readme-bin');
  mkdirSync(bin);
  const realCurl = ['/usr/bin/curl', '/bin/curl', '/usr/local/bin/curl'].find((p) => existsSync(p)) ?? 'curl';
  writeFileSync(
    join(bin, 'curl'),
    `#!/bin/sh\nexec ${realCurl} --fail-with-body --silent --show-error "$@"\n`,
  );
  chmodSync(join(bin, 'curl'), 0o755);
  return bin;
}

/** The environment of a fresh terminal: none of this test runner's AWS or gco settings. */
function readerEnv(home: string, bin: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(AWS_|GCO_|LOCAL_|SIGNING_KEY|JEST_|NODE_OPTIONS)/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, HOME: home, PATH: `${bin}:${process.env.PATH ?? ''}`, NO_COLOR: '1' };
}

function runBash(
  code: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-o', 'pipefail', '-e', '-c', code], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('close', (status) => resolve({ status, output }));
  });
}

let dir = '';
let env: NodeJS.ProcessEnv = {};
let platform: ChildProcess | undefined;
let startOutput = '';

beforeAll(async () => {
  dir = workingCopy();
  const home = suiteTempDir('gco-readme-home-');
  env = readerEnv(home, failingCurl(dir));
  // `npm start`, as the README's first block runs it.
  platform = spawn('npm', ['start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  platform.stdout?.on('data', (c: Buffer) => (startOutput += c.toString()));
  platform.stderr?.on('data', (c: Buffer) => (startOutput += c.toString()));
  const endpoints = join(dir, '.local', 'endpoints.json');
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (/ready in [\d.]+ s/.test(startOutput) && existsSync(endpoints)) {
        clearInterval(timer);
        resolve();
      }
    }, 50);
    platform?.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`npm start exited with ${code}:\n${startOutput}`));
    });
  });
}, 180_000);

afterAll(async () => {
  const child = platform;
  if (child?.pid === undefined || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGTERM');
  await exited;
}, 30_000);

test('the README has shell blocks to run, and says why it skips the others', () => {
  expect(blocks.filter((b) => b.skip === undefined).length).toBeGreaterThanOrEqual(4);
  for (const block of blocks.filter((b) => b.skip !== undefined)) expect(block.skip).toMatch(/\w{3,}/);
});

test('every README shell block runs when pasted alone, top to bottom, against npm start', async () => {
  const failures: string[] = [];
  for (const block of blocks) {
    if (block.skip !== undefined) continue;
    const { status, output } = await runBash(block.code, dir, env);
    if (status !== 0)
      failures.push(`README.md:${block.line} exited ${status}\n${block.code}\n--- output ---\n${output}`);
  }
  expect(failures).toEqual([]);
}, 600_000);
