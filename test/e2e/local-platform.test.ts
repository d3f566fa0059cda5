/**
 * `npm start` as a user runs it: a child process that prints a ready line, every URL, the credentials
 * and three `curl --aws-sigv4` examples, publishes .local/endpoints.json, and stops cleanly on Ctrl-C.
 * The printed examples are run as printed, with the real `curl` binary signing them. The launcher
 * (bin/local.mjs) is the platform process itself: nothing else of it stays running.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@jest/globals';
import { signEnvelope } from '../../contracts/envelope/envelope.js';
import type { LocalEndpoints } from '../../local/platform.js';
import { jsonOf } from '../support/json.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

/** The ids of a process's child processes (Linux /proc; every thread's list). */
function childProcesses(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
    readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean),
  );
}

// Spawns `npm start` (a cold esbuild bundle, every service) and runs curl against it: 60 s, passed
// explicitly below, instead of the 30 s default.
test('npm start: ready line, URLs, credentials, working curl examples, endpoints.json, clean stop', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gco-local-'));
  // Forget the recorded bundle so this start builds one: esbuild's service must be gone by ready.
  rmSync(join(root, '.local/build/build.json'), { force: true });
  // What `npm start` runs (package.json "start").
  const child = spawn(process.execPath, ['bin/local.mjs'], {
    cwd: root,
    env: { ...process.env, GCO_LOCAL_DIR: dir, SIGNING_KEY: '', LOCAL_REGIONS: '' },
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        // The examples are the last thing printed: wait for the whole banner.
        if (/ready in [\d.]+ s/.test(out) && out.includes('kubectl:')) {
          clearInterval(timer);
          resolve();
        }
      }, 20);
      child.once('exit', (code) => {
        clearInterval(timer);
        reject(new Error(`npm start exited with ${code}:\n${out}`));
      });
    });

    // The launcher is the platform process: no esbuild service or other child process stays beside it.
    expect(out).toMatch(/up +[\d.]+ s +bundle built \(\.local\/build\/build-[^/]+\/local\.js\)/);
    expect(childProcesses(child.pid ?? 0)).toEqual([]);

    const endpoints = JSON.parse(readFileSync(join(dir, 'endpoints.json'), 'utf8')) as LocalEndpoints;
    expect(Object.keys(endpoints.services).sort()).toEqual([
      'cost-monitor',
      'health-monitor',
      'inference-proxy',
      'manifest-processor',
    ]);
    expect(endpoints.alb).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(endpoints.apis.global).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/prod$/);
    expect(Object.keys(endpoints.apis.regional)).toEqual(['us-east-1']);
    expect(endpoints.apis.analytics).toMatch(/\/live$/);
    expect(endpoints.credentials.accessKeyId).toMatch(/^AKIA[A-Z2-7]{16}$/);
    expect(endpoints.signingKey).toMatch(/^[0-9a-f]{64}$/);
    // Progress while starting, then every URL and the credentials.
    expect(out).toMatch(/up +[\d.]+ s +us-east-1 +ALB router +https:/);
    for (const url of [
      endpoints.apis.global,
      endpoints.apis.regional['us-east-1'] ?? '',
      endpoints.apis.analytics ?? '',
      endpoints.alb,
    ]) {
      expect(out).toContain(url);
    }
    expect(out).toContain(`AWS_ACCESS_KEY_ID=${endpoints.credentials.accessKeyId}`);
    expect(out).toContain(`AWS_SECRET_ACCESS_KEY=${endpoints.credentials.secretAccessKey}`);

    // The three examples, run exactly as printed after exporting the printed credentials.
    const examples = out
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line.startsWith('curl --aws-sigv4 "aws:amz:'));
    expect(examples).toHaveLength(3);
    const env = {
      ...process.env,
      AWS_ACCESS_KEY_ID: endpoints.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: endpoints.credentials.secretAccessKey,
    };
    const results = await Promise.all(examples.map((line) => run('bash', ['-c', `${line} -sS`], { env })));
    const [health, jobs, completion] = results.map((r) => r.stdout);
    expect(JSON.parse(health ?? '')).toMatchObject({ status: 'healthy', failed_regions: [] });
    expect(JSON.parse(jobs ?? '')).toMatchObject({ jobs: [], count: 0 });
    expect(completion).toMatch(/^data: \{.*"text_completion".*\}\n\n/);
    expect(completion?.trimEnd().endsWith('data: [DONE]')).toBe(true);

    // The services stay reachable directly with the envelope (as before the edge existed).
    const hm = endpoints.services['health-monitor'] ?? '';
    expect((await fetch(`${hm}/api/v1/health`)).status).toBe(200);
    const metrics = await fetch(`${hm}/api/v1/metrics`, {
      headers: signEnvelope({ key: endpoints.signingKey, method: 'GET', target: '/api/v1/metrics' }),
    });
    expect(metrics.status).toBe(200);
    const nodes = await jsonOf(await fetch(`${endpoints.kubernetes}/api/v1/nodes`));
    expect(nodes.items.length).toBeGreaterThan(0);
    expect(readFileSync(join(dir, 'kubeconfig'), 'utf8')).toContain(endpoints.kubernetes);

    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(existsSync(join(dir, 'endpoints.json'))).toBe(false);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
