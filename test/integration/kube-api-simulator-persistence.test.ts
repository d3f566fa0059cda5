// The simulator's journal (local/kube-api-simulator/persistence.ts), driven through @kubernetes/client-node:
// objects written before a restart are there after it with their uids and resourceVersions, versions
// keep increasing, deletions stay deleted, and the "node" restart is handled as the kubelet does —
// a Never pod that was running fails (its Job replaces it), an Always pod starts again.

import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, expect, test } from '@jest/globals';
import { BatchV1Api, CoreV1Api, type V1Pod } from '@kubernetes/client-node';

import {
  kubeConfigFor,
  startKubeApiSimulator,
  type KubeApiSimulator,
} from '../../local/kube-api-simulator/index.js';
import { waitUntil } from '../support/wait-for.js';

const NS = 'svc-jobs';
const open: KubeApiSimulator[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const sim of open.splice(0)) await sim.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function journalFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gco-journal-'));
  dirs.push(dir);
  return join(dir, 'kubernetes.jsonl');
}

async function simulator(file: string, runningMs: number) {
  const sim = await startKubeApiSimulator({ journalFile: file, kubelet: { pendingMs: 20, runningMs } });
  open.push(sim);
  const kc = kubeConfigFor(sim.url);
  return { sim, core: kc.makeApiClient(CoreV1Api), batch: kc.makeApiClient(BatchV1Api) };
}

const phaseOf = (pod: V1Pod | undefined) => pod?.status?.phase;

test('objects, uids, versions and deletions survive a restart; the Never pod that ran fails and its Job replaces it', async () => {
  const file = journalFile();
  const first = await simulator(file, 60_000);
  const kept = await first.core.createNamespacedConfigMap({
    namespace: NS,
    body: { metadata: { name: 'kept' }, data: { a: '1' } },
  });
  await first.core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'gone' } } });
  await first.core.deleteNamespacedConfigMap({ namespace: NS, name: 'gone' });
  await first.core.createNamespace({ body: { metadata: { name: 'team-a' } } });
  await first.batch.createNamespacedJob({
    namespace: NS,
    body: {
      metadata: { name: 'work' },
      spec: {
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36' }] } },
      },
    },
  });
  const runningPod = await waitUntil(
    async () => (await first.core.listNamespacedPod({ namespace: NS, labelSelector: 'job-name=work' })).items,
    (pods) => pods.length === 1 && phaseOf(pods[0]) === 'Running',
    'the job pod running',
  );
  const lastVersion = Number(
    (await first.core.listNamespacedConfigMap({ namespace: NS })).metadata?.resourceVersion,
  );
  // Nothing is flushed at close: closing here leaves the file as a SIGKILL would.
  await first.sim.close();

  const second = await simulator(file, 50);
  const again = await second.core.readNamespacedConfigMap({ namespace: NS, name: 'kept' });
  expect(again.metadata?.uid).toBe(kept.metadata?.uid);
  expect(again.metadata?.resourceVersion).toBe(kept.metadata?.resourceVersion);
  expect(again.data).toEqual({ a: '1' });
  await expect(second.core.readNamespacedConfigMap({ namespace: NS, name: 'gone' })).rejects.toMatchObject({
    code: 404,
  });
  expect((await second.core.readNamespace({ name: 'team-a' })).metadata?.name).toBe('team-a');
  // The seeded nodes and namespaces come from the journal, not a second seeding.
  const nodes = (await second.core.listNode()).items.map((n) => n.metadata?.name);
  expect(new Set(nodes).size).toBe(nodes.length);
  expect(nodes.length).toBeGreaterThan(0);

  // resourceVersion never goes back: the next write is newer than anything before the restart.
  const next = await second.core.createNamespacedConfigMap({
    namespace: NS,
    body: { metadata: { name: 'after' } },
  });
  expect(Number(next.metadata?.resourceVersion)).toBeGreaterThan(lastVersion);

  // The pod's container did not survive: restartPolicy Never → Failed (ContainerStatusUnknown, 137).
  const failed = await second.core.readNamespacedPod({
    namespace: NS,
    name: runningPod[0]?.metadata?.name ?? '',
  });
  expect(phaseOf(failed)).toBe('Failed');
  expect(failed.status?.containerStatuses?.[0]?.state?.terminated).toMatchObject({
    exitCode: 137,
    reason: 'ContainerStatusUnknown',
  });
  // The Job controller replaces it and the Job completes.
  const job = await waitUntil(
    () => second.batch.readNamespacedJob({ namespace: NS, name: 'work' }),
    (j) => (j.status?.conditions ?? []).some((c) => c.type === 'Complete' && c.status === 'True'),
    'the job complete after the restart',
  );
  expect(job.status).toMatchObject({ succeeded: 1, failed: 1 });
});

