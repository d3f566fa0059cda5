// kubectl (any version; 1.32 here) against the Kubernetes API simulator: re-applying a Job whose pod
// template changed fails as on a real 1.34 API server ("spec.template: Invalid value: ...: field is
// immutable", pkg/apis/batch/validation/validation.go ValidateJobSpecUpdate), by client-side apply,
// server-side apply and replace, while a change to a mutable field still applies. Finds kubectl and
// skips (or, in CI, fails) exactly as test/integration/kubectl.test.ts does.

import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { KubeApiSimulator, KubeObject } from '../../local/kube-api-simulator/index.js';
import { startKubeApiSimulator } from '../../local/kube-api-simulator/index.js';
import { at } from '../support/json.js';

const KUBECTL = process.env.KUBECTL ?? 'kubectl';
const kubectlInstalled = spawnSync(KUBECTL, ['version', '--client'], { stdio: 'ignore' }).error === undefined;
const required = process.env.CI === 'true' || process.env.CI === '1';
if (!kubectlInstalled && !required) {
  process.stderr.write(
    `notice: "${KUBECTL}" not found; kubectl immutability tests skipped (apt-get install kubernetes-client)\n`,
  );
}
const kubectlTest = kubectlInstalled || required ? test : test.skip;
const NS = 'svc-jobs';

let sim: KubeApiSimulator;
let dir: string;
let kubeconfig: string;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl without blocking the event loop (the simulator answers from this same process). */
function kubectl(...args: string[]): Promise<Result> {
  const env = { ...process.env, HOME: dir, KUBECONFIG: kubeconfig };
  const argv = ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args];
  return new Promise((resolve, reject) => {
    execFile(KUBECTL, argv, { env, timeout: 20_000 }, (err, stdout, stderr) => {
      if (err?.code === 'ENOENT') {
        reject(
          new Error(`kubectl is not installed ("${KUBECTL}" not found on PATH); set KUBECTL or install it`),
        );
        return;
      }
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

async function ok(...args: string[]): Promise<string> {
  const r = await kubectl(...args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

function job(name: string, command: string, backoffLimit = 0): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: NS },
    spec: {
      backoffLimit,
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', command] }],
        },
      },
    },
  };
}

function write(name: string, obj: KubeObject): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(obj));
  return file;
}

beforeAll(async () => {
  if (!kubectlInstalled && !required) return;
  dir = mkdtempSync(join(tmpdir(), 'kubectl-immutable-'));
  sim = await startKubeApiSimulator({ kubelet: { pendingMs: 50, runningMs: 100 } });
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, sim.kubeConfigYaml());
});

afterAll(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

kubectlTest('kubectl apply of a Job with a changed template fails with "field is immutable"', async () => {
  expect(await ok('apply', '-f', write('v1.json', job('reapply', 'echo one')))).toBe(
    'job.batch/reapply created\n',
  );
  // Unchanged: nothing to do. Mutable field (backoffLimit): configured.
  expect(await ok('apply', '-f', write('v1.json', job('reapply', 'echo one')))).toBe(
    'job.batch/reapply unchanged\n',
  );
  expect(await ok('apply', '-f', write('v1b.json', job('reapply', 'echo one', 2)))).toBe(
    'job.batch/reapply configured\n',
  );

  const changed = write('v2.json', job('reapply', 'echo two', 2));
  const r = await kubectl('apply', '-f', changed);
  expect(r.code).not.toBe(0);
  expect(r.stderr).toMatch(
    /The Job "reapply" is invalid: spec\.template: Invalid value: .*: field is immutable/s,
  );

  const ssa = await kubectl('apply', '--server-side', '-f', changed);
  expect(ssa.code).not.toBe(0);
  expect(ssa.stderr).toMatch(/spec\.template: Invalid value: .*: field is immutable/s);

  const dry = await kubectl('apply', '--dry-run=server', '-f', changed);
  expect(dry.code).not.toBe(0);
  expect(dry.stderr).toContain('field is immutable');

  const replaced = await kubectl('replace', '-f', changed);
  expect(replaced.code).not.toBe(0);
  expect(replaced.stderr).toContain('field is immutable');

  const stored = sim.get('batch/v1', 'Job', NS, 'reapply');
  expect(at(stored, 'spec.template.spec.containers.0.command')).toEqual(['sh', '-c', 'echo one']);
  expect(at(stored, 'spec.backoffLimit')).toBe(2);
});
