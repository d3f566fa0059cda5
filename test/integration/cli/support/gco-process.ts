/**
 * Runs the real `gco` executable (cli/gco.mjs, the package's bin) as a child process with a clean
 * environment: no AWS variables, config files or instance metadata unless a test passes them, a private
 * HOME and discovery cache. `onStdout` sees output as it arrives (streaming tests).
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suiteTempDir } from '../../../support/suite-temp-dir.js';

const GCO_BIN = join(process.cwd(), 'cli', 'gco.mjs');

export interface GcoResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface GcoOptions {
  env?: Record<string, string>;
  stdin?: string;
  cwd?: string;
  onStdout?: (chunk: string) => void;
}

/** A HOME, cache and AWS config of its own, so nothing of the machine's leaks into a test. */
function isolatedEnv(): Record<string, string> {
  const home = suiteTempDir('gco-home-');
  return {
    PATH: process.env.PATH ?? '',
    HOME: home,
    GCO_CACHE_DIR: join(home, 'cache'),
    AWS_CONFIG_FILE: join(home, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-aws-credentials'),
    // Never probe the instance metadata service from a test machine.
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}

export function gco(args: readonly string[], opts: GcoOptions = {}): Promise<GcoResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [GCO_BIN, ...args], {
      env: { ...isolatedEnv(), ...opts.env },
      cwd: opts.cwd ?? process.cwd(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      opts.onStdout?.(chunk);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(opts.stdin ?? '');
  });
}

/** Every line of stdout parsed as JSON (`-o json` prints one API answer per line). */
export function jsonLines(result: GcoResult): unknown[] {
  return result.stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/** Writes a file into a fresh temporary folder; returns its path. */
export function tempFile(name: string, content: string): string {
  const file = join(suiteTempDir('gco-input-'), name);
  writeFileSync(file, content);
  return file;
}
