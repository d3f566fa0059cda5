// Conformance check of the Kubernetes API simulator against an independent client: the real kubectl
// binary (Debian's kubernetes-client 1.20 in CI; any newer kubectl works too). Set KUBECTL to pick a
// specific binary. In CI (CI=true) a missing kubectl is a failure: .ci/run installs it. On a developer
// machine without kubectl these tests are skipped with a notice, so `npm test` still passes there.

import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { KubeApiSimulator, KubeObject } from '../../local/kube-api-simulator/index.js';
import { CPU_NODE, GPU_NODE, startKubeApiSimulator } from '../../local/kube-api-simulator/index.js';
import { at } from '../support/json.js';
import { waitUntil } from '../support/wait-for.js';

const KUBECTL = process.env.KUBECTL ?? 'kubectl';
const kubectlInstalled = spawnSync(KUBECTL, ['version', '--client'], { stdio: 'ignore' }).error === undefined;
const required = process.env.CI === 'true' || process.env.CI === '1';
if (!kubectlInstalled && !required) {
  process.stderr.write(
    `notice: "${KUBECTL}" not found; kubectl conformance tests skipped (apt-get install kubernetes-client)\n`,
  );
}
/** Runs the suite when kubectl exists, or in CI, where its absence must fail loudly. */
const kubectlTest = kubectlInstalled || required ? test : test.skip;
const NS = 'svc-jobs';

