// The real kubectl against the simulator's field validation: kubectl (1.27+) reads /openapi/v3, finds the
// `fieldValidation` parameter on the kind's PATCH operation (QueryParamVerifierV3) and leaves validation to
// the server: --validate=strict (the default) sends fieldValidation=Strict, --validate=warn sends Warn and
// --validate=false sends Ignore. https://kubernetes.io/docs/reference/kubectl/generated/kubectl_apply/
// Finds kubectl as test/integration/kubectl.test.ts does (KUBECTL, else PATH; skipped with a notice
// off CI when missing).

import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { KubeApiSimulator } from '../../local/kube-api-simulator/index.js';
import { startKubeApiSimulator } from '../../local/kube-api-simulator/index.js';
import { at } from '../support/json.js';

const KUBECTL = process.env.KUBECTL ?? 'kubectl';
const kubectlInstalled = spawnSync(KUBECTL, ['version', '--client'], { stdio: 'ignore' }).error === undefined;
const required = process.env.CI === 'true' || process.env.CI === '1';
if (!kubectlInstalled && !required) {
  process.stderr.write(`notice: "${KUBECTL}" not found; kubectl field-validation tests skipped\n`);
}
const kubectlTest = kubectlInstalled || required ? test : test.skip;
const NS = 'kubectl-fields';

let sim: KubeApiSimulator;
let dir: string;
let kubeconfig: string;
let minor = 0;

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
        reject(new Error(`kubectl is not installed ("${KUBECTL}" not found); set KUBECTL or install it`));
        return;
      }
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/** A Job manifest in YAML with `spec.backofLimit` (a typo of backoffLimit) and a container `comand`. */
function typoJobYaml(name: string): string {
  return `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
  namespace: ${NS}
spec:
  backofLimit: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox:1.36
        comand: ["sh", "-c", "exit 0"]
`;
}

function writeJob(name: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, typoJobYaml(name));
  return file;
}

beforeAll(async () => {
  if (!kubectlInstalled && !required) return;
  dir = mkdtempSync(join(tmpdir(), 'kubectl-fields-'));
  sim = await startKubeApiSimulator({ kubelet: { pendingMs: 50, runningMs: 150 } });
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, sim.kubeConfigYaml());
  sim.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  const probe = await kubectl('version', '--client', '-o', 'json');
  const m = at(JSON.parse(probe.stdout || '{}') as unknown, 'clientVersion.minor');
  minor = typeof m === 'string' ? parseInt(m, 10) : 0;
});

afterAll(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Server-side field validation needs kubectl 1.27+ (older ones validate client-side from /openapi/v2). */
function serverSideValidation(): boolean {
  return minor >= 27;
}

kubectlTest(
  'kubectl apply -f with spec.backofLimit fails naming both unknown fields; nothing is created',
  async () => {
    if (!serverSideValidation()) return;
    const r = await kubectl('apply', '-f', writeJob('typo-strict'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('Error from server (BadRequest)');
    expect(r.stderr).toContain(
      'Job in version "v1" cannot be handled as a Job: strict decoding error: unknown field "spec.backofLimit", unknown field "spec.template.spec.containers[0].comand"',
    );
    expect(sim.get('batch/v1', 'Job', NS, 'typo-strict')).toBeUndefined();
  },
);

kubectlTest('kubectl create --validate=strict fails the same way', async () => {
  if (!serverSideValidation()) return;
  const r = await kubectl('create', '--validate=strict', '-f', writeJob('typo-create'));
  expect(r.code).not.toBe(0);
  expect(r.stderr).toContain('unknown field "spec.backofLimit"');
  expect(sim.get('batch/v1', 'Job', NS, 'typo-create')).toBeUndefined();
});

kubectlTest(
  'kubectl apply --validate=warn creates the Job without the fields and prints the warnings',
  async () => {
    if (!serverSideValidation()) return;
    const r = await kubectl('apply', '--validate=warn', '-f', writeJob('typo-warn'));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('job.batch/typo-warn created');
    expect(r.stderr).toContain('Warning: unknown field "spec.backofLimit"');
    expect(r.stderr).toContain('Warning: unknown field "spec.template.spec.containers[0].comand"');
    const job = sim.get('batch/v1', 'Job', NS, 'typo-warn');
    expect(at(job, 'spec')).not.toHaveProperty('backofLimit');
    expect(at(job, 'spec.backoffLimit')).toBe(6); // the default, as a real cluster would run it
  },
);

kubectlTest('kubectl apply --validate=false creates the Job silently, the fields dropped', async () => {
  const r = await kubectl('apply', '--validate=false', '-f', writeJob('typo-ignore'));
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('job.batch/typo-ignore created');
  expect(r.stderr).not.toContain('unknown field');
  expect(at(sim.get('batch/v1', 'Job', NS, 'typo-ignore'), 'spec')).not.toHaveProperty('backofLimit');
});

kubectlTest(
  'kubectl apply --server-side reports the typed-conversion failure of the unknown field',
  async () => {
    if (!serverSideValidation()) return;
    const r = await kubectl('apply', '--server-side', '-f', writeJob('typo-ssa'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`failed to create typed patch object (${NS}/typo-ssa; batch/v1, Kind=Job)`);
    expect(r.stderr).toContain('.spec.backofLimit: field not declared in schema');
    expect(sim.get('batch/v1', 'Job', NS, 'typo-ssa')).toBeUndefined();
  },
);

kubectlTest(
  'kubectl apply of a valid Job, then of a change, still works (strategic merge patch)',
  async () => {
    const file = join(dir, 'valid.yaml');
    const valid = typoJobYaml('valid').replace('backofLimit', 'backoffLimit').replace('comand', 'command');
    writeFileSync(file, valid);
    const first = await kubectl('apply', '-f', file);
    expect(first.stderr).toBe('');
    expect(first.stdout).toContain('job.batch/valid created');
    writeFileSync(file, valid.replace('  name: valid\n', '  name: valid\n  labels:\n    team: a\n'));
    const second = await kubectl('apply', '-f', file);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('job.batch/valid configured');
    expect(at(sim.get('batch/v1', 'Job', NS, 'valid'), 'metadata.labels.team')).toBe('a');
  },
);
