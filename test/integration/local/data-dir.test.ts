/**
 * The local platform's data directory (local/data-dir.ts): one platform per directory (a pid file naming
 * a running process refuses the next, one left by a dead process is taken over), and the kept identity
 * (written 0600, read back whole, refused when damaged).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from '@jest/globals';
import { createLocalCredentials } from '../../../local/credentials.js';
import { claimDataDir, readIdentity, writeIdentity } from '../../../local/data-dir.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gco-data-dir-'));
  dirs.push(dir);
  return dir;
}

test('a directory held by a running process is refused; after its release, or its death, it is taken', async () => {
  const dir = dataDir();
  const release = claimDataDir(dir);
  expect(readFileSync(join(dir, 'platform.pid'), 'utf8').trim()).toBe(String(process.pid));
  // This process is running: a second claim (a second platform in it) is refused too.
  expect(() => claimDataDir(dir)).toThrow(`${dir} is in use by the local platform with pid ${process.pid}`);
  release();
  expect(existsSync(join(dir, 'platform.pid'))).toBe(false);

  // Another running process holds it.
  const other = spawn('sleep', ['30']);
  try {
    writeFileSync(join(dir, 'platform.pid'), `${other.pid}\n`);
    expect(() => claimDataDir(dir)).toThrow(`in use by the local platform with pid ${other.pid}`);
  } finally {
    other.kill('SIGKILL');
    await new Promise((resolve) => other.once('exit', resolve));
  }
  // The holder died without releasing it (SIGKILL): the stale file is taken over.
  claimDataDir(dir)();
});

test('a damaged pid file is taken over', () => {
  const dir = dataDir();
  writeFileSync(join(dir, 'platform.pid'), 'not a pid');
  claimDataDir(dir)();
});

test('the identity is kept with mode 600 and read back whole; a damaged one is refused by name', () => {
  const dir = dataDir();
  expect(readIdentity(dir)).toBeUndefined();
  const credentials = createLocalCredentials({
    partition: 'aws',
    accountId: '000000000000',
    aggregatorRoleName: 'gco-aggregator',
  });
  const identity = {
    signingKey: 'k'.repeat(64),
    developer: credentials.developer,
    aggregator: credentials.aggregator,
  };
  writeIdentity(dir, identity);
  expect(statSync(join(dir, 'identity.json')).mode & 0o777).toBe(0o600);
  expect(readIdentity(dir)).toEqual(identity);

  // Kept credentials are used as they are; fixed developer keys still win over them.
  const again = createLocalCredentials({
    partition: 'aws',
    accountId: '000000000000',
    aggregatorRoleName: 'gco-aggregator',
    saved: identity,
  });
  expect(again.find(identity.developer.accessKeyId ?? '')).toEqual(identity.developer);
  expect(again.find(identity.aggregator.accessKeyId ?? '')).toEqual(identity.aggregator);
  const fixed = createLocalCredentials({
    partition: 'aws',
    accountId: '000000000000',
    aggregatorRoleName: 'gco-aggregator',
    saved: identity,
    developer: { accessKeyId: 'AKIAFIXEDFIXEDFIXED0', secretAccessKey: 'fixed' },
  });
  expect(fixed.developer).toMatchObject({
    accessKeyId: 'AKIAFIXEDFIXEDFIXED0',
    principal: identity.developer.principal,
  });
  expect(fixed.find(identity.developer.accessKeyId ?? '')).toBeUndefined();

  writeFileSync(
    join(dir, 'identity.json'),
    JSON.stringify({ ...identity, aggregator: { accessKeyId: 'x' } }),
  );
  expect(() => readIdentity(dir)).toThrow('identity.json: aggregator is incomplete');
  writeFileSync(join(dir, 'identity.json'), JSON.stringify({ ...identity, signingKey: '' }));
  expect(() => readIdentity(dir)).toThrow(/signingKey is missing/);
});