let sim: KubeApiSimulator;
let dir: string;
let kubeconfig: string;
let minor = 0;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a binary without blocking the event loop (the simulator answers from this same process). */
function exec(bin: string, args: string[], env: NodeJS.ProcessEnv): Promise<Result> {
  return new Promise((resolve, reject) => {
    execFile(bin, args, { env, timeout: 20_000, maxBuffer: 8 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err?.code === 'ENOENT') {
        reject(
          new Error(
            `kubectl is not installed ("${bin}" not found on PATH). Install it with ` +
              '`apt-get install -y kubernetes-client` (CI installs it), or set KUBECTL to a kubectl binary.',
          ),
        );
        return;
      }
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

async function kubectl(...args: string[]): Promise<string> {
  const env = { ...process.env, HOME: dir, KUBECONFIG: kubeconfig };
  const r = await exec(
    KUBECTL,
    ['--kubeconfig', kubeconfig, '--cache-dir', join(dir, 'cache'), ...args],
    env,
  );
  if (r.code !== 0)
    throw new Error(`kubectl ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r.stdout;
}

function jobManifest(name: string, command: string, extra: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: NS, labels: { origin: 'kubectl-test' } },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { annotations: extra },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'main',
              image: 'busybox:1.36',
              command: ['sh', '-c', command],
              resources: { requests: { cpu: '100m', memory: '32Mi' } },
            },
          ],
        },
      },
    },
  };
}

function jobPods(name: string): KubeObject[] {
  return sim.list('v1', 'Pod', NS).filter((p) => at(p, 'metadata.labels.job-name') === name);
}

beforeAll(async () => {
  if (!kubectlInstalled && !required) return;
  dir = mkdtempSync(join(tmpdir(), 'kubectl-sim-'));
  const probe = await exec(KUBECTL, ['version', '--client', '-o', 'json'], { ...process.env, HOME: dir });
  const parsed: unknown = JSON.parse(probe.stdout || '{}');
  // "20" or "32+" (some builds append a plus).
  const m = at(parsed, 'clientVersion.minor');
  minor = typeof m === 'string' ? parseInt(m, 10) : 0;
  sim = await startKubeApiSimulator({ kubelet: { pendingMs: 50, runningMs: 150 } });
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, sim.kubeConfigYaml());
});

afterAll(async () => {
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

kubectlTest('kubectl get nodes,pods -A prints server-side tables', async () => {
  sim.put({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'seeded-pod',
      namespace: 'kube-system',
      annotations: { 'sim.gco.dev/running-ms': '600000' },
    },
    spec: { restartPolicy: 'Always', containers: [{ name: 'dns', image: 'coredns:1.11' }] },
  });
  await waitUntil(
    () => sim.get('v1', 'Pod', 'kube-system', 'seeded-pod'),
    (p) => at(p, 'status.phase') === 'Running',
    'seeded pod running',
  );
  const out = await kubectl('get', 'nodes,pods', '-A');
  expect(out).toMatch(/NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION/);
  expect(out).toMatch(new RegExp(`node/${CPU_NODE.replace(/\./g, '\\.')}\\s+Ready\\s+<none>`));
  expect(out).toContain(`node/${GPU_NODE}`);
  expect(out).toMatch(/NAMESPACE\s+NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE/);
  expect(out).toMatch(/kube-system\s+pod\/seeded-pod\s+1\/1\s+Running\s+0/);
});

kubectlTest('kubectl create -f job.json, get -o json, logs, describe and delete --cascade', async () => {
  const file = join(dir, 'job.json');
  writeFileSync(file, JSON.stringify(jobManifest('kubectl-job', 'echo hello from kubectl; exit 0')));
  expect(await kubectl('create', '-f', file)).toBe('job.batch/kubectl-job created\n');

  const job = await waitUntil(
    async () => {
      const list: unknown = JSON.parse(await kubectl('get', 'jobs', '-n', NS, '-o', 'json'));
      const items = at(list, 'items');
      return Array.isArray(items) ? items.find((j) => at(j, 'metadata.name') === 'kubectl-job') : undefined;
    },
    (j) => at(j, 'status.succeeded') === 1,
    'job to succeed',
  );
  expect(at(job, 'status.conditions')).toEqual(
    expect.arrayContaining([expect.objectContaining({ type: 'Complete', status: 'True' })]),
  );

  const table = await kubectl('get', 'jobs', '-n', NS);
  expect(table).toMatch(/kubectl-job\s+(Complete\s+)?1\/1/);

  const logs = await kubectl('logs', 'job/kubectl-job', '-n', NS);
  expect(logs).toContain('hello from kubectl');
  expect(logs).toContain('echo hello from kubectl; exit 0');
  const [pod] = jobPods('kubectl-job');
  const podName = pod?.metadata.name ?? '';
  const tail = await kubectl('logs', podName, '-n', NS, '-c', 'main', '--tail=1');
  expect(tail).toBe('[gco-sim] container "main" exited with code 0\n');
  expect(await kubectl('logs', podName, '-n', NS, '--tail=1', '--timestamps')).toMatch(
    /^\d{4}-\d\d-\d\dT[\d:.]+Z \[gco-sim\]/,
  );

  const describe = await kubectl('describe', 'job', 'kubectl-job', '-n', NS);
  expect(describe).toMatch(/Pods Statuses:\s+0 (Active|Running).*1 Succeeded.*0 Failed/);
  expect(describe).toMatch(/Normal\s+SuccessfulCreate\s+.*job-controller\s+Created pod: kubectl-job-/);

  // kubectl 1.20 spells background cascading `--cascade=true`; newer versions `--cascade=background`.
  const cascade = minor > 0 && minor <= 20 ? '--cascade=true' : '--cascade=background';
  expect(await kubectl('delete', 'job', 'kubectl-job', '-n', NS, cascade)).toBe(
    'job.batch "kubectl-job" deleted\n',
  );
  expect(sim.get('batch/v1', 'Job', NS, 'kubectl-job')).toBeUndefined();
  expect(jobPods('kubectl-job')).toHaveLength(0);
});

kubectlTest('kubectl shows a failed job and its pod', async () => {
  const file = join(dir, 'fail.json');
  writeFileSync(file, JSON.stringify(jobManifest('kubectl-fail', 'echo about to fail; exit 7')));
  await kubectl('create', '-f', file);
  await waitUntil(
    () => sim.get('batch/v1', 'Job', NS, 'kubectl-fail'),
    (j) => at(j, 'status.failed') === 1,
    'job to fail',
  );
  const pods = await kubectl('get', 'pods', '-n', NS, '-l', 'job-name=kubectl-fail');
  expect(pods).toMatch(/kubectl-fail-[a-z0-9]{5}\s+0\/1\s+Error\s+0/);
  const phase = await kubectl(
    'get',
    'pods',
    '-n',
    NS,
    '-l',
    'job-name=kubectl-fail',
    '-o',
    'jsonpath={.items[0].status.phase}',
  );
  expect(phase).toBe('Failed');
  const events = await kubectl(
    'get',
    'events',
    '-n',
    NS,
    '--field-selector',
    'involvedObject.name=kubectl-fail',
  );
  expect(events).toContain('BackoffLimitExceeded');
});

kubectlTest('kubectl apply (client-side and server-side) of a Deployment', async () => {
  const file = join(dir, 'deploy.json');
  const deploy = (replicas: number): string =>
    JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: NS },
      spec: {
        replicas,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] },
        },
      },
    });
  writeFileSync(file, deploy(1));
  expect(await kubectl('apply', '-f', file)).toBe('deployment.apps/web created\n');
  writeFileSync(file, deploy(2));
  expect(await kubectl('apply', '-f', file)).toBe('deployment.apps/web configured\n');
  writeFileSync(file, deploy(3));
  expect(await kubectl('apply', '--server-side', '-f', file)).toBe(
    'deployment.apps/web serverside-applied\n',
  );
  expect(at(sim.get('apps/v1', 'Deployment', NS, 'web'), 'spec.replicas')).toBe(3);
  expect(await kubectl('get', 'deploy', 'web', '-n', NS, '-o', 'jsonpath={.spec.replicas}')).toBe('3');
});

kubectlTest('kubectl top and api-resources use metrics.k8s.io and discovery', async () => {
  sim.setNodeUsage(CPU_NODE, { cpu: '2', memory: '8Gi' });
  const top = await kubectl('top', 'nodes');
  expect(top).toMatch(new RegExp(`${CPU_NODE.replace(/\./g, '\\.')}\\s+2000m\\s+25%\\s+8192Mi\\s+25%`));
  const resources = await kubectl('api-resources');
  expect(resources).toMatch(/jobs\s+batch\/v1\s+true\s+Job/);
  expect(resources).toMatch(/pods\s+po\s+v1\s+true\s+Pod/);
});
