/**
 * Profile driver for the Kubernetes API simulator (not a bench module: bench/run.ts skips `_` files).
 * 8 calls in flight: N Job creates, then Job/Pod lists and reads, printing calls/s and CPU ms per call
 * (simulator and client-node share the process). Profile with
 *   N=500 node --import tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/_kube-sim-profile.ts
 * SIM=<path to another kube-api-simulator/index.ts> compares another checkout.
 */
import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import type * as Simulator from '../local/kube-api-simulator/index.js';
type SimModule = typeof Simulator;
const mod = (await import(process.env.SIM ?? '../local/kube-api-simulator/index.js')) as SimModule;
const sim = await mod.startKubeApiSimulator({ kubelet: { pendingMs: 50, runningMs: 200 } });
const kc = mod.kubeConfigFor(sim.url);
const batch = kc.makeApiClient(BatchV1Api);
const core = kc.makeApiClient(CoreV1Api);
const N = Number(process.env.N ?? 500);
const job = (name: string) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, namespace: 'svc-jobs' },
  spec: {
    template: {
      spec: {
        restartPolicy: 'Never',
        containers: [
          { name: 'main', image: 'busybox', resources: { requests: { cpu: '10m', memory: '16Mi' } } },
        ],
      },
    },
  },
});
const phase = async (label: string, n: number, fn: (i: number) => Promise<unknown>) => {
  const t = performance.now();
  const c = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next++; i < n; i = next++) await fn(i);
    }),
  );
  const cpu = process.cpuUsage(c);
  const ms = performance.now() - t;
  console.log(
    `${label}: ${(n / (ms / 1000)).toFixed(0)}/s wall, ${((cpu.user + cpu.system) / 1000 / n).toFixed(2)} ms CPU per op`,
  );
};
await phase('create job', N, (i) =>
  batch.createNamespacedJob({ namespace: 'svc-jobs', body: job(`j-${i}`) }),
);
await new Promise((r) => setTimeout(r, 1500));
await phase('list jobs', N, () => batch.listNamespacedJob({ namespace: 'svc-jobs', limit: 500 }));
await phase('list jobs limit 50', N, () => batch.listNamespacedJob({ namespace: 'svc-jobs', limit: 50 }));
await phase('list pods', N, () => core.listPodForAllNamespaces({ limit: 500 }));
await phase('read job', N, (i) => batch.readNamespacedJob({ namespace: 'svc-jobs', name: `j-${i % N}` }));
console.log(sim.list('v1', 'Pod').length, 'pods');
await sim.close();
process.exit(0);