test('an Always pod that was running starts again after the restart', async () => {
  const file = journalFile();
  const first = await simulator(file, 60_000);
  await first.core.createNamespacedPod({
    namespace: NS,
    body: {
      metadata: { name: 'server' },
      spec: {
        restartPolicy: 'Always',
        containers: [{ name: 'main', image: 'nginx:1.27', command: ['nginx'] }],
      },
    },
  });
  await waitUntil(
    () => first.core.readNamespacedPod({ namespace: NS, name: 'server' }),
    (p) => phaseOf(p) === 'Running',
    'the pod running',
  );
  await first.sim.close();

  const second = await simulator(file, 60_000);
  const pod = await waitUntil(
    () => second.core.readNamespacedPod({ namespace: NS, name: 'server' }),
    (p) => phaseOf(p) === 'Running' && p.status?.containerStatuses?.[0]?.ready === true,
    'the pod running again',
  );
  expect(pod.status?.containerStatuses?.[0]?.state?.running).toBeDefined();
  // Started twice: once before the restart, once after it (not merely kept as Running).
  const events = await second.core.listNamespacedEvent({
    namespace: NS,
    fieldSelector: 'involvedObject.name=server,reason=Started',
  });
  expect(events.items.reduce((sum, e) => sum + (e.count ?? 1), 0)).toBe(2);
});

test('the journal is compacted at start: one line per live object after the counter', async () => {
  const file = journalFile();
  const first = await simulator(file, 50);
  for (let i = 0; i < 5; i++) {
    await first.core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: `cm-${i}` } } });
    await first.core.deleteNamespacedConfigMap({ namespace: NS, name: `cm-${i}` });
  }
  await first.sim.close();
  expect(readFileSync(file, 'utf8')).toContain('"delete"');
  const second = await simulator(file, 50);
  const lines = readFileSync(file, 'utf8').trim().split('\n');
  expect(lines[0]).toMatch(/^\{"rv":\d+\}$/);
  expect(lines.some((l) => l.includes('"delete"'))).toBe(false);
  expect(lines.some((l) => l.includes('"cm-'))).toBe(false);
  expect(
    (await second.core.listNamespacedConfigMap({ namespace: NS })).items.map((c) => c.metadata?.name),
  ).not.toContain('cm-0');
});

test('a torn last line (a write cut by SIGKILL) is ignored; a damaged line before it is refused', async () => {
  const file = journalFile();
  const first = await simulator(file, 50);
  await first.core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name: 'whole' } } });
  await first.sim.close();
  appendFileSync(file, '{"put":{"group":"","plural":"configmaps"},"object":{"metadata":{"na');
  const second = await simulator(file, 50);
  expect((await second.core.readNamespacedConfigMap({ namespace: NS, name: 'whole' })).metadata?.name).toBe(
    'whole',
  );
  await second.sim.close();
  open.splice(0);

  const lines = readFileSync(file, 'utf8').trim().split('\n');
  writeFileSync(file, [lines[0], 'not json', ...lines.slice(1)].join('\n') + '\n');
  await expect(simulator(file, 50)).rejects.toThrow(/kubernetes\.jsonl:2: unreadable journal line/);
});
