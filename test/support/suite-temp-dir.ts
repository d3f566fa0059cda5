// Temporary directories a test suite makes, removed when the suite ends (also when a test fails), so a
// full jest run leaves nothing behind in os.tmpdir().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from '@jest/globals';

const made: string[] = [];

// Registered when a suite first imports this module (jest gives every suite its own module registry).
// rmSync does not follow symbolic links, so a directory of links into the repository is safe to remove.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new empty directory `<tmpdir>/<prefix>XXXXXX`, deleted after the importing suite's last test. */
export function suiteTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/**
 * An `outdir` for one CDK App a test builds. Without one, the App's constructor makes a fresh
 * `os.tmpdir()/cdk.outXXXX` (AppProps.outdir: "If CDK_OUTDIR is not defined, uses a temp directory",
 * https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.AppProps.html) that nothing deletes: a full
 * jest run left 51 of them, ~3.5 GB (the kubectl layer alone is 70 MB per synthesized app), and a few
 * hundred runs filled a developer's disk. `CDK_OUTDIR` is not the fix: it also turns on auto-synth at
 * exit, and every App of a suite would share one directory.
 */
export function assemblyOutdir(): string {
  return suiteTempDir('gco-test-cdk-');
}
