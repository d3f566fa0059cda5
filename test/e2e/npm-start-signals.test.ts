/**
 * `npm start` stops through any of its processes' pids, as scripts, CI jobs and process managers stop
 * services: SIGTERM or SIGINT to npm's own process (npm forwards both to its script's process,
 * @npmcli/run-script lib/signal-manager.js), SIGTERM to the platform process, and SIGKILL to npm (the
 * platform notices its parent is gone). Each time, within 10 s: every process of the tree has ended, no
 * port of endpoints.json accepts a connection, and endpoints.json is gone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from '@jest/globals';
import {
  killAll,
  listening,
  npmStart,
  parentOf,
  portsOf,
  processTree,
  waitGone,
  whenReady,
} from './support/npm-start.js';

/** The bound: a stop that takes longer is a hung service to a process manager. */
const STOP_WITHIN_MS = 10_000;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

async function started() {
  const outDir = mkdtempSync(join(tmpdir(), 'gco-signals-'));
  const run = npmStart(outDir);
  cleanups.push(() => {
    killAll(processTree(run.npm.pid ?? 0));
    rmSync(outDir, { recursive: true, force: true });
  });
  const endpoints = await whenReady(run, outDir);
  const npmPid = run.npm.pid ?? 0;
  const tree = processTree(npmPid);
  cleanups.push(() => killAll(tree));
  return { run, outDir, endpoints, npmPid, tree };
}

/** What every clean stop leaves: no process, no listener, no endpoints.json. */
async function expectStopped(s: Awaited<ReturnType<typeof started>>) {
  expect(await waitGone(s.tree, STOP_WITHIN_MS)).toEqual([]);
  expect(await listening(portsOf(s.endpoints))).toEqual([]);
  expect(existsSync(join(s.outDir, 'endpoints.json'))).toBe(false);
}

test('the platform is npm’s own child: no shell between them, nothing else in the tree', async () => {
  const s = await started();
  // package.json runs `exec node bin/local.mjs`: the pid in endpoints.json is npm's child.
  expect(parentOf(s.endpoints.pid)).toBe(s.npmPid);
  expect(s.tree).toEqual([s.npmPid, s.endpoints.pid]);
  // The envelope signing key is in endpoints.json (mode 600), never on the terminal.
  expect(s.endpoints.signingKey).toMatch(/^[0-9a-f]{64}$/);
  expect(s.run.output()).not.toContain(s.endpoints.signingKey);
  expect(s.run.output()).toContain('State: in memory');

  process.kill(s.npmPid, 'SIGTERM');
  await expectStopped(s);
  // The platform stopped cleanly (exit 0), so npm reports success.
  expect(await s.run.exited).toEqual({ code: 0, signal: null });
  expect(s.run.output()).toMatch(/SIGTERM: stopping …\nstopped\n/);
}, 90_000);

test('SIGINT to the npm pid stops everything', async () => {
  const s = await started();
  process.kill(s.npmPid, 'SIGINT');
  await expectStopped(s);
  expect(await s.run.exited).toEqual({ code: 0, signal: null });
}, 90_000);

test('SIGTERM to the platform process stops it and npm', async () => {
  const s = await started();
  process.kill(s.endpoints.pid, 'SIGTERM');
  await expectStopped(s);
  expect(await s.run.exited).toEqual({ code: 0, signal: null });
}, 90_000);

test('SIGKILL to npm: the platform notices its parent is gone and stops cleanly', async () => {
  const s = await started();
  process.kill(s.npmPid, 'SIGKILL');
  await expectStopped(s);
  expect(s.run.output()).toMatch(/parent exited: stopping …/);
}, 90_000);

test('an unknown argument is refused with the usage, before anything listens', async () => {
  const outDir = mkdtempSync(join(tmpdir(), 'gco-signals-'));
  cleanups.push(() => rmSync(outDir, { recursive: true, force: true }));
  const run = npmStart(outDir, ['--data-directory', outDir]);
  cleanups.push(() => killAll(processTree(run.npm.pid ?? 0)));
  const { code } = await run.exited;
  expect(code).not.toBe(0);
  expect(run.output()).toMatch(/Unknown option '--data-directory'/);
  expect(run.output()).toContain('usage: npm start [-- --data-dir DIR]');
  expect(existsSync(join(outDir, 'endpoints.json'))).toBe(false);
}, 60_000);
