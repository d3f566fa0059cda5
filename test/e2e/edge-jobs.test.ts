/**
 * Workloads through the global API only (SigV4, control-plane proxy, accelerator, ALB,
 * manifest-processor, Kubernetes API simulator): a manifest submitted and run to success on the
 * simulator's clock, and a queued job submitted twice with one Idempotency-Key — one job, one run.
 */
import { afterAll, beforeAll, expect, jest, test } from '@jest/globals';
import type { QueuedJob, QueuedJobList } from '../../contracts/api/manifest-processor-central.js';
import type { JobList } from '../../contracts/api/manifest-processor.js';
import { startLocalPlatform, type LocalPlatform } from '../../local/platform.js';
import { edgeClient, poll, type EdgeClient } from './support/edge.js';

// Starts the whole local platform (services, emulators, esbuild bundles) in this process: tests and
// hooks get an explicit budget here; the hook that starts it names its own.
jest.setTimeout(30_000);

let platform: LocalPlatform;
let edge: EdgeClient;

beforeAll(async () => {
  platform = await startLocalPlatform({ analytics: false, kubelet: { pendingMs: 50, runningMs: 150 } });
  edge = edgeClient(platform);
}, 30_000);
afterAll(() => platform?.close());

const JSON_HEADERS = { 'content-type': 'application/json' };

function job(name: string, message: string) {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [
            { name: 'main', image: 'public.ecr.aws/docker/library/busybox:1.36', command: ['echo', message] },
          ],
        },
      },
    },
  };
}

test('a manifest submitted through the global API runs to success', async () => {
  const submitted = await edge.global({
    method: 'POST',
    path: '/api/v1/manifests',
    headers: JSON_HEADERS,
    body: JSON.stringify({ manifests: [job('edge-hello', 'hi through the edge')], namespace: 'svc-jobs' }),
  });
  expect(submitted.status).toBe(200);
  expect(submitted.json.resources[0]).toMatchObject({ name: 'edge-hello', status: 'created' });

  const final = await poll(
    () => edge.global({ path: '/api/v1/jobs/svc-jobs/edge-hello' }),
    (reply) => reply.json?.status === 'succeeded',
  );
  expect([final.status, final.json.status]).toEqual([200, 'succeeded']);
  const logs = await edge.global({ path: '/api/v1/jobs/svc-jobs/edge-hello/logs' });
  expect(logs.json.pods[0].logs).toContain('hi through the edge');
  // The request id API Gateway assigned is the one the service logged and echoed.
  expect(logs.headers['x-request-id']).toBe(logs.headers['x-amzn-requestid']);
});

test('a queued job sent twice with one Idempotency-Key is one job, dispatched and run once', async () => {
  const body = JSON.stringify({
    manifest: job('edge-queued', 'queued through the edge'),
    target_region: platform.endpoints.region,
    priority: 50,
  });
  const send = () =>
    edge.global({
      method: 'POST',
      path: '/api/v1/queue/jobs',
      headers: { ...JSON_HEADERS, 'idempotency-key': 'edge-e2e-key-1' },
      body,
    });
  const first = await send();
  const replay = await send();
  expect(first.status).toBe(200);
  expect(replay.status).toBe(200);
  expect(replay.json.job_id).toBe(first.json.job_id);
  expect(replay.json.idempotent_replay).toBe(true);

  const final = await poll(
    () => edge.global({ path: `/api/v1/queue/jobs/${String(first.json.job_id)}` }),
    (reply) => reply.json?.status === 'succeeded',
    30_000,
  );
  expect(final.json.status).toBe('succeeded');
  // One queue record for the key, and one Kubernetes Job in the cluster.
  const queue = await edge.global({ path: '/api/v1/queue/jobs' });
  const records = (queue.json.jobs as QueuedJobList['jobs']).filter(
    (j) => j.idempotency_key === 'edge-e2e-key-1',
  );
  expect(records).toHaveLength(1);
  const k8s = final.json.k8s as NonNullable<QueuedJob['k8s']>;
  const cluster = await edge.global({ path: '/api/v1/jobs', query: { namespace: k8s.namespace } });
  const names = (cluster.json.jobs as JobList['jobs']).map((j) => j.name);
  expect(names.filter((n) => n === k8s.name)).toHaveLength(1);
}, 40_000);

test('a job from a template, and a cost report (manifest-processor → cost-monitor over internal TLS)', async () => {
  const template = {
    name: 'edge-template',
    manifest: { ...job('{{name}}', 'from a template'), metadata: { name: '{{name}}' } },
  };
  const saved = await edge.global({
    method: 'POST',
    path: '/api/v1/templates',
    headers: JSON_HEADERS,
    body: JSON.stringify(template),
  });
  expect(saved.status).toBe(200);
  const fromTemplate = await edge.global({
    method: 'POST',
    path: '/api/v1/jobs/from-template/edge-template',
    headers: JSON_HEADERS,
    body: JSON.stringify({ name: 'edge-from-template' }),
  });
  expect(fromTemplate.status).toBe(200);
  const report = await edge.global({
    method: 'POST',
    path: '/api/v1/cost/reports',
    headers: JSON_HEADERS,
    body: JSON.stringify({ window_hours: 1 }),
  });
  expect(report.status).toBe(200);
  expect((await edge.global({ path: '/api/v1/cost/status' })).status).toBe(200);
});
